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
// stored), for reading it, building it on first use (dvfilter.Views
// caches it).
func (fs *Files) View(ctx context.Context, f *replay.File, rn *parquetview.Rename) (*parquetview.View, error) {
	return fs.view(ctx, f, rn, fs.stored(f, fs.opts.FooterBlocks))
}

func (fs *Files) view(ctx context.Context, f *replay.File, rn *parquetview.Rename, src parquetview.RangeReader) (*parquetview.View, error) {
	v, err := fs.views.get(ctx, f, rn, src)
	if err != nil {
		return nil, err
	}
	fs.sizes.Set(viewKey(f, rn), v.Size())
	return v, nil
}

// stored reads the stored bytes of f for building its view. A read that
// the file's reader makes too goes through the block cache, where the
// reader then finds it: a file that the build's first read takes whole
// (parquetview.FooterTail), and, with tail, a read in the file's last two
// blocks, where its footer lies. Other reads are ranged: a stat may build
// a view, and it reads the footer, not blocks.
func (fs *Files) stored(f *replay.File, tail bool) parquetview.RangeReader {
	bs := fs.opts.BlockSize
	from := int64(-1) // reads from here on go through the block cache
	switch {
	case f.Size <= min(parquetview.FooterTail, bs):
		from = 0
	case tail:
		from = max((f.Size-1)/bs-1, 0) * bs
	}
	return parquetview.RangeReaderFunc(func(ctx context.Context, off, n int64) ([]byte, error) {
		if from < 0 || off < from || off > f.Size {
			return readOf(ctx, fs.st, f.Path, off, n, f.Size)
		}
		var out []byte
		for i := off / bs; i*bs < min(off+n, f.Size); i++ {
			b, err := fs.block(ctx, f.Path, f.Size, i)
			if err != nil {
				return nil, err
			}
			lo, hi := max(off-i*bs, 0), min(off+n-i*bs, int64(len(b)))
			if out == nil && hi == off+n-i*bs {
				return b[lo:hi], nil // the read lies in one block
			}
			out = append(out, b[lo:hi]...)
		}
		return out, nil
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
	v, err := fs.view(ctx, s.File, s.Rename, fs.stored(s.File, false))
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
