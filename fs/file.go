package fs

import (
	"context"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions/layout"
)

// fileNode is a data file of a version. Its attributes and extended
// attributes come from the snapshot (no storage request); its bytes are read
// through the root's block cache. The content never changes, so it is
// opened with FOPEN_KEEP_CACHE.
//
// A file with a deletion vector, or one whose columns are served under
// their logical names, is served as its view (dvfile.go): a valid Parquet
// file without the deleted rows, with the served column names. Its size is
// the stored one where the view keeps it (renamed only, footer padded),
// else known once the view is built at the node's lookup.
type fileNode struct {
	fusefs.Inode
	readOnlyFile

	root     *root
	version  int64
	name     string           // served path inside the version
	f        *replay.File     // points into the snapshot; immutable
	rename   *dvfilter.Rename // the served column names; nil: as stored
	sameSize bool             // a renamed file keeps its stored size
	ino      uint64
	size     int64 // served size: f.Size, or the view's size; set before the node is used
}

var (
	_ = (fusefs.InodeEmbedder)((*fileNode)(nil))
	_ = (fusefs.NodeGetattrer)((*fileNode)(nil))
	_ = (fusefs.NodeOpener)((*fileNode)(nil))
	_ = (fusefs.NodeReader)((*fileNode)(nil))
	_ = (fusefs.NodeGetxattrer)((*fileNode)(nil))
	_ = (fusefs.NodeListxattrer)((*fileNode)(nil))
)

func newFileNode(r *root, version int64, e *layout.Entry, lay *layout.Version) *fileNode {
	return &fileNode{
		root: r, version: version, name: e.Name, f: e.File, rename: lay.Rename, sameSize: lay.SameSize,
		ino: ino(version, kindFile, e.Name), size: max(e.File.Size, 0),
	}
}

// needsView says whether the file is served as a view rather than as
// stored.
func (n *fileNode) needsView() bool { return n.f.DV != nil || n.rename != nil }

func (n *fileNode) fillAttr(out *fuse.Attr) {
	out.Mode = syscall.S_IFREG | 0o444
	out.Ino = n.ino
	out.Nlink = 1
	out.Size = uint64(n.size)
	out.Blocks = (out.Size + 511) / 512
	out.Blksize = uint32(n.root.opts.BlockSize)
	t := msTime(n.f.ModTime)
	out.SetTimes(&t, &t, &t)
}

func (n *fileNode) fillEntry(out *fuse.EntryOut) {
	n.fillAttr(&out.Attr)
	out.SetEntryTimeout(n.root.opts.VersionEntryTimeout)
	out.SetAttrTimeout(n.root.opts.VersionAttrTimeout)
}

// Getattr reports size and mtime from the add action (the size of the
// filtered view for a file with a deletion vector); no storage request.
func (n *fileNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.fillAttr(&out.Attr)
	out.SetTimeout(n.root.opts.VersionAttrTimeout)
	return 0
}

// Open checks the file can be served and returns a handle that tracks
// sequential reading for read-ahead.
func (n *fileNode) Open(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	if errno := openReadOnly(flags); errno != 0 {
		return nil, 0, errno
	}
	if errno := n.checkSize(); errno != 0 {
		return nil, 0, errno
	}
	h := newFileHandle(n.root)
	if n.needsView() {
		v, errno := n.view(ctx)
		if errno != 0 {
			return nil, 0, errno
		}
		h.view = v
	}
	if !n.needsView() && !n.root.opts.NoPassthrough {
		if lf, ok := n.root.table.(LocalFiler); ok {
			h.openLocal, ok = lf.LocalFile(n.f.Path)
			if ok {
				h.localSize = n.f.Size
			}
		}
	}
	// The bytes of a path never change: whatever the kernel cached of them
	// stays valid. (go-fuse clears this for a file it passes through.)
	out := uint32(fuse.FOPEN_KEEP_CACHE)
	if n.root.directIO.Load() && h.openLocal == nil {
		out |= fuse.FOPEN_DIRECT_IO
	}
	return h, out, 0
}

// Read serves [off, off+len(dest)) from the blocks that cover it. A
// sequential reader's next blocks are requested first (fileHandle.readAhead),
// so they load in parallel with the ones this read waits for.
func (n *fileNode) Read(ctx context.Context, fh fusefs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if n.needsView() {
		return n.readView(ctx, fh, dest, off)
	}
	size := n.f.Size
	if off < 0 {
		return nil, syscall.EINVAL
	}
	if off >= size || len(dest) == 0 {
		return fuse.ReadResultData(nil), 0
	}
	end := min(off+int64(len(dest)), size)
	bs := n.root.opts.BlockSize
	h, _ := fh.(*fileHandle)
	if h != nil {
		h.readAhead(n.root, n.f.Path, size, off, end)
	}
	buf := dest[:0]
	for b := off / bs; b*bs < end; b++ {
		var data []byte
		var err error
		if h != nil {
			data, err = h.block(ctx, n.root, n.f.Path, size, b)
		} else {
			data, err = n.root.block(ctx, n.f.Path, size, b)
		}
		if err != nil {
			if !isCancel(err) {
				n.root.logf("read v%d/%s (object %q, bytes %d-%d): %v",
					n.version, n.f.Path, n.f.Path, b*bs, min((b+1)*bs, size), err)
			}
			return nil, readErrno(err)
		}
		lo, hi := max(off, b*bs)-b*bs, min(end, (b+1)*bs)-b*bs
		if b == off/bs && end <= (b+1)*bs {
			// Within one block, as most kernel reads are: reply with the
			// block's bytes, which never change, instead of copying them.
			return fuse.ReadResultData(data[lo:hi]), 0
		}
		buf = append(buf, data[lo:hi]...)
	}
	return fuse.ReadResultData(buf), 0
}

// checkSize refuses a file whose size the log gets wrong: a negative size,
// or, where the store tells it for free, a stored size other than the
// log's (a file truncated, appended to or replaced since it was
// committed). Serving it would give bytes that are not the table's.
func (n *fileNode) checkSize() syscall.Errno {
	if n.f.Size < 0 {
		n.root.logf("v%d/%s: the log gives size %d for %s", n.version, n.name, n.f.Size, n.f.Path)
		return syscall.EIO
	}
	sc, ok := n.root.table.(SizeChecker)
	if !ok {
		return 0
	}
	size, known, err := sc.StoredSize(n.f.Path)
	switch {
	case !known:
		return 0
	case err != nil:
		n.root.logf("v%d/%s: %v", n.version, n.name, err)
		return readErrno(err)
	case size != n.f.Size:
		n.root.logf("v%d/%s: %s is %d bytes, the log says %d: not served", n.version, n.name, n.f.Path, size, n.f.Size)
		return syscall.EIO
	}
	return 0
}
