package parquetview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// A field added to a struct column after a file was written is missing
// inside the struct the file stores. Its nulls are not all alike: where
// the struct itself is null the field's definition level says so, and
// elsewhere it says the field alone is null. So the levels of a filled
// field are those of a stored field of the same struct (a sibling), cut
// to the struct's own level: read from the file, row by row. Inside a
// list or a map the sibling's repetition levels come too: the field has
// one value where the sibling has one (a sibling with no repetition of
// its own below the struct).

// nestedFill is a field missing inside a stored struct, served as nulls.
type nestedFill struct {
	path   []string // the field's, served names from the top
	leaves []nullLeaf
	// at is the served index of its first leaf; afterSource the number
	// of source leaves before it.
	at, afterSource int
	// structDef is the struct's maximum definition level: a row whose
	// sibling's level reaches it holds the struct, and the field is null
	// in it; a lower level is the sibling's, where an ancestor is null.
	// structRep is its maximum repetition level: above 0 inside a list
	// or a map, whose repetition the field takes from the sibling.
	structDef, structRep int
	// siblings are the source leaves under the struct without repetition
	// below it, whose levels give the field's.
	siblings []int
}

// fillFields serves the fields of col (a struct at path, of maximum levels
// def and rep, whose source leaves start at firstLeaf) that the file does
// not store (stored are those it does) as nulls, after the stored ones.
// It returns how many it added.
func (w *renameWalk) fillFields(col *Column, stored []*Column, path []string, def, rep, firstLeaf int) int32 {
	if !w.fill || col == nil || col.Kind != StructColumn {
		return 0
	}
	var siblings []int
	for j := firstLeaf; j < len(w.keep); j++ {
		if w.reps[j] == rep {
			siblings = append(siblings, j)
		}
	}
	added := int32(0)
	for i := range col.Children {
		f := &col.Children[i]
		if slices.Contains(stored, f) || !f.Fillable() || ((def > 0 || rep > 0) && len(siblings) == 0) {
			continue
		}
		nf := nestedFill{path: append(slices.Clip(path), f.Name), at: w.servedLeaves, afterSource: len(w.keep),
			structDef: def, structRep: rep, siblings: siblings}
		w.out = appendNullSchema(w.out, f, f.Name, format.Optional, w.byID, path, rep, def, &nf.leaves)
		w.servedLeaves += len(nf.leaves)
		w.nested = append(w.nested, nf)
		added++
	}
	return added
}

// fills are the columns a file is served with but lacks.
type fills struct {
	top    []*Column    // top-level, after the stored ones
	nested []nestedFill // inside stored structs, by served index
}

// keptLevels reads the levels of a source leaf for the rows a view
// keeps, in order: one definition level a row, or, for a leaf repeated
// (in a list or a map), its repetition and definition levels, a row
// starting at each repetition level 0.
type keptLevels struct {
	ls   *levelSource
	leaf int
	rg   int // next source row group to read
	// first is that row group's first row; rows counts the rows in
	// reps and defs, read and not yet taken.
	first, rows int64
	reps, defs  []byte
}

// take returns the levels of the next n kept rows (reps nil for a leaf
// without repetition).
func (k *keptLevels) take(n int64) (reps, defs []byte, err error) {
	groups := k.ls.md.RowGroups
	for k.rows < n {
		if k.rg >= len(groups) {
			return nil, nil, fmt.Errorf("%d rows of levels wanted, the file has fewer: %w", n, ErrParquet)
		}
		rows := groups[k.rg].NumRows
		reps, defs, err := k.ls.chunkLevels(k.rg, k.leaf)
		if err != nil {
			return nil, nil, err
		}
		deleted := deletedCursor{groupDeletions(k.ls.vec, k.first, rows)}
		row, skip := int64(-1), false // within the row group
		for e, d := range defs {
			if reps == nil || reps[e] == 0 {
				row++
				if skip = deleted.deleted(row); !skip {
					k.rows++
				}
			}
			if !skip {
				if reps != nil {
					k.reps = append(k.reps, reps[e])
				}
				k.defs = append(k.defs, d)
			}
		}
		k.rg++
		k.first += rows
	}
	cut := len(k.defs) // where row n starts
	if k.reps == nil {
		cut = int(n)
	} else if k.rows > n {
		starts := int64(0)
		cut = slices.IndexFunc(k.reps, func(r byte) bool {
			if r == 0 {
				starts++
			}
			return starts > n
		})
	}
	if k.reps != nil {
		reps, k.reps = k.reps[:cut:cut], k.reps[cut:]
	}
	defs, k.defs = k.defs[:cut:cut], k.defs[cut:]
	k.rows -= n
	return reps, defs, nil
}

