package layout

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/replay"
)

// sortEntries sorts as a comparison sort by byName does: names sharing
// long prefixes, names that are prefixes of others, and equal names (the
// files unique renames) ordered by stored path.
func TestSortEntriesMatchesByName(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 100, 3 * parallelRunMin} {
		es := make([]Entry, n)
		for i := range es {
			name := fmt.Sprintf("date=2024-01-%02d/part-%05d.parquet", rng.IntN(3), rng.IntN(n/4+1))
			if rng.IntN(5) == 0 {
				name = name[:rng.IntN(len(name))]
			}
			es[i] = Entry{Name: name, File: &replay.File{Path: fmt.Sprintf("x/%d", rng.IntN(1000))}}
		}
		want := slices.Clone(es)
		slices.SortFunc(want, byName)
		sortEntries(es)
		for i := range es {
			if es[i].Name != want[i].Name || es[i].File.Path != want[i].File.Path {
				t.Fatalf("%d entries: %d is %q (%s), want %q (%s)", n, i, es[i].Name, es[i].File.Path, want[i].Name, want[i].File.Path)
			}
		}
	}
}

// PathOrder orders files as a sort by path does: long shared prefixes,
// paths that are prefixes of others, equal paths, empty ones; long enough
// to sort runs on every core.
func TestPathOrderMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 63, 64, 5000, 3 * parallelRunMin} {
		files := make([]replay.File, n)
		for i := range files {
			var p []byte
			switch rng.IntN(4) {
			case 0:
				p = fmt.Appendf(nil, "date=2024-01-%02d/part-%05d-c000.snappy.parquet", rng.IntN(3), rng.IntN(n+1))
			case 1:
				p = fmt.Appendf(nil, "date=2024-01-%02d/part-%05d", rng.IntN(3), rng.IntN(n+1))
			case 2:
				p = fmt.Appendf(nil, "date=2024-01-%02d", rng.IntN(3))
			default:
				p = make([]byte, rng.IntN(20))
				for k := range p {
					p[k] = byte('a' + rng.IntN(3))
				}
			}
			files[i].Path = string(p)
		}
		checkPathOrder(t, files)
		// Already in order (no radix pass moves a key), and in order but
		// for one pair.
		slices.SortFunc(files, func(a, b replay.File) int { return strings.Compare(a.Path, b.Path) })
		checkPathOrder(t, files)
		if n > 2 {
			files[n/3], files[2*n/3] = files[2*n/3], files[n/3]
			checkPathOrder(t, files)
		}
	}
}

// One writer's paths: a long shared prefix, partitions, then names that
// tie past the first 16 bytes (the keys read in the first pass) in runs
// long enough to be sorted on every core.
func TestPathOrderSharedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	files := make([]replay.File, 4*parallelRunMin)
	for i := range files {
		files[i].Path = fmt.Sprintf("region=eu/date=2024-01-%02d/part-%05d-0000000000-%04d.parquet", rng.IntN(4), rng.IntN(50), rng.IntN(10000))
	}
	checkPathOrder(t, files)
}

// checkPathOrder checks that PathOrder(files) is a permutation of the
// files in path order.
func checkPathOrder(t *testing.T, files []replay.File) {
	t.Helper()
	n := len(files)
	order := PathOrder(files)
	if len(order) != n {
		t.Fatalf("%d files, %d in order", n, len(order))
	}
	seen := make([]bool, n)
	for k, i := range order {
		if seen[i] {
			t.Fatalf("file %d twice", i)
		}
		seen[i] = true
		if k > 0 && files[order[k-1]].Path > files[i].Path {
			t.Fatalf("%d files: %q before %q", n, files[order[k-1]].Path, files[i].Path)
		}
	}
}

// keyAll's prefix is the one all strings share, also when a string the
// guess did not look at parts earlier (then the keys are read again).
func TestKeyAllFindsTheSharedPrefix(t *testing.T) {
	paths := make([]string, 10_000)
	for i := range paths {
		paths[i] = fmt.Sprintf("region=eu/date=2024-01-%02d/part-%05d.parquet", i%3, i)
	}
	for _, c := range []struct {
		at   int
		path string
		want int
	}{
		{-1, "", len("region=eu/date=2024-01-0")},
		{5001, "region=us/date=2024-01-01/part-x.parquet", len("region=")}, // not a sampled index
		{0, "region=eu/date=2024-01-0", len("region=eu/date=2024-01-0")},   // the first one is shortest
		{7777, "r", 1},
		{9999, "", 0},
	} {
		strs := slices.Clone(paths)
		if c.at >= 0 {
			strs[c.at] = c.path
		}
		ks := make([]sortKey, len(strs))
		if got := keyAll(strs, ks); got != c.want {
			t.Errorf("%q at %d: prefix %d, want %d", c.path, c.at, got, c.want)
		}
		for i, k := range ks {
			if k.i != int32(i) || k.key != key8(strs[i], c.want) || k.next != key8(strs[i], c.want+8) {
				t.Fatalf("%q at %d: key %d wrong", c.path, c.at, i)
			}
		}
		files := make([]replay.File, len(strs))
		for i, s := range strs {
			files[i].Path = s
		}
		checkPathOrder(t, files)
	}
}
