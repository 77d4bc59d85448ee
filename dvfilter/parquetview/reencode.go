package parquetview

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// reencoder rewrites the row groups of one file that lose some rows. It
// opens the source with parquet-go once, on first need, reading it through
// ranged reads; re-encoded row groups go to memory or to one spill file.
type reencoder struct {
	ctx     context.Context
	src     RangeReader
	size    int64
	dataEnd int64 // where the footer starts
	vec     Rows
	opts    BuildOptions
	// widen, when set, converts the leaves it names (see widening); every
	// row group is then re-encoded.
	widen []*widening

	pf     *parquet.File
	leaves []leafInfo // of pf's schema, once a chunk's pages are checked
	// checked: the chunks whose pages were checked (by row group and
	// leaf), and how they hold their values: a chunk re-encoded and then
	// read for a filled field's levels is read and checked once.
	checked map[[2]int]chunkValues
	lz4     []bool     // by row group: hadoopLZ4, asked once per file
	plain   *plainCopy // the row group parquet-go reads from a copy, if any
	spill   *os.File   // unlinked; nil until a row group spills
	spEnd   int64      // bytes written to spill
}

// readerAt adapts a RangeReader to io.ReaderAt for parquet-go.
type readerAt struct {
	ctx  context.Context
	src  RangeReader
	size int64
}

func (r readerAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), r.size-off)
	b, err := readFull(r.ctx, r.src, off, n)
	if err != nil {
		return 0, err
	}
	copy(p, b)
	if n < int64(len(p)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

func (re *reencoder) open() (*parquet.File, error) {
	if re.pf != nil {
		return re.pf, nil
	}
	pf, err := parquet.OpenFile(readerAt{re.ctx, re.src, re.size}, re.size,
		parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true), parquet.ReadBufferSize(1<<20))
	if err != nil {
		return nil, fmt.Errorf("open for re-encoding: %v: %w", err, ErrParquet)
	}
	md := pf.Metadata()
	re.lz4 = make([]bool, len(md.RowGroups))
	for i := range re.lz4 {
		re.lz4[i] = hadoopLZ4(md, i)
	}
	re.pf = pf
	return pf, nil
}

// group returns row group i for parquet-go to decode, its pages checked
// (each column chunk's when asked for, by column).
func (re *reencoder) group(i int) (parquet.RowGroup, error) {
	pf, err := re.open()
	if err != nil {
		return nil, err
	}
	if i >= len(pf.RowGroups()) || i >= len(re.lz4) {
		return nil, fmt.Errorf("parquet-go sees %d row groups: %w", len(pf.RowGroups()), ErrParquet)
	}
	if re.lz4[i] {
		return re.plainGroup(i)
	}
	return pf.RowGroups()[i], nil
}

// checkColumn checks the pages of column chunk j of row group i before
// parquet-go decodes them, and reports how they hold its values.
func (re *reencoder) checkColumn(i, j int) (chunkValues, error) {
	g, err := re.group(i)
	if err != nil {
		return 0, err
	}
	if j >= len(g.ColumnChunks()) {
		return 0, fmt.Errorf("parquet-go sees %d columns: %w", len(g.ColumnChunks()), ErrParquet)
	}
	if re.lz4[i] { // a copy's pages were checked as it was made
		if j >= len(re.plain.values) {
			return 0, fmt.Errorf("no column chunk %d in the copy: %w", j, ErrParquet)
		}
		return re.plain.values[j], nil
	}
	if v, ok := re.checked[[2]int{i, j}]; ok {
		return v, nil
	}
	if re.leaves == nil {
		if re.leaves, err = leaves(re.pf.Metadata().Schema); err != nil {
			return 0, err
		}
		re.checked = map[[2]int]chunkValues{}
	}
	v, err := checkChunkPages(re.ctx, re.src, re.pf, re.leaves, i, j, re.dataEnd)
	if err == nil {
		re.checked[[2]int{i, j}] = v
	}
	return v, err
}

// column returns column chunk j of row group i for parquet-go to decode,
// its pages checked.
func (re *reencoder) column(i, j int) (parquet.ColumnChunk, error) {
	if _, err := re.checkColumn(i, j); err != nil {
		return nil, err
	}
	g, err := re.group(i)
	if err != nil {
		return nil, err
	}
	return g.ColumnChunks()[j], nil
}

// openSpill makes the view's spill file on first need.
func (re *reencoder) openSpill() error {
	if re.spill != nil {
		return nil
	}
	f, err := os.CreateTemp(re.opts.SpillDir, "deltafs-dv-*.spill")
	if err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	os.Remove(f.Name()) // the open file lives on until closed
	re.spill = f
	return nil
}

