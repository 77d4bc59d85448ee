package dvfilter

import (
	"github.com/RoaringBitmap/roaring/v2"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"
)

func TestVectorQueries(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows := []uint64{0, 1, 2, 9, 65535, 65536, 100000, 1<<32 - 1, 1 << 32, 1<<32 + 3, 7<<32 + 1}
	for range 500 {
		rows = append(rows, r.Uint64N(300000), 1<<32+r.Uint64N(300000))
	}
	// Runs: across a container's end, across the 32-bit buckets' seam,
	// over several containers, and every other row of a bitset.
	for _, run := range [][2]uint64{{65500, 65600}, {1<<32 - 40, 1<<32 + 40}, {3<<32 + 10, 3<<32 + 200000}, {400000, 410000}} {
		for row := run[0]; row < run[1]; row++ {
			rows = append(rows, row)
		}
	}
	for row := uint64(500000); row < 520000; row += 2 {
		rows = append(rows, row)
	}
	v := NewVector(rows...)
	want := slices.Compact(slices.Sorted(slices.Values(rows)))

	if got := rowsOf(v); !slices.Equal(got, want) {
		t.Fatalf("All gave %d rows, want %d", len(got), len(want))
	}
	if v.Cardinality() != uint64(len(want)) || v.IsEmpty() {
		t.Fatalf("Cardinality = %d, want %d", v.Cardinality(), len(want))
	}
	if m, ok := v.Max(); !ok || m != want[len(want)-1] {
		t.Fatalf("Max = %d, %v", m, ok)
	}
	// countBrute counts rows in [lo, hi) from the sorted slice.
	countBrute := func(lo, hi uint64) uint64 {
		if hi <= lo {
			return 0
		}
		a := sort.Search(len(want), func(i int) bool { return want[i] >= lo })
		b := sort.Search(len(want), func(i int) bool { return want[i] >= hi })
		return uint64(b - a)
	}
	probes := []uint64{0, 1, 2, 3, 9, 10, 65535, 65536, 65537, 65550, 65590, 1<<32 - 1, 1 << 32, 1<<32 + 1, 3<<32 + 100000, 7 << 32, 7<<32 + 2, 1 << 40, ^uint64(0)}
	for range 300 {
		probes = append(probes, r.Uint64N(400000), 1<<32+r.Uint64N(400000))
	}
	set := map[uint64]bool{}
	for _, w := range want {
		set[w] = true
	}
	for _, p := range probes {
		if v.Contains(p) != set[p] {
			t.Fatalf("Contains(%d) = %v", p, !set[p])
		}
	}
	for i := 0; i < len(probes); i++ {
		lo, hi := probes[i], probes[(i*7+3)%len(probes)]
		if got, exp := v.CountRange(lo, hi), countBrute(lo, hi); got != exp {
			t.Fatalf("CountRange(%d, %d) = %d, want %d", lo, hi, got, exp)
		}
		var inRange []uint64
		prevHi := uint64(0)
		v.RunsInRange(lo, hi, func(a, b uint64) bool {
			if a >= b || a < prevHi {
				t.Fatalf("RunsInRange(%d, %d) gave [%d, %d) after one ending at %d", lo, hi, a, b, prevHi)
			}
			prevHi = b
			for row := a; row < b; row++ {
				inRange = append(inRange, row)
			}
			return true
		})
		if uint64(len(inRange)) != countBrute(lo, hi) {
			t.Fatalf("RunsInRange(%d, %d) covered %d rows, want %d", lo, hi, len(inRange), countBrute(lo, hi))
		}
		for _, row := range inRange {
			if row < lo || row >= hi || !set[row] {
				t.Fatalf("RunsInRange(%d, %d) covered %d", lo, hi, row)
			}
		}
	}
	if v.MemSize() == 0 {
		t.Fatal("MemSize = 0")
	}
}

