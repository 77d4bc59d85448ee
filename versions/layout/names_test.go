package layout

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
)

// servedNames lays out snap and returns its entries' names and the stored
// paths it hides.
func servedNames(t *testing.T, files []string, dvs map[int]string, physical bool) (names, hidden []string) {
	t.Helper()
	snap := snapshotOf(schemaOf("id:long"), files...)
	for i, id := range dvs {
		snap.Files[i].DV = &action.DeletionVector{StorageType: "u", PathOrInlineDv: id, SizeInBytes: 10, Cardinality: 1}
	}
	v, err := Of(snap, nil, nil, Options{Physical: physical})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range v.Entries {
		names = append(names, e.Name)
	}
	for _, h := range v.Hidden {
		hidden = append(hidden, h.Path)
	}
	return names, hidden
}

// TestServedNamesAreUnique: every live file is served, each under a name
// of its own, however the hashes that keep apart files of one base name
// fall.
func TestServedNamesAreUnique(t *testing.T) {
	if fnvHex("c693596/p.parquet") != fnvHex("c1170850/p.parquet") || fnvHex("d2/q.parquet") != "305b6789" {
		t.Fatal("the paths below were chosen for their hashes, which are not those")
	}
	for _, c := range []struct {
		name     string
		files    []string
		dvs      map[int]string
		physical bool
	}{
		{name: "hashes alike", files: []string{"a/p.parquet", "c693596/p.parquet", "c1170850/p.parquet"}},
		{name: "a hash lands on a stored name", files: []string{"d1/q.parquet", "d2/q.parquet", "q-305b6789.parquet"}},
		{name: "one path under three vectors", files: []string{"a.parquet", "a.parquet", "a.parquet"}, dvs: map[int]string{1: "Y", 2: "X"}},
		{name: "physical: a file named as a folder", files: []string{"c.parquet", "c.parquet/d.parquet", "e/f", "e/f/g/h.parquet"}, physical: true},
		{name: "physical: one path under two vectors", files: []string{"x/a.parquet", "x/a.parquet"}, dvs: map[int]string{0: "Y"}, physical: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			names, hidden := servedNames(t, c.files, c.dvs, c.physical)
			if len(names) != len(c.files) || len(hidden) != 0 {
				t.Fatalf("served %q, hidden %q; want all %d files", names, hidden, len(c.files))
			}
			if !slices.IsSorted(names) {
				t.Errorf("names not sorted: %q", names)
			}
			for i := 1; i < len(names); i++ {
				if names[i] == names[i-1] {
					t.Errorf("two files served as %q: %q", names[i], names)
				}
			}
			for _, n := range names {
				for _, m := range names {
					if strings.HasPrefix(m, n+"/") {
						t.Errorf("%q is a file and a folder: %q", n, names)
					}
				}
			}
			again, _ := servedNames(t, c.files, c.dvs, c.physical)
			if !slices.Equal(names, again) {
				t.Errorf("names differ from one layout to the next: %q, %q", names, again)
			}
		})
	}
	// The first by stored path keeps the name; the others' do not depend
	// on what else the version holds, when nothing else takes them.
	names, _ := servedNames(t, []string{"b/part-0.parquet", "a/part-0.parquet"}, nil, false)
	if want := []string{"part-0-" + fnvHex("b/part-0.parquet") + ".parquet", "part-0.parquet"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
}

func fnvHex(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}

// TestHiddenFileNamesEscaped: a data file whose name starts with "_" or
// "." is served with that character escaped, as pyarrow, pandas and Spark
// skip such files; the physical layout keeps stored names.
func TestHiddenFileNamesEscaped(t *testing.T) {
	files := []string{"part-0.parquet", "_part-1.parquet", ".part-2.parquet", "sub/_part-3.parquet", "a_b.parquet"}
	names, _ := servedNames(t, files, nil, false)
	want := []string{"%2Epart-2.parquet", "%5Fpart-1.parquet", "%5Fpart-3.parquet", "a_b.parquet", "part-0.parquet"}
	if !slices.Equal(names, want) {
		t.Errorf("logical names %q, want %q", names, want)
	}
	names, _ = servedNames(t, files, nil, true)
	slices.Sort(files)
	if !slices.Equal(names, files) {
		t.Errorf("physical names %q, want %q", names, files)
	}
}

// TestServedNamesUniqueRandom: random stored paths over a small alphabet,
// many sharing base names, some named as another's hash or as a folder
// of another (physical layout), some live under two vectors: every file
// is served, under a name of its own that is no folder's.
func TestServedNamesUniqueRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 28))
	for round := range 200 {
		physical := round%2 == 1
		var files []string
		dvs := map[int]string{}
		for i := range 1 + rng.IntN(40) {
			var p string
			switch k := rng.IntN(10); {
			case k < 6:
				p = fmt.Sprintf("%c/%c.parquet", 'a'+rng.IntN(3), 'p'+rng.IntN(2))
			case k < 7 && len(files) > 0: // another file's clash name, stored
				prev := files[rng.IntN(len(files))]
				p = disambiguate(prev[strings.LastIndexByte(prev, '/')+1:], prev, rng.IntN(2))
			case k < 8 && len(files) > 0: // a file inside another's path
				p = files[rng.IntN(len(files))] + "/x.parquet"
			case k < 9 && len(files) > 0: // the same path again, another vector
				p = files[rng.IntN(len(files))]
				dvs[i] = fmt.Sprintf("v%d", i)
			default:
				p = fmt.Sprintf("%c.parquet", 'p'+rng.IntN(2))
			}
			files = append(files, p)
		}
		names, hidden := servedNames(t, files, dvs, physical)
		if len(names)+len(hidden) != len(files) || len(hidden) != 0 {
			t.Fatalf("round %d: %d files, %d served, hidden %q", round, len(files), len(names), hidden)
		}
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				t.Fatalf("round %d: %q served twice: %q from %q", round, n, names, files)
			}
			seen[n] = true
		}
		for _, n := range names {
			for dir := n; strings.Contains(dir, "/"); {
				dir = dir[:strings.LastIndexByte(dir, '/')]
				if seen[dir] {
					t.Fatalf("round %d: %q is a file and a folder: %q from %q", round, dir, names, files)
				}
			}
		}
	}
}