// spillPieces moves the in-memory pieces of a chunk laid out anew to the
// spill file, when they hold more than the spill threshold.
func (re *reencoder) spillPieces(sc *splicedChunk) error {
	var held int64
	for _, p := range sc.pieces {
		held += int64(len(p.data))
	}
	if held == 0 || re.opts.SpillThreshold >= 0 && held <= re.opts.SpillThreshold {
		return nil
	}
	if err := re.openSpill(); err != nil {
		return err
	}
	for k, p := range sc.pieces {
		if p.data == nil {
			continue
		}
		if _, err := re.spill.WriteAt(p.data, re.spEnd); err != nil {
			return fmt.Errorf("spill: %w", err)
		}
		sc.pieces[k] = piece{src: re.spEnd, n: int64(len(p.data)), spilled: true}
		re.spEnd += int64(len(p.data))
	}
	return nil
}

// close lets go of the copy plainGroup made, if any.
func (re *reencoder) close() {
	if re.plain != nil {
		re.plain.buf.close()
		re.plain = nil
	}
}

// rowGroup re-encodes row group i (its first row has index first) without
// the deleted rows, lays its column chunks out in b and returns the footer
// entries of the new row group(s).
func (re *reencoder) rowGroup(b *viewBuilder, i int, rg *format.RowGroup, first int64) ([]format.RowGroup, error) {
	g, err := re.group(i)
	if err != nil {
		return nil, err
	}
	if len(rg.Columns) == 0 {
		return nil, fmt.Errorf("no columns: %w", ErrParquet)
	}
	// Each leaf is written in its column's codec (writeSchema: as parquet-go
	// reads it, the first row group's), the first column's where it has none.
	for _, cc := range slices.Concat(rg.Columns, re.pf.Metadata().RowGroups[0].Columns) {
		if c := cc.MetaData.Codec; pagecodec.Lookup(c).String() == "UNSUPPORTED" {
			return nil, unrebuildable(c)
		}
	}
	codec := pagecodec.Lookup(rg.Columns[0].MetaData.Codec)
	var compressed int64
	for j := range rg.Columns {
		compressed += rg.Columns[j].MetaData.TotalCompressedSize
	}
	spill := re.opts.SpillThreshold < 0 || compressed > re.opts.SpillThreshold

	values := make([]chunkValues, len(rg.Columns))
	for j := range values {
		if values[j], err = re.checkColumn(i, j); err != nil {
			return nil, err
		}
	}
	wopts := []parquet.WriterOption{
		writeSchema(re.pf.Schema(), re.widen, values),
		parquet.Compression(codec),
		parquet.DataPageVersion(1), // what every reader understands
		parquet.CreatedBy("deltafs", "parquetview", "reencode"),
	}
	var (
		mem  bytes.Buffer
		w    io.Writer = &mem
		bw   *bufio.Writer
		base int64
	)
	if !spill {
		mem.Grow(int(compressed + compressed/8 + 64<<10)) // about what comes back
	} else {
		if err := re.openSpill(); err != nil {
			return nil, err
		}
		base = re.spEnd
		// parquet-go keeps a row group's pages in memory until it writes
		// them out: the transient peak is about one compressed row group.
		bw = bufio.NewWriterSize(io.NewOffsetWriter(re.spill, base), 1<<20)
		w = bw
	}
	n, err := re.copyRows(parquet.NewWriter(w, wopts...), g, first, rg, values)
	if err != nil {
		return nil, err
	}
	if bw != nil {
		if err := bw.Flush(); err != nil {
			return nil, fmt.Errorf("spill: %w", err)
		}
	}
	// The re-encoded rows now form a small Parquet file of their own: read
	// its footer and splice its column chunks in.
	var (
		tmp     RangeReader
		tmpSize int64
	)
	if spill {
		end, err := re.spill.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, fmt.Errorf("spill: %w", err)
		}
		tmpSize = end - base
		re.spEnd = end
		f := re.spill
		tmp = RangeReaderFunc(func(_ context.Context, off, n int64) ([]byte, error) {
			p := make([]byte, n)
			k, err := f.ReadAt(p, base+off)
			if k == len(p) {
				err = nil
			}
			return p[:k], err
		})
	} else {
		tmpSize = int64(mem.Len())
		tmp = bytesRange(mem.Bytes())
	}
	tmd, tEnd, err := readFooter(re.ctx, tmp, tmpSize)
	if err != nil {
		return nil, fmt.Errorf("read back re-encoded rows: %w", err)
	}
	var kept []byte
	if !spill {
		// One right-sized copy of the chunks, so the writer's buffer can go.
		kept = bytes.Clone(mem.Bytes()[:tEnd])
	}
	var out []format.RowGroup
	var rows int64
	for k := range tmd.RowGroups {
		nrg := tmd.RowGroups[k]
		nrg.SortingColumns = rg.SortingColumns // still sorted: rows only went away
		nrg.TotalCompressedSize = 0
		if len(nrg.Columns) != len(rg.Columns) {
			return nil, fmt.Errorf("re-encoded rows have %d columns, want %d: %w", len(nrg.Columns), len(rg.Columns), ErrParquet)
		}
		for j := range nrg.Columns {
			cc := &nrg.Columns[j]
			if !slices.Equal(cc.MetaData.PathInSchema, rg.Columns[j].MetaData.PathInSchema) ||
				(cc.MetaData.Type != rg.Columns[j].MetaData.Type && re.widening(j) == nil) {
				return nil, fmt.Errorf("re-encoded column %d is %v %v, want %v %v: %w", j,
					cc.MetaData.PathInSchema, cc.MetaData.Type, rg.Columns[j].MetaData.PathInSchema, rg.Columns[j].MetaData.Type, ErrParquet)
			}
			start, end, err := chunkRange(cc, tEnd)
			if err != nil {
				return nil, fmt.Errorf("re-encoded rows: %w", err)
			}
			if j == 0 {
				nrg.FileOffset = b.pos
			}
			moveChunk(cc, start, b.pos)
			if spill {
				b.add(segment{n: end - start, src: base + start, spilled: true})
			} else {
				b.add(segment{n: end - start, data: kept[start:end]})
			}
			nrg.TotalCompressedSize += end - start
		}
		rows += nrg.NumRows
		out = append(out, nrg)
	}
	if rows != n {
		return nil, fmt.Errorf("re-encoded %d rows, footer says %d: %w", n, rows, ErrParquet)
	}
	return out, nil
}

