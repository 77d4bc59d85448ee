package layout

import (
	"slices"
	"testing"

	"github.com/deltafs/deltafs/replay"
)

// namesAsIn lays out the files of whole at the indexes in part alone, as
// changes/<N> does, then names them as whole does, and returns their
// names and whether whole's partition values were read to lay it out
// (under the logical layout).
func namesAsIn(t *testing.T, whole *replay.Snapshot, part []int, physical bool) (names []string, wholeLaidOut bool) {
	t.Helper()
	p := &replay.Snapshot{Metadata: whole.Metadata}
	for _, i := range part {
		p.Files = append(p.Files, whole.Files[i])
	}
	opts := Options{Physical: physical}
	v, err := Of(p, nil, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	read := func() ([]*replay.Partition, error) {
		wholeLaidOut = true
		return make([]*replay.Partition, len(whole.Files)), nil
	}
	if err := NameAsIn(v, whole, read, opts); err != nil {
		t.Fatal(err)
	}
	for _, e := range v.Entries {
		names = append(names, e.Name)
	}
	return names, wholeLaidOut
}

// TestPartNamedAsInWhole: a file of a commit's changes is named as in the
// version it is served as, also where it shares its name with a file
// outside the changes, which keeps the name there; the version is laid out
// only for a part whose names another file shares.
func TestPartNamedAsInWhole(t *testing.T) {
	whole := snapshotOf(schemaOf("id:long"), "b/p.parquet", "a/p.parquet", "c/q.parquet", "d/_r.parquet", "%5Fr.parquet")
	hashed := "p-" + fnvHex("b/p.parquet") + ".parquet"
	for _, c := range []struct {
		part    []int
		want    []string
		laidOut bool
	}{
		{[]int{0}, []string{hashed}, true},                                        // alone it would be p.parquet, a/'s name
		{[]int{1}, []string{"p.parquet"}, true},                                   // the first by stored path keeps it
		{[]int{0, 1}, []string{hashed, "p.parquet"}, false},                       // both in the part: settled alike
		{[]int{2}, []string{"q.parquet"}, false},                                  // no other file named so
		{[]int{3}, []string{"%5Fr-" + fnvHex("d/_r.parquet") + ".parquet"}, true}, // escaped, the name of a file stored so
		{[]int{4}, []string{"%5Fr.parquet"}, true},
	} {
		got, laidOut := namesAsIn(t, whole, c.part, false)
		if !slices.Equal(got, c.want) || laidOut != c.laidOut {
			t.Errorf("part %v: names %q (whole laid out: %v), want %q (%v)", c.part, got, laidOut, c.want, c.laidOut)
		}
	}
}

// TestPartNamedAsInWholePhysical: under the physical layout a file named as
// a folder of the version is renamed there, and so in the part.
func TestPartNamedAsInWholePhysical(t *testing.T) {
	whole := snapshotOf(schemaOf("id:long"), "a", "a/b.parquet", "c.parquet")
	got, _ := namesAsIn(t, whole, []int{0}, true)
	if want := []string{"a-" + fnvHex("a")}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	if got, _ := namesAsIn(t, whole, []int{2}, true); !slices.Equal(got, []string{"c.parquet"}) {
		t.Errorf("names %q, want c.parquet", got)
	}
}
