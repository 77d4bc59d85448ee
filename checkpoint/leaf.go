package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/deltafs/deltafs/replay/action"
)

// maxPrealloc caps the values preallocated per column chunk.
const maxPrealloc = 1 << 20

// leaf is one leaf column of one row group, fully decoded: its levels and
// its non-null values in order, copied out of the pages so that parquet-go
// may recycle them.
type leaf struct {
	maxDef, maxRep byte
	n              int    // level entries (rows, for a non-repeated column)
	defs, reps     []byte // nil when the column has no levels of that kind

	ints  []int64
	bools []bool
	strs  []string

	// numRecords makes a byte-array column of stats JSON decode into ints
	// (each value's numRecords) and sets (the columns its nullCount
	// names) instead of strings.
	numRecords bool
	sets       []*action.ColumnSet
	// dict caches the strings of the dictionary last seen, so that a
	// dictionary-encoded column allocates one string per distinct value.
	dict     parquet.Dictionary
	dictStrs []string
	// dictStats holds, for a stats column (numRecords), what each
	// dictionary string parsed to, once parsed: a stats string shared by
	// many rows is parsed once, not once a row.
	dictStats []parsedStats
	// codes holds, while every page so far was dictionary-encoded with one
	// dictionary, each value's dictionary index: equal codes are equal
	// values, which makes partition interning a lookup of small numbers.
	codes      []int32
	codesValid bool
}

// keepRows keeps only rows [skip, skip+keep) of the leaf.
func (l *leaf) keepRows(skip, keep int) error {
	lo, hi := l.entryOfRow(skip), l.entryOfRow(skip+keep)
	if hi < 0 {
		return fmt.Errorf("rows %d-%d are not in the pages read", skip, skip+keep)
	}
	vlo, vhi := l.valuesIn(lo), l.valuesIn(hi)
	if l.defs != nil {
		l.defs = l.defs[lo:hi]
	}
	if l.reps != nil {
		l.reps = l.reps[lo:hi]
	}
	l.n = hi - lo
	switch {
	case len(l.strs) > 0:
		l.strs = l.strs[vlo:vhi]
		if l.codesValid {
			l.codes = l.codes[vlo:vhi]
		}
	case len(l.ints) > 0:
		l.ints = l.ints[vlo:vhi]
		if l.numRecords {
			l.sets = l.sets[vlo:vhi]
		}
	case len(l.bools) > 0:
		l.bools = l.bools[vlo:vhi]
	}
	return nil
}

// entryOfRow is the index of the entry row r begins at (the number of
// entries for the row past the last), -1 past that.
func (l *leaf) entryOfRow(r int) int {
	if l.reps == nil {
		if r > l.n {
			return -1
		}
		return r
	}
	for e, rep := range l.reps {
		if rep == 0 { // a row begins
			if r == 0 {
				return e
			}
			r--
		}
	}
	if r == 0 {
		return l.n
	}
	return -1
}

// alignedWith checks that a map's value leaf v lines up with its key leaf
// l, as the readers of both walk them together: the same entries, and a
// value only where there is a key.
func (l *leaf) alignedWith(v *leaf) error {
	if l.n != v.n || !bytes.Equal(l.reps, v.reps) {
		return fmt.Errorf("%d keys and %d values in other rows", l.n, v.n)
	}
	for j := range l.n {
		if v.present(j) && !l.present(j) {
			return fmt.Errorf("a value without a key at entry %d", j)
		}
	}
	return nil
}

// valuesIn is the number of values entries [0, e) hold.
func (l *leaf) valuesIn(e int) int {
	if l.defs == nil {
		return e
	}
	return bytes.Count(l.defs[:e], []byte{l.maxDef})
}

// present reports whether entry i holds a value.
func (l *leaf) present(i int) bool {
	return l.defs == nil || l.defs[i] == l.maxDef
}

// str returns the i-th non-null byte-array value.
func (l *leaf) str(v int) string { return l.strs[v] }

// count is the number of non-null values.
func (l *leaf) count() int { return len(l.ints) + len(l.bools) + len(l.strs) }

// hasValues reports whether the column holds at least one value.
func (l *leaf) hasValues() bool { return l != nil && l.count() > 0 }

// leafPool recycles the arrays of decoded leaves between the row groups
// one worker decodes: a million-row checkpoint otherwise allocates (and
// clears, and collects) its columns once per row group. Leaves are kept
// per column, so that a column's arrays come back with the right kind and
// size.
type leafPool struct{ free map[*parquet.Column]*leaf }

func (p *leafPool) get(col *parquet.Column) *leaf {
	if p == nil {
		return &leaf{}
	}
	if l := p.free[col]; l != nil {
		delete(p.free, col)
		return l
	}
	return &leaf{}
}

func (p *leafPool) put(col *parquet.Column, l *leaf) {
	if p.free == nil {
		p.free = map[*parquet.Column]*leaf{}
	}
	p.free[col] = l
}

