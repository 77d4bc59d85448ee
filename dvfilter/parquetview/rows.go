package parquetview

import "slices"

// Rows is the set of row indexes a view leaves out: positions in the file,
// counting from 0 across row groups (a decoded deletion vector,
// dvfilter.Vector).
type Rows interface {
	Cardinality() uint64
	// Max is the greatest row in the set; ok is false for an empty set.
	Max() (row uint64, ok bool)
	// CountRange counts the rows in [lo, hi).
	CountRange(lo, hi uint64) uint64
	// RunsInRange calls fn for the runs [lo, hi) of consecutive rows of
	// the set within [lo, hi), clipped to it, ascending and disjoint,
	// until fn returns false.
	RunsInRange(lo, hi uint64, fn func(lo, hi uint64) bool)
}

// noRows is the empty set: a view that leaves out no row.
type noRows struct{}

func (noRows) Cardinality() uint64                                    { return 0 }
func (noRows) Max() (uint64, bool)                                    { return 0, false }
func (noRows) CountRange(lo, hi uint64) uint64                        { return 0 }
func (noRows) RunsInRange(lo, hi uint64, fn func(lo, hi uint64) bool) {}

// rowRun is the rows [lo, hi).
type rowRun struct{ lo, hi int64 }

// deletions are the rows one row group loses, counted from its first row,
// as ascending, disjoint runs: held as runs, not rows, as a deletion
// vector holds 65,536 deleted rows in a run of 10 bytes.
type deletions []rowRun

// groupDeletions returns the rows of the row group of n rows from first
// that vec deletes.
func groupDeletions(vec Rows, first, n int64) deletions {
	var d deletions
	vec.RunsInRange(uint64(first), uint64(first+n), func(lo, hi uint64) bool {
		d = append(d, rowRun{int64(lo) - first, int64(hi) - first})
		return true
	})
	return d
}

// count is the number of rows deleted.
func (d deletions) count() int64 {
	var n int64
	for _, r := range d {
		n += r.hi - r.lo
	}
	return n
}

// within returns the runs in [lo, hi), clipped to it.
func (d deletions) within(lo, hi int64) deletions {
	i, _ := slices.BinarySearchFunc(d, lo, func(r rowRun, row int64) int {
		if r.hi <= row {
			return -1
		}
		return 1
	})
	j := i
	for j < len(d) && d[j].lo < hi {
		j++
	}
	if i == j {
		return nil
	}
	if d[i].lo >= lo && d[j-1].hi <= hi {
		return d[i:j]
	}
	out := slices.Clone(d[i:j])
	out[0].lo = max(out[0].lo, lo)
	out[len(out)-1].hi = min(out[len(out)-1].hi, hi)
	return out
}

// add appends the run [lo, hi), which starts at or past the last one's
// end, merging the two where they meet.
func (d deletions) add(lo, hi int64) deletions {
	if k := len(d) - 1; k >= 0 && d[k].hi == lo {
		d[k].hi = hi
		return d
	}
	return append(d, rowRun{lo, hi})
}

// deletedCursor tells, of rows asked in ascending order, which are
// deleted.
type deletedCursor struct{ runs deletions }

func (c *deletedCursor) deleted(row int64) bool {
	for len(c.runs) > 0 && c.runs[0].hi <= row {
		c.runs = c.runs[1:]
	}
	return len(c.runs) > 0 && c.runs[0].lo <= row
}