// copyRows writes the rows of rg (its footer entry: md) that vec keeps to
// w, column by column, closes w and returns the number of rows written;
// values says how each column's pages held its values. Going by column
// (decode a column's values, drop those of deleted rows, encode the rest)
// avoids assembling rows, which costs several times more.
func (re *reencoder) copyRows(w *parquet.Writer, rg parquet.RowGroup, first int64, md *format.RowGroup, values []chunkValues) (int64, error) {
	numRows := md.NumRows
	if got := rg.NumRows(); got != numRows {
		return 0, fmt.Errorf("parquet-go sees %d rows, footer says %d: %w", got, numRows, ErrParquet)
	}
	deleted := groupDeletions(re.vec, first, numRows)
	src, dst := rg.ColumnChunks(), w.ColumnWriters()
	if len(src) != len(dst) || len(src) != len(md.Columns) || len(src) != len(values) {
		return 0, fmt.Errorf("%d source columns, %d to write, %d in the footer: %w", len(src), len(dst), len(md.Columns), ErrParquet)
	}
	budget := newPlainBudget(md)
	// Columns are independent: re-encode them in parallel, each with its
	// own reader and column writer.
	type result struct {
		rows, kept int64
		err        error
	}
	results := make([]result, len(src))
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
	var wg sync.WaitGroup
	for j := range src {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			r := &results[j]
			defer func() {
				// parquet-go may panic on a malformed page: a bad file, not
				// a reason to take the process down.
				if p := recover(); p != nil {
					r.err = fmt.Errorf("decoding failed: %v: %w", p, ErrParquet)
				}
				<-sem
				wg.Done()
			}()
			var plain *plainBudget // values written in full that a dictionary held once
			if values[j] == dictionaryFallenBack {
				plain = budget
			}
			r.rows, r.kept, r.err = re.copyColumn(dst[j], src[j], md.Columns[j].MetaData.TotalCompressedSize, deleted, re.widening(j), plain)
		}()
	}
	wg.Wait()
	kept := int64(-1)
	for j, r := range results {
		rows, n, err := r.rows, r.kept, r.err
		if err != nil {
			return 0, fmt.Errorf("column %d: %w", j, err)
		}
		if rows != numRows {
			return 0, fmt.Errorf("column %d holds %d rows, footer says %d: %w", j, rows, numRows, ErrParquet)
		}
		if kept >= 0 && n != kept {
			return 0, fmt.Errorf("column %d kept %d rows, column 0 %d: %w", j, n, kept, ErrParquet)
		}
		kept = n
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("re-encode: %w", err)
	}
	return kept, nil
}

// widening returns the conversion of leaf j, or nil.
func (re *reencoder) widening(j int) *widening {
	if j < len(re.widen) {
		return re.widen[j]
	}
	return nil
}

