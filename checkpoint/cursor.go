package checkpoint

// cursor walks a non-repeated leaf forward, row by row, keeping the index of
// the next value so that a row's value is found without scanning from 0.
type cursor struct {
	l      *leaf
	pos, v int // next row to examine; index of its value if present
	last   int // the row asked for last, and its answer
	lastV  int
}

func newCursor(l *leaf) *cursor { return &cursor{l: l, last: -1} }

// at returns the value index of row i, or -1 when the row is null. Rows must
// be asked for in increasing order; rows in between are skipped.
func (c *cursor) at(i int) int {
	l := c.l
	if l == nil || i >= l.n {
		return -1
	}
	if i == c.last {
		return c.lastV
	}
	c.last = i
	c.lastV = c.find(i)
	return c.lastV
}

func (c *cursor) find(i int) int {
	l := c.l
	if l.defs == nil {
		c.pos, c.v = i+1, i+1
		return i
	}
	for ; c.pos < i; c.pos++ {
		if l.defs[c.pos] == l.maxDef {
			c.v++
		}
	}
	c.pos = i + 1
	if l.defs[i] == l.maxDef {
		c.v++
		return c.v - 1
	}
	return -1
}

func (c *cursor) str(i int) (string, bool) {
	if v := c.at(i); v >= 0 {
		return c.l.str(v), true
	}
	return "", false
}

func (c *cursor) int(i int) (int64, bool) {
	if v := c.at(i); v >= 0 {
		return c.l.ints[v], true
	}
	return 0, false
}

func (c *cursor) bool(i int) bool {
	if v := c.at(i); v >= 0 {
		return c.l.bools[v]
	}
	return false
}

// repCursor walks a repeated leaf (a list element, a map key or value) row
// by row; a row is a run of entries starting at repetition level 0.
type repCursor struct {
	l           *leaf
	pos, row, v int
}

// rowAt returns row i's entries [start, end) and the value index of the
// first present entry among them.
func (c *repCursor) rowAt(i int) (start, end, v int) {
	if c.l == nil {
		return 0, 0, 0
	}
	for c.row < i {
		c.skipRow()
	}
	start, v = c.pos, c.v
	c.skipRow()
	return start, c.pos, v
}

func (c *repCursor) skipRow() {
	l := c.l
	c.row++
	if c.pos >= l.n {
		return
	}
	for first := true; c.pos < l.n && (first || l.reps[c.pos] != 0); first = false {
		if l.present(c.pos) {
			c.v++
		}
		c.pos++
	}
}

// strings returns row i's present values.
func (c *repCursor) strings(i int) []string {
	start, end, v := c.rowAt(i)
	var out []string
	for j := start; j < end; j++ {
		if c.l.present(j) {
			out = append(out, c.l.str(v))
			v++
		}
	}
	return out
}
