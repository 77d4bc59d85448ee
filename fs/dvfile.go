package fs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/replay/action"
)

// A data file with a deletion vector, or whose columns are renamed, is
// served as its view (dvfilter.View): valid Parquet without the deleted
// rows, with the served column names. The view of a file with a deletion
// vector, or renamed to longer names, is built on the file's first lookup,
// which fixes its size; a renamed file that keeps its stored size is built
// at its first open. The root caches views (dvfilter.Views, bounded) and
// sizes (by viewKey), and an open handle keeps its view. Untouched row groups are read from the stored file
// through the block cache, with read-ahead like plain files; re-encoded row
// groups and the footer come from the view. A vector or data file that
// cannot be used gives EIO and a log line naming the objects, never the
// stored bytes.

// dvStorage gives dvfilter the table's bytes: data files and relative
// deletion vector files by path, absolute ones through AbsoluteReader.
type dvStorage struct{ t Table }

func (s dvStorage) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	return s.t.ReadRange(ctx, key, off, n)
}

type dvAbsStorage struct{ t Table }

var errNoAbsolute = errors.New("deletion vectors at absolute paths are not readable from this table")

func (s dvAbsStorage) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if strings.HasPrefix(key, "/") || action.IsExternal(key) { // a 'p' vector
		ar, ok := s.t.(AbsoluteReader)
		if !ok {
			return nil, fmt.Errorf("%s: %w", key, errNoAbsolute)
		}
		return ar.ReadAbsolute(ctx, key, off, n)
	}
	return s.t.ReadRange(ctx, key, off, n)
}

func newDVViews(t Table, o Options) *dvfilter.Views {
	return dvfilter.NewViews(dvStorage{t}, dvAbsStorage{t}, dvfilter.ViewsOptions{
		CacheBytes: o.DVCacheBytes,
		Build:      dvfilter.BuildOptions{SpillDir: o.CacheDir},
	})
}

// viewKey names the view of a data file.
func (n *fileNode) viewKey() string {
	k := n.f.Path
	if n.f.DV != nil {
		k += "\x00" + n.f.DV.UniqueID()
	}
	if n.rename != nil {
		k += "\x00" + n.rename.Key
	}
	return k
}

// prepare makes the node ready to report its attributes: for a file served
// as a view whose size is not the stored one, it learns the size (building
// the view unless the size is cached).
func (n *fileNode) prepare(ctx context.Context) syscall.Errno {
	if !n.needsView() || (n.f.DV == nil && n.sameSize) {
		return 0
	}
	if size, ok := n.root.dvSize.Get(n.viewKey()); ok {
		n.size = size
		return 0
	}
	v, errno := n.view(ctx)
	if errno != 0 {
		return errno
	}
	n.size = v.Size()
	return 0
}

// view returns the filtered view of the node's file, logging a failure.
func (n *fileNode) view(ctx context.Context) (*dvfilter.View, syscall.Errno) {
	v, err := n.root.dv.Get(ctx, n.f, n.rename)
	if err != nil {
		if !isCancel(err) {
			n.root.logf("v%d/%s: cannot serve the file as a view (rows deleted, columns renamed): %v", n.version, n.name, err)
		}
		return nil, readErrno(err)
	}
	n.root.dvSize.Set(n.viewKey(), v.Size())
	if n.size != v.Size() && (n.f.DV == nil && n.sameSize || n.size != max(n.f.Size, 0)) {
		// The kernel has another size: a rebuilt view differs, or a
		// renamed footer came out longer than the stored one.
		n.root.logf("v%d/%s: served size changed from %d to %d", n.version, n.name, n.size, v.Size())
		return nil, syscall.EIO
	}
	return v, 0
}

// blockSource reads ranges of the node's stored file through the block
// cache.
// blockSource reads the stored file through the block cache, and through
// the open handle's held blocks and read-ahead when there is one.
func (n *fileNode) blockSource(h *fileHandle) dvfilter.RangeReader {
	return dvfilter.RangeReaderFunc(func(ctx context.Context, off, ln int64) ([]byte, error) {
		r, path, size := n.root, n.f.Path, n.f.Size
		block := func(idx int64) ([]byte, error) {
			if h != nil {
				return h.block(ctx, r, path, size, idx)
			}
			return r.block(ctx, path, size, idx)
		}
		end := min(off+ln, size)
		if off < 0 || off >= end {
			return nil, nil
		}
		bs := r.opts.BlockSize
		if first := off / bs; (end-1)/bs == first {
			// Inside one block: hand out the cached bytes, no copy (the
			// view only copies out of them).
			data, err := block(first)
			if err != nil {
				return nil, fmt.Errorf("object %q, bytes %d-%d: %w", path, first*bs, min((first+1)*bs, size), err)
			}
			return data[off-first*bs : end-first*bs], nil
		}
		buf := make([]byte, 0, end-off)
		for b := off / bs; b*bs < end; b++ {
			data, err := block(b)
			if err != nil {
				return nil, fmt.Errorf("object %q, bytes %d-%d: %w", path, b*bs, min((b+1)*bs, size), err)
			}
			lo, hi := max(off, b*bs)-b*bs, min(end, (b+1)*bs)-b*bs
			buf = append(buf, data[lo:hi]...)
		}
		return buf, nil
	})
}

// readView serves a read of the view.
func (n *fileNode) readView(ctx context.Context, fh fusefs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h, _ := fh.(*fileHandle)
	var v *dvfilter.View
	if h != nil && h.view != nil {
		v = h.view
	} else {
		var errno syscall.Errno
		if v, errno = n.view(ctx); errno != 0 {
			return nil, errno
		}
	}
	if off < 0 {
		return nil, syscall.EINVAL
	}
	size := v.Size()
	if off >= size || len(dest) == 0 {
		return fuse.ReadResultData(nil), 0
	}
	end := min(off+int64(len(dest)), size)
	buf := dest[:end-off]
	// Read ahead in the stored file, as for a plain file, before this read
	// waits: the view's copied row groups are ranges of it, in order.
	if h != nil {
		if src, ok := v.SourceOffset(off); ok {
			h.readAhead(n.root, n.f.Path, n.f.Size, src, min(src+(end-off), n.f.Size))
		}
	}
	if _, err := v.ReadAt(ctx, n.blockSource(h), buf, off); err != nil {
		if !isCancel(err) {
			n.root.logf("read v%d/%s (view of %s, bytes %d-%d): %v", n.version, n.name, n.f.Path, off, end, err)
		}
		return nil, readErrno(err)
	}
	return fuse.ReadResultData(buf), 0
}