// copyColumn copies the values of one column chunk, stored in stored
// bytes, without those of deleted rows, to dst, converted by wd when set.
// A value with repetition level 0 starts a row. It returns the rows seen
// and kept. What it holds is bounded by stored, and what it writes of
// byte arrays by plain (nil: they are bounded by their pages' bytes, or
// written with a dictionary; held.go).
func (re *reencoder) copyColumn(dst *parquet.ColumnWriter, src parquet.ColumnChunk, stored int64, deleted deletions, wd *widening, plain *plainBudget) (rows, kept int64, err error) {
	r := parquet.NewColumnChunkValueReader(src)
	defer r.Close()
	buf := make([]parquet.Value, 4096)
	var pending []parquet.Value // kept values not written yet; may end inside a row
	start := 0                  // where the last row in pending starts
	copies := 0                 // pending's first values already copied out of the reader's buffers
	row := int64(-1)            // within the row group
	cur := deletedCursor{deleted}
	drop := false
	limit := maxRowBytes(stored)
	rowBytes := int64(0) // what the row being read takes held
	write := writeBounded(dst, src.Type().Kind(), plain)
	for {
		if err := re.ctx.Err(); err != nil {
			return 0, 0, err
		}
		n, rerr := r.ReadValues(buf)
		for _, v := range buf[:n] {
			if v.RepetitionLevel() == 0 {
				row++
				if drop = cur.deleted(row); !drop {
					kept++
				}
				rowBytes = 0
			}
			if drop {
				continue
			}
			if wd != nil {
				if v, err = wd.apply(v); err != nil {
					return 0, 0, err
				}
			}
			if v.RepetitionLevel() == 0 {
				start = len(pending)
			}
			if rowBytes += valueSize; rowBytes > limit {
				return 0, 0, errRowTooLong(limit, stored)
			}
			pending = append(pending, v)
		}
		eof := rerr == io.EOF
		if rerr != nil && !eof {
			return 0, 0, fmt.Errorf("decode: %w (%w)", rerr, ErrParquet)
		}
		// Write whole rows only: hold back the last row, which may go on in
		// the next batch (a row must not span two pages).
		cut := len(pending)
		if !eof {
			cut = min(start, cut)
		}
		if err := write(pending[:cut]); err != nil {
			return 0, 0, err
		}
		// The held-back values point into the reader's buffers, which the
		// next read reuses: keep copies, each made once (a row of millions
		// of values, held back batch after batch, was copied whole at each:
		// hours for 2^26 values).
		held := copy(pending, pending[cut:])
		pending = pending[:held]
		for i := max(copies-cut, 0); i < held; i++ {
			if rowBytes += arrayBytes(&pending[i]); rowBytes > limit {
				return 0, 0, errRowTooLong(limit, stored)
			}
			pending[i] = pending[i].Clone()
		}
		copies, start = held, start-cut
		if eof {
			return row + 1, kept, nil
		}
		if n == 0 {
			return 0, 0, fmt.Errorf("decode: no progress at row %d of the row group: %w", row, ErrParquet)
		}
	}
}

// bytesRange reads from data.
func bytesRange(data []byte) RangeReader {
	return RangeReaderFunc(func(_ context.Context, off, n int64) ([]byte, error) {
		return data[off:min(off+n, int64(len(data)))], nil
	})
}

// widenSchema returns schema (the source's) with the leaves re widens in
// their new types, as parquet-go writes them: the schema of a file of no
// rows written as re-encoded row groups are.
func (re *reencoder) widenSchema(schema []format.SchemaElement) ([]format.SchemaElement, error) {
	pf, err := re.open()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := parquet.NewWriter(&buf, writeSchema(pf.Schema(), re.widen, nil)).Close(); err != nil {
		return nil, fmt.Errorf("widened schema: %w", err)
	}
	tmd, _, err := readFooter(re.ctx, bytesRange(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, fmt.Errorf("widened schema: %w", err)
	}
	if len(tmd.Schema) != len(schema) {
		return nil, fmt.Errorf("widened schema has %d elements, the source %d: %w", len(tmd.Schema), len(schema), ErrParquet)
	}
	out := slices.Clone(schema)
	leaf := 0
	for i := 1; i < len(out); i++ {
		if out[i].NumChildren.V > 0 {
			continue
		}
		if re.widening(leaf) != nil {
			t := &tmd.Schema[i]
			el := &out[i]
			el.Type, el.TypeLength, el.ConvertedType, el.LogicalType = t.Type, t.TypeLength, t.ConvertedType, t.LogicalType
			el.Scale, el.Precision = t.Scale, t.Precision
		}
		leaf++
	}
	return out, nil
}
