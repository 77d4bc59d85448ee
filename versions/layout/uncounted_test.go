package layout

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// TestFirstComplete: the search finds the first index not lacking for
// every length and boundary, in rounds of at most searchWidth calls, and
// about log9(n) rounds.
func TestFirstComplete(t *testing.T) {
	for n := 1; n <= 200; n++ {
		rounds := 1 + int(math.Ceil(math.Log(float64(n))/math.Log(searchWidth+1)))
		for b := 1; b <= n; b++ {
			var calls atomic.Int64
			var mu sync.Mutex
			seen := map[int]bool{}
			got := firstComplete(n, func(i int) bool {
				calls.Add(1)
				mu.Lock()
				defer mu.Unlock()
				if i < 1 || i >= n || seen[i] {
					t.Errorf("n=%d: index %d asked for (again: %v)", n, i, seen[i])
				}
				seen[i] = true
				return i < b
			})
			if got != b {
				t.Fatalf("n=%d, boundary %d: found %d", n, b, got)
			}
			if max := int64(rounds * searchWidth); calls.Load() > max {
				t.Errorf("n=%d, boundary %d: %d footers read, more than %d rounds of %d", n, b, calls.Load(), rounds, searchWidth)
			}
		}
	}
}

// TestFindUncounted: where the table has columns no stats count, the
// files older than the first one whose footer has them all are served
// through Fill; nothing but the oldest footer is read where it has them;
// none where every column is counted. A footer that cannot be read
// leaves every file as it was, and a file its stats already fill is not
// read.
func TestFindUncounted(t *testing.T) {
	const files = 100
	snap := snapshotOf(schemaOf("id:long", "late:string"))
	snap.Metadata.Configuration = map[string]string{"delta.dataSkippingNumIndexedCols": "1"}
	var counted []*action.ColumnSet
	for i := range files {
		// Names in the reverse order of age: the search sorts by age.
		snap.Files = append(snap.Files, replay.File{Path: fmt.Sprintf("part-%03d.parquet", files-i), Size: 100, ModTime: int64(1000 + i)})
		counted = append(counted, action.NullCounted([]byte(`{"nullCount":{"id":0}}`)))
	}
	counted[90] = action.NullCounted([]byte(`{"nullCount":{}}`)) // lacks id: filled by its stats
	for _, c := range []struct {
		name     string
		lacking  int // files lacking late: the oldest ones
		unreadab int // the age of a footer that cannot be read, or -1
		reads    int // at most
	}{
		{"none lacks", 0, -1, 1},
		{"the oldest lacks", 1, -1, 1 + 3*searchWidth},
		{"half lack", 50, -1, 1 + 3*searchWidth},
		{"all lack", files, -1, 1 + 3*searchWidth},
		{"the oldest footer cannot be read", files, 0, 1},
		{"another footer cannot be read", 50, 1 + (files-2)/(searchWidth+1), 1 + 3*searchWidth}, // the first round reads it (files-1 searched)
	} {
		v, err := Of(snap, nil, counted, Options{})
		if err != nil || fmt.Sprint(v.Uncounted) != "[late]" {
			t.Fatalf("%s: uncounted %v, %v", c.name, v.Uncounted, err)
		}
		var mu sync.Mutex
		var read []int
		err = v.FindUncounted(func(f *replay.File) (bool, error) {
			age := int(f.ModTime - 1000)
			mu.Lock()
			read = append(read, age)
			mu.Unlock()
			if age == c.unreadab {
				return false, errors.New("unreadable")
			}
			return age < c.lacking, nil
		})
		if (err != nil) != (c.unreadab >= 0) {
			t.Errorf("%s: %v", c.name, err)
		}
		if slices.Contains(read, 90) || len(read) > c.reads || len(read) == 0 || slices.Min(read) != 0 {
			t.Errorf("%s: footers read %v (at most %d; the oldest first; not the one stats fill)", c.name, read, c.reads)
		}
		var filled []int
		for _, e := range v.Entries {
			if e.Fill {
				filled = append(filled, int(e.File.ModTime-1000))
			}
		}
		slices.Sort(filled)
		want := []int{}
		for i := range c.lacking {
			if c.unreadab < 0 {
				want = append(want, i)
			}
		}
		if !slices.Contains(want, 90) {
			want = append(want, 90)
		}
		if fmt.Sprint(filled) != fmt.Sprint(want) {
			t.Errorf("%s: filled %v, want %v", c.name, filled, want)
		}
	}

	// Every column counted: no footer is read.
	snap.Metadata.Configuration = nil
	v, err := Of(snap, nil, counted, Options{})
	if err != nil || v.Uncounted != nil {
		t.Fatalf("uncounted %v, %v", v.Uncounted, err)
	}
	_ = v.FindUncounted(func(*replay.File) (bool, error) {
		t.Error("a footer read where stats count every column")
		return false, nil
	})
	// Checking footers, every file is served through Fill, none read.
	snap.Metadata.Configuration = map[string]string{"delta.dataSkippingNumIndexedCols": "1"}
	v, err = Of(snap, nil, counted, Options{CheckFooters: true})
	if err != nil || slices.ContainsFunc(v.Entries, func(e Entry) bool { return !e.Fill }) {
		t.Errorf("checking footers: %+v, %v", v.Entries, err)
	}
}