func TestVectorEarlyStop(t *testing.T) {
	v := NewVector(1, 2, 3, 1<<33, 1<<33+1)
	var got []uint64
	v.ForEach(func(row uint64) bool { got = append(got, row); return len(got) < 4 })
	if !slices.Equal(got, []uint64{1, 2, 3, 1 << 33}) {
		t.Fatalf("ForEach with stop = %v", got)
	}
	got = nil
	for row := range v.All() {
		got = append(got, row)
		if row == 2 {
			break
		}
	}
	if !slices.Equal(got, []uint64{1, 2}) {
		t.Fatalf("All with break = %v", got)
	}
	got = nil
	v.RunsInRange(2, 1<<40, func(lo, hi uint64) bool { got = append(got, lo, hi); return false })
	if !slices.Equal(got, []uint64{2, 4}) {
		t.Fatalf("RunsInRange with stop = %v", got)
	}
}

func TestEmptyVector(t *testing.T) {
	for _, v := range []*Vector{{}, NewVector(), mustParse(t, build64())} {
		if !v.IsEmpty() || v.Cardinality() != 0 || v.Contains(0) || v.CountRange(0, ^uint64(0)) != 0 {
			t.Fatalf("empty vector misbehaves: %+v", v)
		}
		if _, ok := v.Max(); ok {
			t.Fatal("Max of empty vector ok")
		}
		v.ForEach(func(uint64) bool { t.Fatal("ForEach visited a row"); return false })
		v.RunsInRange(0, 100, func(uint64, uint64) bool { t.Fatal("RunsInRange gave a run"); return false })
	}
}

func TestAllRowsCountRange(t *testing.T) {
	// Every row of a 1M-row file deleted: each row group loses all its rows.
	const n = 1_000_000
	v := mustParse(t, mustMarshal(t, NewVector(seq64(0, n, 1)...)))
	for lo := uint64(0); lo < n; lo += 131072 {
		hi := min(lo+131072, n)
		if got := v.CountRange(lo, hi); got != hi-lo {
			t.Fatalf("CountRange(%d, %d) = %d", lo, hi, got)
		}
	}
	if v.CountRange(n, 2*n) != 0 || v.CountRange(5, 5) != 0 || v.CountRange(9, 3) != 0 {
		t.Fatal("CountRange outside or empty range not 0")
	}
}

func mustMarshal(t testing.TB, v *Vector) []byte {
	t.Helper()
	b, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVectorConcurrentReaders backs the "safe for concurrent use" promise
// under -race: a parsed vector is shared by every reader of a file.
func TestVectorConcurrentReaders(t *testing.T) {
	v := mustParse(t, mustMarshal(t, NewVector(append(seq64(0, 100000, 3), 1<<32, 1<<32+9)...)))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n uint64
			v.ForEach(func(uint64) bool { n++; return true })
			v.RunsInRange(uint64(g)*1000, 50000, func(uint64, uint64) bool { return true })
			if n != v.Cardinality() || !v.Contains(3) || v.CountRange(0, 9) != 3 || v.MemSize() == 0 {
				t.Error("concurrent reader saw an inconsistent vector")
			}
			if _, err := v.MarshalBinary(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// TestRunsOfBillionsOfRows: a vector of a few run containers deleting
// billions of rows gives its runs in a few steps each.
func TestRunsOfBillionsOfRows(t *testing.T) {
	v := &Vector{}
	for high := uint32(0); high < 3; high++ {
		bm := roaring.New()
		bm.AddRange(5, 1<<32) // every row of the bucket from 5 on
		bm.Remove(1 << 31)
		bm.RunOptimize()
		v.add(high, bm)
	}
	var got [][2]uint64
	v.RunsInRange(3, 2<<32+100, func(lo, hi uint64) bool { got = append(got, [2]uint64{lo, hi}); return true })
	want := [][2]uint64{{5, 1 << 31}, {1<<31 + 1, 1 << 32}, {1<<32 + 5, 1<<32 + 1<<31}, {1<<32 + 1<<31 + 1, 2 << 32}, {2<<32 + 5, 2<<32 + 100}}
	if !slices.Equal(got, want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
}
