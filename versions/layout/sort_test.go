package layout

import (
	"fmt"
	"math/bits"
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
	for _, n := range []int{0, 1, 2, 100, 3 * parallelMin} {
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
	for _, n := range []int{0, 1, 2, 17, 63, 64, 5000, 3 * parallelMin} {
		files := make([]replay.File, n)
		for i := range files {
			var p []byte
			switch rng.IntN(5) {
			case 0:
				p = fmt.Appendf(nil, "date=2024-01-%02d/part-%05d-c000.snappy.parquet", rng.IntN(3), rng.IntN(n+1))
			case 1:
				p = fmt.Appendf(nil, "date=2024-01-%02d/part-%05d", rng.IntN(3), rng.IntN(n+1))
			case 2:
				p = fmt.Appendf(nil, "date=2024-01-%02d", rng.IntN(3))
			case 3:
				p = make([]byte, rng.IntN(20))
				for k := range p {
					p[k] = byte('a' + rng.IntN(3))
				}
			default: // more differing bits than one packed key holds
				p = make([]byte, rng.IntN(30))
				for k := range p {
					p[k] = byte(1 + rng.IntN(255))
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

func orderOfStrings(strs []string) []int32 {
	return orderOf(len(strs), func(i int) string { return strs[i] })
}

// orderOf sorts any strings without a NUL as a comparison sort does.
func FuzzOrder(f *testing.F) {
	f.Add([]byte("date=2024-01-01/part-1\x00date=2024-01-01/part-10\x00date=2024-01-0\x00\x00x"))
	f.Add([]byte("ab\x00abc\x00ab\x00\xff\xfe\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		strs := strings.Split(string(data), "\x00")
		for len(strs) < 100 { // long enough for the radix sort
			strs = append(strs, strs...)
			for i := len(strs) / 2; i < len(strs); i++ {
				strs[i] += string(rune('a' + i%7))
			}
		}
		order := orderOfStrings(strs)
		sorted := slices.Sorted(slices.Values(strs))
		seen := make([]bool, len(strs))
		for k, i := range order {
			if seen[i] {
				t.Fatalf("%d twice", i)
			}
			seen[i] = true
			if strs[i] != sorted[k] {
				t.Fatalf("%d: %q, want %q", k, strs[i], sorted[k])
			}
		}
	})
}

// Keys of any length sort as a comparison sort does: one word, which
// leaves most strings tied, to more words than the strings hold.
func TestOrderWithAnyKeyLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	strs := make([]string, 2*parallelMin)
	for i := range strs {
		p := fmt.Sprintf("date=2024-01-%02d/hour=%02d/part-%05d-%x", rng.IntN(31), rng.IntN(24), rng.IntN(200), rng.Uint32())
		strs[i] = p[:min(len(p), 10+rng.IntN(40))]
	}
	want := slices.Sorted(slices.Values(strs))
	s := sorter{str: func(i int) string { return strs[i] }, idxBits: bits.Len(uint(len(strs)))}
	s.idxMask = 1<<s.idxBits - 1
	guess, _ := s.sample(len(strs))
	for words := 1; words <= maxWords; words++ {
		for k, i := range s.order(len(strs), guess, words) {
			if strs[i] != want[k] {
				t.Fatalf("%d words: %d is %q, want %q", words, k, strs[i], want[k])
			}
		}
	}
}

// BenchmarkOrder sorts a million paths of a few shapes: flat (a writer's
// part numbers), one partition column, two, random two-letter prefixes
// (column mapping), and the bench table's.
func BenchmarkOrder(b *testing.B) {
	const hex = "-cd85-4ea3-bb7f-7d11ceed28bf.c000.snappy.parquet"
	shapes := []struct {
		name string
		path func(rng *rand.Rand, i int) string
	}{
		{"flat", func(rng *rand.Rand, i int) string { return fmt.Sprintf("part-%05d-%08x%s", i%200, rng.Uint32(), hex) }},
		{"date", func(rng *rand.Rand, i int) string {
			return fmt.Sprintf("date=2024-01-%02d/part-%05d-%08x%s", i%31+1, i%200, rng.Uint32(), hex)
		}},
		{"date-hour", func(rng *rand.Rand, i int) string {
			return fmt.Sprintf("date=2024-01-%02d/hour=%02d/part-%05d-%08x%s", i%31+1, i%24, i%200, rng.Uint32(), hex)
		}},
		{"random-prefix", func(rng *rand.Rand, i int) string {
			return fmt.Sprintf("%c%c/part-%05d-%08x%s", 'A'+rng.IntN(26), 'a'+rng.IntN(26), i%200, rng.Uint32(), hex)
		}},
		{"bench", func(rng *rand.Rand, i int) string {
			return fmt.Sprintf("date=2024-01-%02d/part-%05d-%08x%s", rng.IntN(31)+1, rng.IntN(100000), rng.Uint32(), hex)
		}},
	}
	for _, shape := range shapes {
		rng := rand.New(rand.NewPCG(1, 2))
		strs := make([]string, 1_000_000)
		for i := range strs {
			strs[i] = shape.path(rng, i)
		}
		b.Run(shape.name, func(b *testing.B) {
			for b.Loop() {
				orderOfStrings(strs)
			}
		})
	}
}

// One writer's paths: a long shared prefix, partitions, then names that
// tie past the first 16 bytes (the keys read in the first pass) in runs
// long enough to be sorted on every core.
func TestPathOrderSharedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	files := make([]replay.File, 4*parallelMin)
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
		keys := make([]uint64, 2*len(strs))
		s := sorter{str: func(i int) string { return strs[i] }}
		guess, _ := s.sample(len(strs))
		got, diff := s.keyAll(keys, 2, guess)
		if got != c.want {
			t.Errorf("%q at %d: prefix %d, want %d", c.path, c.at, got, c.want)
		}
		var want diffBits
		k0 := []uint64{key8(strs[0], c.want), key8(strs[0], c.want+8)}
		for i := range strs {
			k := []uint64{key8(strs[i], c.want), key8(strs[i], c.want+8)}
			if !slices.Equal(keys[2*i:2*i+2], k) {
				t.Fatalf("%q at %d: key %d wrong", c.path, c.at, i)
			}
			want.add(k, k0)
		}
		if diff != want {
			t.Errorf("%q at %d: keys differ in %x, want %x", c.path, c.at, diff, want)
		}
		files := make([]replay.File, len(strs))
		for i, s := range strs {
			files[i].Path = s
		}
		checkPathOrder(t, files)
	}
}
