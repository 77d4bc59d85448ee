package serve

import (
	"context"
	"fmt"
	"io"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
)

// Read returns the bytes of [off, off+len(dest)) of what the reader serves
// (fewer at its end, none past it). Within one block of a stored file the
// bytes are the block's own, not a copy: they must not be written to, and
// if they come with a Lease (a reused buffer), not used after its Release,
// which the caller owes once it is done with them. Otherwise they are
// copied into dest. A sequential reader's next blocks are requested first,
// so they load in parallel with the ones this read waits for.
func (h *Reader) Read(ctx context.Context, dest []byte, off int64) ([]byte, *Lease, error) {
	if off < 0 {
		return nil, nil, fmt.Errorf("negative offset %d", off)
	}
	if h.view != nil {
		data, err := h.readView(ctx, dest, off)
		return data, nil, err
	}
	if off >= h.size || len(dest) == 0 {
		return nil, nil, nil
	}
	end := min(off+int64(len(dest)), h.size)
	bs := h.files.opts.BlockSize
	h.readAhead(off, end)
	buf := dest[:0]
	for b := off / bs; b*bs < end; b++ {
		data, lease, err := h.block(ctx, b)
		if err != nil {
			return nil, nil, h.blockError(b, err)
		}
		lo, hi := max(off, b*bs)-b*bs, min(end, (b+1)*bs)-b*bs
		if b == off/bs && end <= (b+1)*bs {
			return data[lo:hi], lease, nil // within one block, as most kernel reads are
		}
		buf = append(buf, data[lo:hi]...)
		lease.Release()
	}
	return buf, nil, nil
}

// blockError names the object and the bytes of a failed block read.
func (h *Reader) blockError(b int64, err error) error {
	bs := h.files.opts.BlockSize
	return fmt.Errorf("object %q, bytes %d-%d: %w", h.path, b*bs, min((b+1)*bs, h.size), err)
}

// readView serves a read of the view. Its copied parts are ranges of the
// stored file, read through the reader's blocks with read-ahead, in order.
func (h *Reader) readView(ctx context.Context, dest []byte, off int64) ([]byte, error) {
	size := h.view.Size()
	if off >= size || len(dest) == 0 {
		return nil, nil
	}
	end := min(off+int64(len(dest)), size)
	buf := dest[:end-off]
	if src, ok := h.view.SourceOffset(off); ok {
		h.readAhead(src, min(src+(end-off), h.size))
	}
	if _, err := h.view.ReadAt(ctx, h.source(), buf, off); err != nil && err != io.EOF {
		return nil, fmt.Errorf("view of %s, bytes %d-%d: %w", h.path, off, end, err)
	}
	return buf, nil
}

// source reads ranges of the stored file through the reader's blocks.
func (h *Reader) source() parquetview.RangeReader {
	return parquetview.RangeReaderFunc(func(ctx context.Context, off, ln int64) ([]byte, error) {
		end := min(off+ln, h.size)
		if off < 0 || off >= end {
			return nil, nil
		}
		bs := h.files.opts.BlockSize
		if first := off / bs; (end-1)/bs == first {
			// Inside one block: hand out the cached bytes, no copy (the
			// view only copies out of them). A view's blocks are never in
			// reused buffers (loadSpan): no lease to keep.
			data, _, err := h.block(ctx, first)
			if err != nil {
				return nil, h.blockError(first, err)
			}
			return data[off-first*bs : end-first*bs], nil
		}
		buf := make([]byte, 0, end-off)
		for b := off / bs; b*bs < end; b++ {
			data, _, err := h.block(ctx, b)
			if err != nil {
				return nil, h.blockError(b, err)
			}
			lo, hi := max(off, b*bs)-b*bs, min(end, (b+1)*bs)-b*bs
			buf = append(buf, data[lo:hi]...)
		}
		return buf, nil
	})
}