// reset empties a leaf for a new column chunk, keeping its arrays.
func (l *leaf) reset(maxDef, maxRep byte, numRecords bool) {
	*l = leaf{
		maxDef: maxDef, maxRep: maxRep, numRecords: numRecords,
		defs: l.defs[:0], reps: l.reps[:0], ints: l.ints[:0], sets: l.sets[:0], bools: l.bools[:0], strs: l.strs[:0], codes: l.codes[:0],
	}
	if maxDef == 0 {
		l.defs = nil // present() reads nil as "every value is there"
	}
	if maxRep == 0 {
		l.reps = nil
	}
}

// readLeaf decodes a column chunk of a row group into a leaf from pool (a
// new one when pool is nil): all of it, or with part the rows part keeps.
func readLeaf(rg parquet.RowGroup, col *parquet.Column, numRecords bool, pool *leafPool, part *partPages) (l *leaf, err error) {
	err = recovered(func() (err error) {
		l, err = readPages(rg, col, numRecords, pool, part)
		return err
	})
	return l, err
}

// readPages is readLeaf, whose parquet-go calls may panic on a malformed
// file.
func readPages(rg parquet.RowGroup, col *parquet.Column, numRecords bool, pool *leafPool, part *partPages) (*leaf, error) {
	l := pool.get(col)
	l.reset(byte(col.MaxDefinitionLevel()), byte(col.MaxRepetitionLevel()), numRecords)
	kind := col.Type().Kind()
	chunk := rg.ColumnChunks()[col.Index()]
	// Size the arrays once: growing them by appending cost more than
	// decoding on a million-row checkpoint. The counts come from the file,
	// so they are capped: a corrupt footer must not make us allocate
	// gigabytes. Values are sized by the non-null count the statistics
	// claim (most columns of a checkpoint are null in most rows); it is
	// only a hint, appending corrects it.
	share := func(n int64) int64 { return n } // a part's, if values spread evenly
	if rows := rg.NumRows(); part != nil && rows > 0 {
		share = func(n int64) int64 { return int64(float64(n) * float64(part.rows()) / float64(rows)) }
	}
	if n := int(min(share(chunk.NumValues()), maxPrealloc)); n > 0 {
		if l.maxDef > 0 && cap(l.defs) < n {
			l.defs = make([]byte, 0, n)
		}
		if l.maxRep > 0 && cap(l.reps) < n {
			l.reps = make([]byte, 0, n)
		}
		if fc, ok := chunk.(*parquet.FileColumnChunk); ok {
			if nulls := share(fc.NullCount()); nulls > 0 && nulls <= int64(n) {
				n -= int(nulls)
			}
		}
		switch {
		case kind == parquet.ByteArray && !numRecords && cap(l.strs) < n:
			l.strs = make([]string, 0, n)
		case (kind == parquet.Int32 || kind == parquet.Int64 || numRecords) && cap(l.ints) < n:
			l.ints = make([]int64, 0, n)
		}
	}
	if l.maxDef > 0 && l.defs == nil {
		l.defs = []byte{}
	}
	var pages parquet.Pages
	if part != nil {
		pages = part.pages
	} else {
		pages = chunk.Pages()
	}
	defer pages.Close()
	read := 0 // pages of a part
	for {
		page, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("column %v: %w", col.Path(), err)
		}
		if part != nil {
			if read >= len(part.claims) || page.NumRows() != part.claims[read] {
				parquet.Release(page)
				return nil, fmt.Errorf("column %v: page %d holds other rows than its header says", col.Path(), read)
			}
			read++
		}
		err = l.addPage(page, kind)
		parquet.Release(page)
		if err != nil {
			return nil, fmt.Errorf("column %v: %w", col.Path(), err)
		}
	}
	if l.defs != nil && len(l.defs) != l.n || l.reps != nil && len(l.reps) != l.n || l.count() != l.valuesIn(l.n) {
		return nil, fmt.Errorf("column %v: levels do not match the values", col.Path())
	}
	if part != nil {
		if read != len(part.claims) {
			return nil, fmt.Errorf("column %v: %d pages read of %d", col.Path(), read, len(part.claims))
		}
		if err := l.keepRows(int(part.skip), int(part.keep)); err != nil {
			return nil, fmt.Errorf("column %v: %w", col.Path(), err)
		}
	}
	return l, nil
}

