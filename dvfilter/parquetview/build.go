package parquetview

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"

	"github.com/parquet-go/parquet-go/format"
)

// BuildOptions tune Build.
type BuildOptions struct {
	// SpillDir is where re-encoded row groups larger than SpillThreshold are
	// written (in an unlinked temporary file). Default os.TempDir().
	SpillDir string
	// SpillThreshold is the compressed size of a source row group above
	// which its re-encoded form goes to SpillDir instead of memory.
	// Default 8 MiB; negative spills every re-encoded row group.
	SpillThreshold int64
	// Rename, when set, serves the file's columns under other names, or
	// fewer of them (column mapping); only the footer changes.
	Rename *Rename
	// Decoding, when set, is the memory builds share for their decoded
	// footers: a build holds decodeBytes of it from the decode to
	// the view made.
	Decoding Budget
}

// Budget is memory shared by builds. Acquire waits until n bytes of it are
// free, or ctx ends; Release gives back what an Acquire of n took.
type Budget interface {
	Acquire(ctx context.Context, n int64) error
	Release(n int64)
}

// decodeBytes is about the memory a footer takes decoded: parquet-go's
// structs for every column chunk, some 21 times its size at their peak (a
// 11 MB footer of 1,000 columns by 100 row groups took 232 MB), with room
// for what the view is re-encoded into; or, for a footer of structs that
// hold next to nothing, thriftcheck's bound.
func (f footerAt) decodeBytes() int64 { return max(24*int64(len(f.b)), f.decode) }

func (o BuildOptions) withDefaults() BuildOptions {
	if o.SpillDir == "" {
		o.SpillDir = os.TempDir()
	}
	if o.SpillThreshold == 0 {
		o.SpillThreshold = 8 << 20
	}
	return o
}

