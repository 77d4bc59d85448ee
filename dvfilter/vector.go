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
	high   uint32
	bm     *roaring.Bitmap // lower 32 bits; never mutated
	before uint64          // rows in all earlier buckets
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

// countBelow returns the number of deleted rows < x.
func (v *Vector) countBelow(x uint64) uint64 {
	i := v.search(uint32(x >> 32))
	if i == len(v.buckets) {
		return v.card
	}
	b := v.buckets[i]
	n := b.before
	if b.high == uint32(x>>32) && uint32(x) > 0 {
		n += b.bm.Rank(uint32(x) - 1) // Rank counts values <= its argument
	}
	return n
}

// CountRange returns the number of deleted rows in [lo, hi), in logarithmic
// time: what a row group starting at lo with hi-lo rows loses.
func (v *Vector) CountRange(lo, hi uint64) uint64 {
	if hi <= lo {
		return 0
	}
	return v.countBelow(hi) - v.countBelow(lo)
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

// ForEachInRange calls fn for every deleted row in [lo, hi) in ascending
// order until fn returns false. It skips to lo without visiting earlier rows.
func (v *Vector) ForEachInRange(lo, hi uint64, fn func(row uint64) bool) {
	if hi <= lo {
		return
	}
	for i := v.search(uint32(lo >> 32)); i < len(v.buckets); i++ {
		b := v.buckets[i]
		base := uint64(b.high) << 32
		if base >= hi {
			return
		}
		it := b.bm.Iterator()
		if base < lo {
			it.AdvanceIfNeeded(uint32(lo))
		}
		for it.HasNext() {
			row := base | uint64(it.Next())
			if row >= hi || !fn(row) {
				return
			}
		}
	}
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
