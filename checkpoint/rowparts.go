package checkpoint

import (
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/parquet-go/parquet-go"
)

// A big row group is decoded in parts, each a job of its own, so that
// every core decodes one: delta-rs writes every checkpoint as one row
// group, and Spark's row groups of 128 MiB hold about a million adds.
// Row groups are cut only when whole ones would leave a core idle
// (unbalanced). A part reads the add columns for its rows alone. It is
// cut at pages of add.path (the biggest column), and in every other
// column reads the pages its rows lie in, as a column chunk of those
// pages (pagesReader), and keeps its rows of them. The first part also
// reads the other columns (protocol, metaData, txn, ...) whole, and so
// does the first pass for the add columns whose pages do not tell their
// rows (partition values in v1 pages), which every part then reads from
// its row on.
//
// The rows of a page come from its header, and are checked against the
// page as decoded: every page is read by some part, and each part checks
// each of its pages, so together they check every header they were cut
// by: a header that lies makes an error, never rows out of place.

// rowPart is rows [lo, hi) of a row group.
type rowPart struct {
	lo, hi int64
	k      int // in group.parts
	group  *cutGroup
}

// cutGroup is a row group cut in parts: the data pages of the add columns
// its parts read in parts, and the add columns they share, read whole.
type cutGroup struct {
	parts  []rowPart
	pages  map[*parquet.Column][]dataPage
	shared []*parquet.Column
	// Set by the first part's first pass, read by every part's second:
	leaves map[*parquet.Column]*leaf
	starts map[*parquet.Column][]repStart // where each part's rows begin
}

// repStart is where a row begins in a repeated leaf: its first entry and
// the index of the first value from there.
type repStart struct{ pos, v int }

// readShared reads the shared columns of the part's row group, whole,
// and where each part's rows begin in them.
func (g *cutGroup) readShared(rg parquet.RowGroup, c *columns) error {
	g.leaves = map[*parquet.Column]*leaf{}
	g.starts = map[*parquet.Column][]repStart{}
	for _, col := range g.shared {
		l, err := readLeaf(rg, col, false, nil, nil)
		if err != nil {
			return err
		}
		// One walk over the entries finds where every part's rows begin.
		starts := make([]repStart, 0, len(g.parts))
		row, v := int64(0), 0
		for e := 0; e < l.n && len(starts) < len(g.parts); e++ {
			if l.reps[e] == 0 {
				for len(starts) < len(g.parts) && g.parts[len(starts)].lo == row {
					starts = append(starts, repStart{e, v})
				}
				row++
			}
			if l.present(e) {
				v++
			}
		}
		if len(starts) < len(g.parts) {
			return fmt.Errorf("column %v has no row %d", col.Path(), g.parts[len(starts)].lo)
		}
		g.leaves[col], g.starts[col] = l, starts
	}
	return c.checkMaps(g.leaves, nil)
}

// first reports whether the part is the row group's first, which reads
// the columns that are not of add rows.
func (p *rowPart) first() bool { return p == nil || p.lo == 0 }

// partMinRows is the fewest rows a part is cut to.
const partMinRows = 16 << 10

// partSize is about how many rows a part holds: a quarter of a core's
// share of all the rows, so that parts of different sizes still keep
// every core busy to the end, and never fewer than partMinRows.
func partSize(totalRows int64, workers int) int64 {
	return max(partMinRows, totalRows/int64(4*workers))
}

// unbalanced reports whether row groups of these sizes, each handed to
// the next free core, would keep one core busy a fifth longer than an
// even share of the rows: only then are big ones cut, as parts cost a
// little each (a page of every column decoded twice, a dictionary per
// part). Row groups of about one size, as most writers make them, and at
// least one per core, are decoded whole.
func unbalanced(groupRows []int64, workers int) bool {
	if workers < 2 {
		return false
	}
	loads := make([]int64, workers)
	total := int64(0)
	for _, n := range groupRows {
		loads[slices.Index(loads, slices.Min(loads))] += n
		total += n
	}
	return 5*slices.Max(loads)*int64(workers) > 6*total
}

// cut returns row group rg cut in parts of about target rows, or nil to
// decode it whole: when it is not at least two parts long, or the pages
// of a column do not say where its rows are (a column chunk laid out in
// a way parquet-go would read otherwise), except for a column that
// repeats, written in v1 pages, which the parts share.
func (pf *parquetFile) cut(rg int, target int64) *cutGroup {
	rows := pf.file.RowGroups()[rg].NumRows()
	c := pf.cols
	if c.addPath == nil || rows < 2*target {
		return nil
	}
	g := &cutGroup{pages: map[*parquet.Column][]dataPage{}}
	for _, col := range c.adds() {
		if data, ok := pf.dataPages(rg, col); ok {
			g.pages[col] = data
			continue
		}
		if col == c.addPath || !pf.rowsUntold(rg, col) {
			return nil
		}
		g.shared = append(g.shared, col)
	}
	if slices.Contains(g.shared, c.addPartKey) != slices.Contains(g.shared, c.addPartValue) {
		return nil // a map's keys and values are walked together
	}
	// Cut where a page of add.path begins, at or after every target rows.
	starts := g.pages[c.addPath]
	lo, n := int64(0), rows/target
	for k := int64(1); k < n; k++ {
		i := sort.Search(len(starts), func(i int) bool { return starts[i].first >= k*rows/n })
		if i < len(starts) && starts[i].first > lo {
			g.parts = append(g.parts, rowPart{lo: lo, hi: starts[i].first, k: len(g.parts), group: g})
			lo = starts[i].first
		}
	}
	if len(g.parts) == 0 {
		return nil
	}
	g.parts = append(g.parts, rowPart{lo: lo, hi: rows, k: len(g.parts), group: g})
	return g
}

