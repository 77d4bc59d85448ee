package parquetview

// Rows is the set of row indexes a view leaves out: positions in the file,
// counting from 0 across row groups (a decoded deletion vector,
// dvfilter.Vector).
type Rows interface {
	Cardinality() uint64
	// Max is the greatest row in the set; ok is false for an empty set.
	Max() (row uint64, ok bool)
	// CountRange counts the rows in [lo, hi).
	CountRange(lo, hi uint64) uint64
	// ForEachInRange calls fn for the rows in [lo, hi), ascending, until
	// fn returns false.
	ForEachInRange(lo, hi uint64, fn func(row uint64) bool)
}

// noRows is the empty set: a view that leaves out no row.
type noRows struct{}

func (noRows) Cardinality() uint64                                { return 0 }
func (noRows) Max() (uint64, bool)                                { return 0, false }
func (noRows) CountRange(lo, hi uint64) uint64                    { return 0 }
func (noRows) ForEachInRange(lo, hi uint64, fn func(uint64) bool) {}