// Build makes the view of a Parquet data file of size bytes, read through
// src, without the rows in vec (nil: none), with the columns opts.Rename
// serves (nil: as stored). The chunks of a column opts.Rename widens, or
// of INT96 instants, are converted page by page (convertpages.go), or
// their row groups re-encoded whole where pages cannot be.
//
// It reads the footer (usually one ranged read of the file's tail) and
// decides per row group: a row group that loses no row is copied byte for
// byte (its column chunks become source ranges of the view, their offsets
// shifted in the footer); one that loses every row is dropped; one that
// loses some rows is rebuilt page by page when it can be (see splice.go:
// pages holding no deleted row are copied byte for byte, the others are
// re-encoded without the deleted rows), else decoded, filtered and
// re-encoded whole with the same schema and compression (see reencode).
// The footer is rewritten: row counts, offsets, sizes; statistics are the
// source's for copied row groups (none where the source has none: see
// footer_encode.go), the writer's (computed over exactly the kept rows) for
// row groups re-encoded whole, and only the null count (adjusted) for column
// chunks rebuilt page by page, whose min, max and distinct count could be
// stale; page indexes and bloom filters are dropped everywhere. Every other footer field
// (schema, key-value metadata, created_by, column orders) is kept.
//
// A vector that deletes a row the file does not have is an error wrapping
// ErrRowOutOfRange; a file Build cannot use, one wrapping ErrParquet.
func Build(ctx context.Context, src RangeReader, size int64, vec Rows, opts BuildOptions) (*View, error) {
	opts = opts.withDefaults()
	v, err := build(ctx, src, size, vec, opts)
	if errors.Is(err, errInt96) && opts.Rename != nil && !opts.Rename.storedInt96 {
		kept := err
		rn := *opts.Rename
		rn.storedInt96 = true
		opts.Rename = &rn
		if v, err = build(ctx, src, size, vec, opts); err == nil {
			v.Kept = fmt.Errorf("INT96 timestamps served as stored, not as microseconds: %w", kept)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("parquet view: %w", err)
	}
	return v, nil
}

func build(ctx context.Context, src RangeReader, size int64, vec Rows, opts BuildOptions) (_ *View, err error) {
	defer func() {
		// parquet-go may panic on a malformed file; that is a bad file, not
		// a reason to take the mount down.
		if r := recover(); r != nil {
			err = fmt.Errorf("decoding failed: %v: %w", r, ErrParquet)
		}
	}()
	if vec == nil {
		vec = noRows{}
	}
	src = &tailKept{src: src, size: size}
	footer, err := footerBytes(ctx, src, size)
	if err != nil {
		return nil, err
	}
	dataEnd := footer.start
	if vec.Cardinality() == 0 && opts.Rename != nil {
		if v, err := unchangedView(footer.b, size, opts.Rename); v != nil || err != nil {
			return v, err
		}
	}
	if opts.Decoding != nil {
		// A wide table's footers are megabytes, and their decoded form
		// twenty times that: a listing that builds sixteen views at once
		// took gigabytes.
		n := footer.decodeBytes()
		if err := opts.Decoding.Acquire(ctx, n); err != nil {
			return nil, err
		}
		defer opts.Decoding.Release(n)
	}
	md, err := decodeFooter(footer.b)
	if err != nil {
		return nil, err
	}
	var (
		widen []*widening
		int96 []bool
		lv    []leafInfo
		conv  []*pageConversion // per leaf: its pages converted (INT96, widened)
		whole bool              // a widening every row group needs re-encoded whole
	)
	if opts.Rename != nil {
		if widen, int96, err = opts.Rename.conversions(md); err != nil {
			return nil, err
		}
	}
	if vec.Cardinality() == 0 && opts.Rename != nil && widen == nil && int96 == nil {
		return renamedView(ctx, src, md, size, dataEnd, opts.Rename)
	}
	if err := disjointChunks(md, dataEnd); err != nil { // row groups are rebuilt from here on
		return nil, err
	}
	if conv, whole = pageConversions(md.Schema, widen, int96); conv != nil {
		if lv, err = leaves(md.Schema); err != nil {
			return nil, err
		}
	}
	var total int64
	for i := range md.RowGroups {
		if n := md.RowGroups[i].NumRows; n < 0 {
			return nil, fmt.Errorf("row group %d has %d rows: %w", i, n, ErrParquet)
		}
		total += md.RowGroups[i].NumRows
	}
	if maxRow, ok := vec.Max(); ok && maxRow >= uint64(total) {
		return nil, fmt.Errorf("row %d deleted, the file has %d rows: %w", maxRow, total, ErrRowOutOfRange)
	}

	v := &View{Deleted: int64(vec.Cardinality())}
	b := &viewBuilder{v: v}
	re := &reencoder{ctx: ctx, src: src, size: size, dataEnd: dataEnd, vec: vec, opts: opts, widen: withInt96(widen, int96)}
	defer re.close()
	defer func() {
		if err != nil && re.spill != nil {
			re.spill.Close()
		}
	}()

	out := *md
	out.RowGroups = nil
	out.NumRows = 0
	b.add(segment{n: int64(len(magic)), data: magic})
	var converted [][]*splicedChunk // by row group and column: chunks converted of row groups copied
	if (conv != nil || widen != nil) && !whole {
		if converted, err = convertChunks(ctx, src, md, vec, conv, lv, dataEnd); err != nil {
			return nil, err
		}
		for _, rg := range converted {
			for _, sc := range rg {
				if sc != nil {
					if err := re.spillPieces(sc); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	var first int64 // row index of the first row of row group i
	for i := range md.RowGroups {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rg := &md.RowGroups[i]
		lost := int64(vec.CountRange(uint64(first), uint64(first+rg.NumRows)))
		switch {
		case lost == rg.NumRows && rg.NumRows > 0:
			v.DroppedRowGroups++
		case lost == 0 && !whole && (converted == nil || converted[i] != nil):
			var cv []*splicedChunk
			if converted != nil {
				cv = converted[i]
			}
			nrg, err := copyRowGroup(b, rg, dataEnd, cv)
			if err != nil {
				return nil, fmt.Errorf("row group %d: %w", i, err)
			}
			out.RowGroups = append(out.RowGroups, nrg)
			v.CopiedRowGroups++
		default:
			if pageSplicing && !whole && lost > 0 {
				nrg, pages, err := spliceRowGroup(ctx, b, src, md, rg, first, vec, dataEnd, conv)
				if err == nil {
					out.RowGroups = append(out.RowGroups, nrg)
					v.RewrittenRowGroups++
					v.SplicedRowGroups++
					v.RewrittenPages += pages
					break
				}
				if cerr := ctx.Err(); cerr != nil {
					return nil, cerr
				}
				v.spliceErr = fmt.Errorf("row group %d: %w", i, err)
				// Anything the page-level path cannot do, the whole-row-group
				// path does (or reports).
			}
			nrgs, err := re.rowGroup(b, i, rg, first)
			if err != nil {
				return nil, fmt.Errorf("row group %d: %w", i, err)
			}
			out.RowGroups = append(out.RowGroups, nrgs...)
			v.RewrittenRowGroups++
		}
		first += rg.NumRows
	}
	for i := range out.RowGroups {
		out.RowGroups[i].Ordinal = int16(i)
		out.NumRows += out.RowGroups[i].NumRows
	}
	v.Rows = out.NumRows
	if v.Rows != total-v.Deleted {
		return nil, fmt.Errorf("filtered file has %d rows, want %d of %d: %w", v.Rows, total-v.Deleted, total, ErrParquet)
	}
	if widen != nil {
		if out.Schema, err = re.widenSchema(md.Schema); err != nil {
			return nil, err
		}
		dropSchemaCaches(&out)
	}
	if opts.Rename != nil {
		fl, err := opts.Rename.apply(&out)
		if err != nil {
			return nil, err
		}
		ls := &levelSource{ctx: ctx, src: src, md: md, dataEnd: dataEnd, vec: vec, column: re.column}
		if err := fillColumns(b, &out, fl, opts.Rename.ByID, ls); err != nil {
			return nil, err
		}
	}
	tail, err := encodeServedFooter(&out, md, opts.Rename, size-b.pos)
	if err != nil {
		return nil, err
	}
	if int96 != nil && v.Deleted == 0 {
		// Served in the stored size (int96.go), or not converted.
		pad := size - b.pos - int64(len(tail))
		if pad < 0 {
			return nil, fmt.Errorf("converted, the file would grow by %d bytes: %w", -pad, errInt96)
		}
		b.add(segment{n: pad, zeros: true})
	}
	b.add(segment{n: int64(len(tail)), data: tail})
	v.size = b.pos
	v.spill = re.spill
	if v.spill != nil {
		runtime.AddCleanup(v, func(f *os.File) { f.Close() }, v.spill)
	}
	return v, nil
}

// copyRowGroup lays out the column chunks of a row group as source ranges,
// but those converted (by column; nil: none), and returns its footer entry
// with the new offsets.
func copyRowGroup(b *viewBuilder, rg *format.RowGroup, dataEnd int64, converted []*splicedChunk) (format.RowGroup, error) {
	nrg := *rg
	nrg.Columns = slices.Clone(rg.Columns)
	nrg.TotalCompressedSize = 0
	nrg.FileOffset = b.pos
	for j := range nrg.Columns {
		cc := &nrg.Columns[j]
		if j < len(converted) && converted[j] != nil {
			sc := converted[j]
			nrg.TotalByteSize += sc.meta.TotalUncompressedSize - cc.MetaData.TotalUncompressedSize
			if err := layChunk(b, cc, sc); err != nil {
				return format.RowGroup{}, fmt.Errorf("column %d: %w", j, err)
			}
			nrg.TotalCompressedSize += sc.size
			continue
		}
		start, end, err := chunkRange(cc, dataEnd)
		if err != nil {
			return format.RowGroup{}, err
		}
		moveChunk(cc, start, b.pos)
		b.add(segment{n: end - start, src: start})
		nrg.TotalCompressedSize += end - start
	}
	return nrg, nil
}
