package parquetview

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
)

// View is a data file with its deleted rows removed: a valid Parquet file,
// described as a list of segments laid end to end. A segment is either a
// byte range of the source data file (row groups that lose no row, copied
// byte for byte), bytes held in memory (the rewritten footer, small
// re-encoded row groups) or bytes in a spill file (large re-encoded row
// groups). A View never holds the source file: reads of copied segments are
// ranged reads of the source, made through the RangeReader the caller
// passes to ReadAt.
//
// A View is immutable and safe for concurrent use. Its spill file, if any,
// is unlinked at creation and closed when the View is garbage collected.
type View struct {
	size  int64
	segs  []segment // ascending, contiguous, covering [0, size)
	spill *os.File  // shared by the spilled segments; nil when none

	// Rows is the number of rows the view serves; Deleted the rows the
	// vector removed.
	Rows, Deleted int64
	// CopiedRowGroups were copied byte for byte; RewrittenRowGroups lost
	// some rows and were re-encoded; DroppedRowGroups lost every row.
	CopiedRowGroups, RewrittenRowGroups, DroppedRowGroups int
	// SplicedRowGroups of the RewrittenRowGroups were rebuilt page by
	// page: RewrittenPages data pages re-encoded, the others copied.
	SplicedRowGroups, RewrittenPages int

	// Kept says why a file's INT96 timestamps are served as stored, not
	// converted (int96.go); nil when they are, or it has none.
	Kept error

	spliceErr error // why the last row group not spliced was not (for tests)
	unchanged bool  // the view is the source file, byte for byte
}

// segment is one piece of a View.
type segment struct {
	off  int64  // where it starts in the view
	n    int64  // length
	src  int64  // offset in the source file, when fromSource
	data []byte // in-memory bytes, len n
	// spilled: the bytes are in View.spill at src.
	spilled bool
	// zeros: n zero bytes (padding that keeps a view the stored size).
	zeros bool
}

// fromSource reports whether s is a byte range of the source file.
func (s *segment) fromSource() bool { return s.data == nil && !s.spilled && !s.zeros }

// Size is the exact size of the filtered file in bytes.
func (v *View) Size() int64 { return v.size }

// Unchanged reports whether the view serves the source file as stored:
// no row deleted, and a Rename that keeps every column under its stored
// name and type. Such a file can be served as a plain one.
func (v *View) Unchanged() bool { return v.unchanged }

// MemSize is about the memory the view holds, for cache costing.
func (v *View) MemSize() int64 {
	n := int64(128 + 64*len(v.segs))
	for _, s := range v.segs {
		n += int64(len(s.data))
	}
	return n
}

// find returns the index of the segment holding view offset off.
func (v *View) find(off int64) int {
	return sort.Search(len(v.segs), func(i int) bool { return v.segs[i].off+v.segs[i].n > off })
}

// SourceOffset maps a view offset to the source offset it copies, if it
// lies in a copied segment: what a reader of the view will need next from
// the source, for read-ahead.
func (v *View) SourceOffset(off int64) (int64, bool) {
	i := v.find(off)
	if i == len(v.segs) {
		return 0, false
	}
	s := v.segs[i]
	if !s.fromSource() {
		return 0, false
	}
	return s.src + off - s.off, true
}

// ReadAt fills p with the view's bytes at off, reading copied segments from
// src (the source data file). It returns the bytes read: fewer than len(p)
// only at the end of the view, with io.EOF.
func (v *View) ReadAt(ctx context.Context, src RangeReader, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("parquet view: negative offset %d", off)
	}
	done := 0
	for i := v.find(off); i < len(v.segs) && done < len(p); i++ {
		s := v.segs[i]
		lo := off + int64(done) - s.off
		n := min(s.n-lo, int64(len(p)-done))
		dst := p[done : done+int(n)]
		switch {
		case s.data != nil:
			copy(dst, s.data[lo:lo+n])
		case s.zeros:
			clear(dst)
		case s.spilled:
			if _, err := v.spill.ReadAt(dst, s.src+lo); err != nil {
				return done, fmt.Errorf("parquet view: read spill file: %w", err)
			}
		default:
			b, err := readFull(ctx, src, s.src+lo, n)
			if err != nil {
				return done, err
			}
			copy(dst, b)
		}
		done += int(n)
	}
	if done < len(p) {
		return done, io.EOF
	}
	return done, nil
}

// viewBuilder lays segments end to end.
type viewBuilder struct {
	v   *View
	pos int64
}

func (b *viewBuilder) add(s segment) {
	if s.n <= 0 {
		return
	}
	s.off = b.pos
	b.pos += s.n
	// Merge adjacent source ranges: copied chunks of a row group usually are.
	if k := len(b.v.segs); k > 0 {
		last := &b.v.segs[k-1]
		if s.fromSource() && last.fromSource() && last.src+last.n == s.src {
			last.n += s.n
			return
		}
		if s.spilled && last.spilled && last.src+last.n == s.src {
			last.n += s.n
			return
		}
	}
	b.v.segs = append(b.v.segs, s)
}