// levelSource reads the sibling levels a view's nested fills take.
type levelSource struct {
	ctx     context.Context
	src     RangeReader
	md      *format.FileMetaData // the source's footer
	dataEnd int64
	vec     Rows
	// column returns a column chunk for parquet-go to decode, for the
	// levels of pages chunkLevels does not decode itself.
	column  func(i, j int) (parquet.ColumnChunk, error)
	leaves  []leafInfo
	readers map[int]*keptLevels
}

// sibling picks the sibling of nf whose column chunks are smallest.
func (ls *levelSource) sibling(nf *nestedFill) int {
	best, bestSize := nf.siblings[0], int64(-1)
	for _, j := range nf.siblings {
		var size int64
		for _, rg := range ls.md.RowGroups {
			if j < len(rg.Columns) {
				size += rg.Columns[j].MetaData.TotalCompressedSize
			}
		}
		if bestSize < 0 || size < bestSize {
			best, bestSize = j, size
		}
	}
	return best
}

// reader returns the reader of source leaf j's kept levels.
func (ls *levelSource) reader(j int) *keptLevels {
	if ls.readers == nil {
		ls.readers = map[int]*keptLevels{}
		if ls.vec == nil {
			ls.vec = noRows{}
		}
	}
	r := ls.readers[j]
	if r == nil {
		r = &keptLevels{ls: ls, leaf: j}
		ls.readers[j] = r
	}
	return r
}

// chunkLevels returns the levels of source leaf j in row group i: its
// definition levels, one a row, for a leaf without repetition (its column
// chunk read once, its pages' levels decoded); its repetition and
// definition levels for one repeated, as parquet-go reads them.
func (ls *levelSource) chunkLevels(i, j int) (reps, defs []byte, err error) {
	if ls.leaves == nil {
		leaves, err := leaves(ls.md.Schema)
		if err != nil {
			return nil, nil, err
		}
		ls.leaves = leaves
	}
	rg := &ls.md.RowGroups[i]
	if j >= len(rg.Columns) || j >= len(ls.leaves) {
		return nil, nil, fmt.Errorf("row group %d has no leaf %d: %w", i, j, ErrParquet)
	}
	repeated := ls.leaves[j].maxRep > 0
	if !repeated {
		defs, err = decodeChunkLevels(ls.ctx, ls.src, &rg.Columns[j], ls.leaves[j], rg.NumRows, ls.dataEnd)
		if !errors.Is(err, errNoSplice) {
			return nil, defs, err
		}
		// Levels encoded as this decoder does not read them (BIT_PACKED,
		// say): parquet-go reads them.
	}
	cc, err := ls.column(i, j)
	if err != nil {
		return nil, nil, err
	}
	return pageLevelsOf(ls.ctx, cc, rg.NumRows, rg.Columns[j].MetaData.TotalCompressedSize, repeated)
}

// wholeChunkRead is the largest column chunk decodeChunkLevels reads in
// one request; a larger one is read page by page, so that a view's build
// holds one page of it at a time.
var wholeChunkRead int64 = 8 << 20