func (l *leaf) addPage(page parquet.Page, kind parquet.Kind) error {
	n := int(page.NumValues())
	if l.maxDef > 0 {
		defs := page.DefinitionLevels()
		if len(defs) != n {
			return fmt.Errorf("page has %d definition levels for %d values", len(defs), n)
		}
		l.defs = append(l.defs, defs...)
	}
	if l.maxRep > 0 {
		reps := page.RepetitionLevels()
		if len(reps) != n {
			return fmt.Errorf("page has %d repetition levels for %d values", len(reps), n)
		}
		l.reps = append(l.reps, reps...)
	}
	l.n += n
	if kind == parquet.Boolean {
		return l.addBooleans(page)
	}
	data := page.Data()
	var dict encoding.Values
	indexed := page.Dictionary() != nil
	if indexed {
		dict = page.Dictionary().Page().Data()
	}
	if indexed && kind == parquet.ByteArray {
		first := l.dict == nil
		strs := l.dictionary(page.Dictionary())
		if first {
			l.codesValid = len(l.strs) == 0
		} else if l.dict != page.Dictionary() {
			l.codesValid = false
		}
		return l.addDictStrings(strs, data.Int32())
	}
	if kind == parquet.ByteArray {
		l.codesValid, l.codes = false, nil
	}
	switch kind {
	case parquet.ByteArray:
		v, offs := data.ByteArray()
		if len(offs) < 2 {
			return nil
		}
		if l.numRecords {
			for i := 0; i+1 < len(offs); i++ {
				l.addStats(v[offs[i]:offs[i+1]])
			}
			return nil
		}
		// One string per page, values are substrings of it: a million
		// paths cost a few allocations, not a million.
		page, base := string(v[offs[0]:offs[len(offs)-1]]), offs[0]
		for i := 0; i+1 < len(offs); i++ {
			l.strs = append(l.strs, page[offs[i]-base:offs[i+1]-base])
		}
	case parquet.Int64:
		if indexed {
			dv := dict.Int64()
			for _, i := range data.Int32() {
				if int(i) >= len(dv) || i < 0 {
					return fmt.Errorf("dictionary index %d out of range", i)
				}
				l.ints = append(l.ints, dv[i])
			}
			return nil
		}
		l.ints = append(l.ints, data.Int64()...)
	case parquet.Int32:
		src := data.Int32()
		if indexed {
			dv := dict.Int32()
			for _, i := range src {
				if int(i) >= len(dv) || i < 0 {
					return fmt.Errorf("dictionary index %d out of range", i)
				}
				l.ints = append(l.ints, int64(dv[i]))
			}
			return nil
		}
		for _, v := range src {
			l.ints = append(l.ints, int64(v))
		}
	default:
		return fmt.Errorf("unexpected physical type %v", kind)
	}
	return nil
}

func (l *leaf) addDictStrings(strs []string, indexes []int32) error {
	for _, i := range indexes {
		if int(i) >= len(strs) || i < 0 {
			return fmt.Errorf("dictionary index %d out of range", i)
		}
		if l.numRecords {
			p := l.dictParsed(i)
			l.ints = append(l.ints, p.records)
			l.sets = append(l.sets, p.counted)
		} else {
			l.strs = append(l.strs, strs[i])
			if l.codesValid {
				l.codes = append(l.codes, i)
			}
		}
	}
	return nil
}

// dictionary returns the strings of a byte-array dictionary, converting
// them once per dictionary.
func (l *leaf) dictionary(d parquet.Dictionary) []string {
	if d == l.dict {
		return l.dictStrs
	}
	if l.dict != nil {
		l.codesValid, l.codes = false, nil // a second dictionary: codes clash
	}
	values := d.Page().Data()
	data, offs := values.ByteArray()
	l.dict, l.dictStrs, l.dictStats = d, make([]string, 0, max(len(offs)-1, 0)), nil
	for i := 0; i+1 < len(offs); i++ {
		l.dictStrs = append(l.dictStrs, string(data[offs[i]:offs[i+1]]))
	}
	return l.dictStrs
}

// addBooleans reads a boolean page value by value: booleans are rare here,
// and a page of nulls is skipped.
func (l *leaf) addBooleans(page parquet.Page) error {
	if l.maxDef > 0 && bytes.IndexByte(page.DefinitionLevels(), l.maxDef) < 0 {
		return nil
	}
	buf := make([]parquet.Value, 256)
	r := page.Values()
	for {
		n, err := r.ReadValues(buf)
		for _, v := range buf[:n] {
			if !v.IsNull() {
				l.bools = append(l.bools, v.Boolean())
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
	}
}

// parsedStats is what a stats JSON value says: its numRecords and the
// columns it counts nulls of (interned: shared, never changed).
type parsedStats struct {
	records int64
	counted *action.ColumnSet
	done    bool
}

// dictParsed returns what dictionary string i of a stats column parses
// to, parsing it the first time.
func (l *leaf) dictParsed(i int32) parsedStats {
	if l.dictStats == nil {
		l.dictStats = make([]parsedStats, len(l.dictStrs))
	}
	p := &l.dictStats[i]
	if !p.done {
		stats := []byte(l.dictStrs[i])
		*p = parsedStats{records: action.NumRecords(stats), counted: action.NullCounted(stats), done: true}
	}
	return *p
}

// addStats appends what a stats JSON value says: its numRecords and the
// columns it counts nulls of.
func (l *leaf) addStats(stats []byte) {
	l.ints = append(l.ints, action.NumRecords(stats))
	l.sets = append(l.sets, action.NullCounted(stats))
}
