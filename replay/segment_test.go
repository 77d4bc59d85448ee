package replay

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// listing parses keys of _delta_log as a listing would give them.
func listing(t *testing.T, names ...string) []LogFile {
	t.Helper()
	var out []LogFile
	for _, n := range names {
		f, ok := ParseLogFile(LogDir+n, 1, 0)
		if !ok {
			t.Fatalf("%s is not a log file", n)
		}
		out = append(out, f)
	}
	return out
}

// A stray name far past the end of the log costs one step, never a walk
// over the numbers up to it: these calls used to spin for ever.
func TestStrayCommitNameIsBounded(t *testing.T) {
	for _, stray := range []int64{10_000_000_000, math.MaxInt64} {
		files := listing(t, Padded(0)+".json", Padded(1)+".json", Padded(2)+".json", Padded(stray)+".json")
		if got := Rebuildable(files); !slices.Equal(got, []int64{0, 1, 2}) {
			t.Errorf("stray %d: Rebuildable = %v, want [0 1 2]", stray, got)
		}
		if got := Head(files); got != 2 {
			t.Errorf("stray %d: Head = %d, want 2", stray, got)
		}
		if _, err := NewLogSegment(files, stray); err == nil || !strings.Contains(err.Error(), "missing commit 3") {
			t.Errorf("stray %d: NewLogSegment(stray) = %v, want a missing commit 3", stray, err)
		}
		if seg, err := NewLogSegment(files, 2); err != nil || len(seg.Commits) != 3 {
			t.Errorf("stray %d: NewLogSegment(2) = %+v, %v", stray, seg, err)
		}
	}
}

// A stray checkpoint name is searched as a listed file, not by counting down
// to it.
func TestStrayCheckpointIsBounded(t *testing.T) {
	files := listing(t, Padded(0)+".json", Padded(1)+".json", Padded(1)+".checkpoint.parquet", Padded(2)+".json",
		Padded(math.MaxInt64-1)+".checkpoint.0000000001.0000000002.parquet", Padded(math.MaxInt64)+".json")
	seg, err := NewLogSegment(files, 2)
	if err != nil || seg.Checkpoint == nil || seg.Checkpoint.Version != 1 || len(seg.Commits) != 1 {
		t.Fatalf("NewLogSegment(2) = %+v, %v; want checkpoint 1 and commit 2", seg, err)
	}
	if _, err := NewLogSegment(files, math.MaxInt64); err == nil {
		t.Fatal("the stray version rebuilt")
	}
	if got := Head(files); got != 2 {
		t.Errorf("Head = %d, want 2", got)
	}
}

func TestRebuildable(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string
		want  []int64
		head  int64
	}{
		{"from zero", []string{"0.json", "1.json", "2.json"}, []int64{0, 1, 2}, 2},
		{"gap", []string{"0.json", "1.json", "3.json", "4.json"}, []int64{0, 1}, 1},
		{"cleaned up to a checkpoint", []string{"5.checkpoint.parquet", "5.json", "6.json", "7.json"}, []int64{5, 6, 7}, 7},
		{"checkpoint after a gap", []string{"0.json", "2.json", "3.checkpoint.parquet", "3.json", "4.json"}, []int64{0, 3, 4}, 4},
		{"tail without checkpoint", []string{"7.json", "8.json", "10.json"}, nil, 8},
		{"incomplete multi-part", []string{"4.checkpoint.0000000001.0000000002.parquet", "4.json", "5.json"}, nil, 5},
		{"nothing", nil, nil, -1},
	} {
		var names []string
		for _, n := range c.files {
			v, rest, _ := strings.Cut(n, ".")
			num := int64(0)
			for _, d := range v {
				num = num*10 + int64(d-'0')
			}
			names = append(names, Padded(num)+"."+rest)
		}
		files := listing(t, names...)
		if got := Rebuildable(files); !slices.Equal(got, c.want) {
			t.Errorf("%s: Rebuildable = %v, want %v", c.name, got, c.want)
		}
		if got := Head(files); got != c.head {
			t.Errorf("%s: Head = %d, want %d", c.name, got, c.head)
		}
	}
}