// rowsUntold reports whether a column repeats and some of its data pages
// do not tell their rows.
func (pf *parquetFile) rowsUntold(rg int, col *parquet.Column) bool {
	if col.MaxRepetitionLevel() == 0 {
		return false
	}
	for _, p := range pf.pages[chunkID{rg, col.Index()}] {
		if p.rows < 0 {
			return true
		}
	}
	return false
}

// isShared reports whether the parts of the row group share col.
func (p *rowPart) isShared(col *parquet.Column) bool {
	return p != nil && slices.Contains(p.group.shared, col)
}

// sharedStart is where the part's rows begin in a shared leaf.
func (p *rowPart) sharedStart(col *parquet.Column) repStart {
	return p.group.starts[col][p.k]
}

// dataPage is a data page of a column chunk and the row it begins at.
type dataPage struct {
	page  int // in the chunk's pages
	first int64
}

// dataPages lists the data pages of a column chunk of row group rg with
// the row each begins at, and reports whether the chunk can be read in
// parts: at most one dictionary page, first; every data page claiming
// rows, together those of the row group; laid out from where parquet-go
// starts reading.
func (pf *parquetFile) dataPages(rg int, col *parquet.Column) ([]dataPage, bool) {
	md := pf.file.Metadata().RowGroups[rg].Columns[col.Index()].MetaData
	pages := pf.pages[chunkID{rg, col.Index()}]
	if len(pages) == 0 || md.DictionaryPageOffset > md.DataPageOffset {
		return nil, false
	}
	var out []dataPage
	row := int64(0)
	for i, p := range pages {
		switch {
		case p.dict && i == 0:
			continue
		case p.dict || p.rows <= 0:
			return nil, false
		}
		out = append(out, dataPage{page: i, first: row})
		row += p.rows
	}
	return out, row == pf.file.RowGroups()[rg].NumRows()
}

// partPages is what a part reads of one column chunk: the pages its rows
// lie in and the rows each holds by its header, and of those rows how
// many to skip and then keep.
type partPages struct {
	pages      parquet.Pages
	claims     []int64
	skip, keep int64
}

// rows is the rows the pages hold.
func (p *partPages) rows() int64 {
	n := int64(0)
	for _, c := range p.claims {
		n += c
	}
	return n
}

// partOf returns the pages of col that rows [p.lo, p.hi) of row group rg
// lie in, col being one its group reads in parts.
func (pf *parquetFile) partOf(rg int, col *parquet.Column, p *rowPart) (partPages, error) {
	data := p.group.pages[col]
	a := sort.Search(len(data), func(i int) bool { return data[i].first > p.lo }) - 1
	b := sort.Search(len(data), func(i int) bool { return data[i].first >= p.hi }) - 1
	pages := pf.pages[chunkID{rg, col.Index()}]
	md := pf.file.Metadata().RowGroups[rg].Columns[col.Index()].MetaData
	base := md.DataPageOffset
	if md.DictionaryPageOffset > 0 {
		base = md.DictionaryPageOffset
	}
	chunk, ok := pf.sf.bytes(base, int64(pages[len(pages)-1].end))
	if !ok || a < 0 || b < a {
		return partPages{}, fmt.Errorf("column %v: rows %d-%d not found", col.Path(), p.lo, p.hi)
	}
	r := &pagesReader{base: base, tail: chunk[pages[data[a].page].start:pages[data[b].page].end]}
	if pages[0].dict {
		r.head = chunk[:pages[0].end]
	}
	claims := make([]int64, 0, b-a+1)
	for _, d := range data[a : b+1] {
		claims = append(claims, pages[d.page].rows)
	}
	fc, ok := pf.file.RowGroups()[rg].ColumnChunks()[col.Index()].(*parquet.FileColumnChunk)
	if !ok {
		return partPages{}, fmt.Errorf("column %v: not a file's column chunk", col.Path())
	}
	return partPages{pages: fc.PagesFrom(r), claims: claims, skip: p.lo - data[a].first, keep: p.hi - p.lo}, nil
}

// pagesReader presents to parquet-go, at a column chunk's offset in the
// file, a column chunk of some of its pages: its dictionary page (head),
// then a run of its data pages (tail).
type pagesReader struct {
	base       int64
	head, tail []byte
}

func (r *pagesReader) ReadAt(p []byte, off int64) (int, error) {
	at := off - r.base
	if at < 0 {
		return 0, fmt.Errorf("read at %d, before the column chunk at %d", off, r.base)
	}
	n := 0
	for n < len(p) {
		var src []byte
		switch h := int64(len(r.head)); {
		case at < h:
			src = r.head[at:]
		case at-h < int64(len(r.tail)):
			src = r.tail[at-h:]
		default:
			return n, io.EOF
		}
		k := copy(p[n:], src)
		n += k
		at += int64(k)
	}
	return n, nil
}
