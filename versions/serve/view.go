package serve

import (
	"context"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
)

// NeedsView says whether a file is served as a view rather than as
// stored: it has a deletion vector, or its columns are renamed (rn).
func NeedsView(f *replay.File, rn *parquetview.Rename) bool { return f.DV != nil || rn != nil }

// View returns the view of f with its columns renamed by rn (nil: as
// stored), building it on first use (dvfilter.Views caches it).
func (fs *Files) View(ctx context.Context, f *replay.File, rn *parquetview.Rename) (*parquetview.View, error) {
	v, err := fs.views.get(ctx, f, rn, fs.stored(f))
	if err != nil {
		return nil, err
	}
	fs.sizes.Set(viewKey(f, rn), v.Size())
	return v, nil
}

// stored reads the stored bytes of f for building its view: a file that
// the first read of the build takes whole (parquetview.FooterTail) as
// one block through the block cache, where the reads that follow find it;
// a larger one with ranged reads of what the build needs (a stat may
// build a view: it reads the footer, not a block).
func (fs *Files) stored(f *replay.File) parquetview.RangeReader {
	return parquetview.RangeReaderFunc(func(ctx context.Context, off, n int64) ([]byte, error) {
		if f.Size > min(parquetview.FooterTail, fs.opts.BlockSize) || off < 0 || off > f.Size {
			return readOf(ctx, fs.st, f.Path, off, n, f.Size)
		}
		b, err := fs.block(ctx, f.Path, f.Size, 0)
		if err != nil {
			return nil, err
		}
		return b[off:min(off+n, int64(len(b)))], nil
	})
}

// Sized is a file as ServedSize takes it: with the Rename it is served
// with, and whether that keeps its stored size.
type Sized struct {
	File     *replay.File
	Rename   *parquetview.Rename
	SameSize bool
}

// KeepsSize says whether the file is served with its stored size, known
// without building a view: it is served as stored, or only renamed with
// its footer padded.
func (s Sized) KeepsSize() bool { return s.File.DV == nil && (s.Rename == nil || s.SameSize) }

// ServedSize is the size a file is served with: its stored size, or its
// view's. A view that keeps the stored size needs no build; another is
// built unless its size is cached.
func (fs *Files) ServedSize(ctx context.Context, s Sized) (int64, error) {
	if s.KeepsSize() {
		return max(s.File.Size, 0), nil
	}
	if size, ok := fs.sizes.Get(viewKey(s.File, s.Rename)); ok {
		return size, nil
	}
	v, err := fs.View(ctx, s.File, s.Rename)
	if err != nil {
		return 0, err
	}
	return v.Size(), nil
}

// viewKey names the view of a data file: by path, deletion vector and
// the Rename's key.
func viewKey(f *replay.File, rn *parquetview.Rename) string {
	k := f.Path
	if f.DV != nil {
		k += "\x00" + f.DV.UniqueID()
	}
	if rn != nil {
		k += "\x00" + rn.Key
	}
	return k
}