// decodeChunkLevels reads a column chunk and decodes the definition
// levels of its data pages, one per row.
func decodeChunkLevels(ctx context.Context, src RangeReader, cc *format.ColumnChunk, leaf leafInfo, rows, dataEnd int64) ([]byte, error) {
	start, end, err := chunkRange(cc, dataEnd)
	if err != nil {
		return nil, err
	}
	codec := pagecodec.Lookup(cc.MetaData.Codec)
	if codec.String() == "UNSUPPORTED" {
		return nil, fmt.Errorf("compression codec %v: %w", cc.MetaData.Codec, errNoSplice)
	}
	chunk := src
	if end-start <= wholeChunkRead {
		data, err := readFull(ctx, src, start, end-start)
		if err != nil {
			return nil, err
		}
		chunk = RangeReaderFunc(func(_ context.Context, off, n int64) ([]byte, error) {
			return data[off-start : min(off+n, end)-start], nil
		})
	}
	// The row count is the footer's word: levels grow with the pages read.
	levels := make([]byte, 0, min(rows, 1<<20))
	for off := start; off < end; {
		h, hlen, err := readPageHeader(ctx, chunk, off, end)
		if err != nil {
			return nil, err
		}
		size := int64(h.CompressedPageSize)
		if size < 0 || off+hlen+size > end {
			return nil, fmt.Errorf("page at %d overruns its chunk: %w", off, ErrParquet)
		}
		body, err := readFull(ctx, chunk, off+hlen, size)
		if err != nil {
			return nil, err
		}
		off += hlen + size
		switch h.Type {
		case format.DataPage, format.DataPageV2:
			entries := pageEntries(h)
			if entries < 0 || entries > rows-int64(len(levels)) {
				return nil, fmt.Errorf("page of %d values past the chunk's %d rows: %w", entries, rows, ErrParquet)
			}
			if err := checkLevelsHeld(int64(len(levels))+entries, cc.MetaData.TotalCompressedSize); err != nil {
				return nil, err
			}
			defs, _, err := pageLevels(h, body, h.Type == format.DataPageV2, codec, leaf)
			if err != nil {
				return nil, err
			}
			levels = append(levels, defs...)
		case format.DictionaryPage, format.IndexPage:
		default:
			return nil, fmt.Errorf("page of type %v: %w", h.Type, errNoSplice)
		}
	}
	if int64(len(levels)) != rows {
		return nil, fmt.Errorf("column chunk of %d rows has %d levels: %w", rows, len(levels), ErrParquet)
	}
	return levels, nil
}

// pageLevelsOf returns the levels of a column chunk (stored in stored
// bytes) as parquet-go decodes its pages: the definition levels, one a
// row, of a leaf without repetition; the repetition levels too of one
// repeated.
func pageLevelsOf(ctx context.Context, chunk parquet.ColumnChunk, rows, stored int64, repeated bool) (reps, defs []byte, err error) {
	pages := chunk.Pages()
	defer pages.Close()
	defs = make([]byte, 0, min(rows, 1<<20))
	if repeated {
		reps = make([]byte, 0, min(rows, 1<<20))
	}
	var read int64 // rows
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		p, err := pages.ReadPage()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read levels: %v: %w", err, ErrParquet)
		}
		pd, pr, n := p.DefinitionLevels(), p.RepetitionLevels(), p.NumRows()
		starts := int64(len(pd))
		if repeated {
			starts = int64(bytes.Count(pr, []byte{0}))
			if len(pr) != len(pd) {
				starts = -1
			}
			reps = append(reps, pr...)
		}
		defs = append(defs, pd...)
		parquet.Release(p)
		if err := checkLevelsHeld(int64(len(reps)+len(defs)), stored); err != nil {
			return nil, nil, err
		}
		if starts != n {
			return nil, nil, fmt.Errorf("page of %d rows has %d definition and %d repetition levels: %w", n, len(pd), len(pr), ErrParquet)
		}
		read += n
	}
	if read != rows {
		return nil, nil, fmt.Errorf("column chunk of %d rows has levels of %d: %w", rows, read, ErrParquet)
	}
	return reps, defs, nil
}
