package dvfilter

import (
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
	probes := []uint64{0, 1, 2, 3, 9, 10, 65535, 65536, 65537, 1<<32 - 1, 1 << 32, 1<<32 + 1, 7 << 32, 7<<32 + 2, 1 << 40, ^uint64(0)}
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
		v.ForEachInRange(lo, hi, func(row uint64) bool { inRange = append(inRange, row); return true })
		if uint64(len(inRange)) != countBrute(lo, hi) {
			t.Fatalf("ForEachInRange(%d, %d) visited %d rows, want %d", lo, hi, len(inRange), countBrute(lo, hi))
		}
		for _, row := range inRange {
			if row < lo || row >= hi || !set[row] {
				t.Fatalf("ForEachInRange(%d, %d) visited %d", lo, hi, row)
			}
		}
		if !slices.IsSorted(inRange) {
			t.Fatalf("ForEachInRange(%d, %d) not ascending", lo, hi)
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
	v.ForEachInRange(2, 1<<40, func(row uint64) bool { got = append(got, row); return row < 3 })
	if !slices.Equal(got, []uint64{2, 3}) {
		t.Fatalf("ForEachInRange with stop = %v", got)
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
		v.ForEachInRange(0, 100, func(uint64) bool { t.Fatal("ForEachInRange visited a row"); return false })
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
			v.ForEachInRange(uint64(g)*1000, 50000, func(uint64) bool { return true })
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
