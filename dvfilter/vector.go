package dvfilter

import (
	"iter"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
)

// Vector is a decoded deletion vector: the set of deleted row indexes of one
// data file, counting from 0 across row groups. A Vector is immutable after
// construction and safe for concurrent use. The zero Vector is empty.
type Vector struct {
	buckets []bucket // non-empty, ascending by high
	card    uint64
}

// bucket holds the rows whose upper 32 bits are high.
type bucket struct {
	high uint32
	bm   *roaring.Bitmap // lower 32 bits; never mutated
}

// Cardinality is the number of deleted rows.
func (v *Vector) Cardinality() uint64 { return v.card }

// IsEmpty reports whether no row is deleted.
func (v *Vector) IsEmpty() bool { return v.card == 0 }

// Max returns the largest deleted row index; ok is false for an empty vector.
func (v *Vector) Max() (row uint64, ok bool) {
	if len(v.buckets) == 0 {
		return 0, false
	}
	b := v.buckets[len(v.buckets)-1]
	return uint64(b.high)<<32 | uint64(b.bm.Maximum()), true
}

// search returns the index of the first bucket whose high key is >= high.
func (v *Vector) search(high uint32) int {
	return sort.Search(len(v.buckets), func(i int) bool { return v.buckets[i].high >= high })
}

// Contains reports whether row is deleted.
func (v *Vector) Contains(row uint64) bool {
	hi := uint32(row >> 32)
	i := v.search(hi)
	return i < len(v.buckets) && v.buckets[i].high == hi && v.buckets[i].bm.Contains(uint32(row))
}

// CountRange returns the number of deleted rows in [lo, hi), counting
// only the containers the range spans: what a row group starting at lo
// with hi-lo rows loses.
func (v *Vector) CountRange(lo, hi uint64) uint64 {
	var n uint64
	for i := v.search(uint32(lo >> 32)); i < len(v.buckets) && hi > lo; i++ {
		b := v.buckets[i]
		base := uint64(b.high) << 32
		if base >= hi {
			break
		}
		n += b.bm.CardinalityInRange(max(lo, base)-base, min(hi-base, 1<<32))
	}
	return n
}

// ForEach calls fn for every deleted row in ascending order until fn
// returns false.
func (v *Vector) ForEach(fn func(row uint64) bool) {
	for _, b := range v.buckets {
		base := uint64(b.high) << 32
		it := b.bm.Iterator()
		for it.HasNext() {
			if !fn(base | uint64(it.Next())) {
				return
			}
		}
	}
}

// RunsInRange calls fn for the runs of consecutive deleted rows in
// [lo, hi), clipped to it, ascending, until fn returns false. Runs are
// disjoint; two may meet (a run is cut where the roaring bitmap's 32-bit
// buckets meet). The work grows with the runs, not the rows: a run of 10
// bytes in a vector deletes 65,536 rows.
func (v *Vector) RunsInRange(lo, hi uint64, fn func(lo, hi uint64) bool) {
	if hi <= lo {
		return
	}
	for i := v.search(uint32(lo >> 32)); i < len(v.buckets); i++ {
		b := v.buckets[i]
		base := uint64(b.high) << 32
		if base >= hi {
			return
		}
		from, to := max(lo, base)-base, min(hi-base, 1<<32) // within the bucket
		for x := from; x < to; {
			// NextValue finds its container by binary search; an iterator
			// would step through every container before it.
			next := b.bm.NextValue(uint32(x))
			if next < 0 || uint64(next) >= to {
				break
			}
			start := uint64(next)
			end := runEnd(b.bm, start, to)
			if !fn(base+start, base+end) {
				return
			}
			x = end
		}
	}
}

// runEnd returns where the run of values of bm that starts at start ends,
// at most limit: its length found by doubling and then halving, each step
// one count over the containers the length spans.
func runEnd(bm *roaring.Bitmap, start, limit uint64) uint64 {
	full := func(n uint64) bool { return bm.CardinalityInRange(start, start+n) == n }
	n := uint64(1) // [start, start+n) is full
	for start+2*n <= limit && full(2*n) {
		n *= 2
	}
	top := min(2*n-1, limit-start) // the run is shorter than 2n, or ends at limit
	for n < top {
		mid := n + (top-n+1)/2
		if full(mid) {
			n = mid
		} else {
			top = mid - 1
		}
	}
	return start + n
}

// All returns an iterator over the deleted rows in ascending order.
func (v *Vector) All() iter.Seq[uint64] {
	return func(yield func(uint64) bool) { v.ForEach(yield) }
}

// MemSize estimates the bytes the vector holds in memory, for cache costing.
func (v *Vector) MemSize() uint64 {
	n := uint64(48 + 40*len(v.buckets))
	for _, b := range v.buckets {
		n += b.bm.GetSizeInBytes()
	}
	return n
}