// TestFindUnjudged: files whose stats have no null counts (a converted
// table's old files) say nothing of any column: where the oldest of them
// lacks one, the search serves the older ones filled, as for columns no
// stats count. Files whose stats count every column are complete; a
// table whose files all count every column reads no footer.
func TestFindUnjudged(t *testing.T) {
	snap := snapshotOf(schemaOf("id:long", "late:string"))
	full := action.NullCounted([]byte(`{"nullCount":{"id":0,"late":0}}`))
	var counted []*action.ColumnSet
	for i := range 20 {
		snap.Files = append(snap.Files, replay.File{Path: fmt.Sprintf("part-%02d.parquet", i), Size: 100, ModTime: int64(1000 + i)})
		set := full
		if i < 12 {
			set = nil // no null counts
		}
		counted = append(counted, set)
	}
	v, err := Of(snap, nil, counted, Options{})
	if err != nil || v.Uncounted != nil || v.Unjudged != 12 || !v.StatsUnsure() {
		t.Fatalf("uncounted %v, unjudged %d, %v", v.Uncounted, v.Unjudged, err)
	}
	var read []int
	var mu sync.Mutex
	err = v.FindUncounted(func(f *replay.File) (bool, error) {
		age := int(f.ModTime - 1000)
		mu.Lock()
		read = append(read, age)
		mu.Unlock()
		return age < 5, nil
	})
	var filled []int
	for _, e := range v.Entries {
		if e.Fill {
			filled = append(filled, int(e.File.ModTime-1000))
		}
	}
	if err != nil || fmt.Sprint(filled) != "[0 1 2 3 4]" || len(read) > 1+2*searchWidth {
		t.Errorf("filled %v (want the 5 oldest), footers read %v, %v", filled, read, err)
	}
	if !strings.Contains(v.Unsure(), "the columns of 12 files without null counts") {
		t.Errorf("Unsure: %q", v.Unsure())
	}
	if one := (&Version{Unjudged: 1}).Unsure(); one != "the columns of 1 file without null counts" {
		t.Errorf("Unsure of one file: %q", one)
	}

	v, err = Of(snap, nil, slices.Repeat([]*action.ColumnSet{full}, 20), Options{})
	if err != nil || v.StatsUnsure() {
		t.Fatalf("every file counted: unsure %v (%q), %v", v.StatsUnsure(), v.Unsure(), err)
	}
}

// TestUncountedFieldsInsideLists: no stats count the fields of the
// structs inside an array, whether or not they count the array (Spark
// does, delta-rs does not): the footers tell, and the message names the
// array once.
func TestUncountedFieldsInsideLists(t *testing.T) {
	snap := snapshotOf(schemaOf("id:long", "items:structs"))
	snap.Files = []replay.File{{Path: "a.parquet", Size: 100}}
	for stats, want := range map[string]string{
		`{"nullCount":{"id":0,"items":0}}`: "[fields inside items]",
		`{"nullCount":{"id":0}}`:           "[items]",
	} {
		v, err := Of(snap, nil, []*action.ColumnSet{action.NullCounted([]byte(stats))}, Options{})
		if err != nil || fmt.Sprint(v.Uncounted) != want || !v.StatsUnsure() {
			t.Errorf("%s: uncounted %v (want %s), unsure %v, %v", stats, v.Uncounted, want, v.StatsUnsure(), err)
		}
	}
}

// BenchmarkFindUncounted: the search's own cost over a million files, the
// footers answered at once: where the oldest lacks nothing (no sort) and
// where half lack a column.
//
//	go test ./versions/layout -run XXX -bench FindUncounted
func BenchmarkFindUncounted(b *testing.B) {
	const files = 1_000_000
	snap := snapshotOf(schemaOf("id:long", "late:string"))
	snap.Metadata.Configuration = map[string]string{"delta.dataSkippingNumIndexedCols": "1"}
	counted := make([]*action.ColumnSet, files)
	set := action.NullCounted([]byte(`{"nullCount":{"id":0}}`))
	for i := range files {
		snap.Files = append(snap.Files, replay.File{Path: fmt.Sprintf("part-%07d.parquet", i), Size: 100, ModTime: int64(i*7919) % files})
		counted[i] = set
	}
	for _, lacking := range []int64{0, files / 2} {
		b.Run(fmt.Sprintf("lacking=%d", lacking), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				v, err := Of(snap, nil, counted, Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := v.FindUncounted(func(f *replay.File) (bool, error) { return f.ModTime < lacking, nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
