package fs

import (
	"context"
	"sync"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/replay"
)

// fileNode is a data file of a version. Its attributes and extended
// attributes come from the snapshot (no storage request); its bytes are read
// through the root's block cache. The content never changes, so it is
// opened with FOPEN_KEEP_CACHE.
//
// A file with a deletion vector cannot be served yet: showing its stored
// bytes would resurrect deleted rows. It can be listed and stat'ed, but Open
// and Read fail with EIO.
type fileNode struct {
	fusefs.Inode
	readOnlyFile

	root    *root
	version int64
	f       *replay.File // points into the snapshot; immutable
	ino     uint64

	dvLogOnce sync.Once
}

var (
	_ = (fusefs.InodeEmbedder)((*fileNode)(nil))
	_ = (fusefs.NodeGetattrer)((*fileNode)(nil))
	_ = (fusefs.NodeOpener)((*fileNode)(nil))
	_ = (fusefs.NodeReader)((*fileNode)(nil))
	_ = (fusefs.NodeGetxattrer)((*fileNode)(nil))
	_ = (fusefs.NodeListxattrer)((*fileNode)(nil))
)

func newFileNode(r *root, version int64, f *replay.File) *fileNode {
	return &fileNode{root: r, version: version, f: f, ino: ino(version, kindFile, f.Path)}
}

func (n *fileNode) fillAttr(out *fuse.Attr) {
	out.Mode = syscall.S_IFREG | 0o444
	out.Ino = n.ino
	out.Nlink = 1
	out.Size = uint64(max(n.f.Size, 0))
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

// Getattr reports size and mtime from the add action; no storage request.
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
	if errno := n.checkDV(); errno != 0 {
		return nil, 0, errno
	}
	return &fileHandle{}, fuse.FOPEN_KEEP_CACHE, 0
}

// checkDV refuses a file with a deletion vector, logging it once per node.
func (n *fileNode) checkDV() syscall.Errno {
	if n.f.DV == nil {
		return 0
	}
	n.dvLogOnce.Do(func() {
		n.root.logf("v%d/%s: %v (%d deleted rows); refusing to serve it",
			n.version, n.f.Path, errDeletionVector, n.f.DeletedRows())
	})
	return syscall.EIO
}

// Read serves [off, off+len(dest)) from the blocks that cover it, then
// schedules read-ahead if the handle reads sequentially.
func (n *fileNode) Read(ctx context.Context, fh fusefs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if errno := n.checkDV(); errno != 0 {
		return nil, errno
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
	buf := dest[:0]
	for b := off / bs; b*bs < end; b++ {
		data, err := n.root.block(ctx, n.f.Path, size, b)
		if err != nil {
			if !isCancel(err) {
				n.root.logf("read v%d/%s (object %q, bytes %d-%d): %v",
					n.version, n.f.Path, n.f.Path, b*bs, min((b+1)*bs, size), err)
			}
			return nil, readErrno(err)
		}
		lo, hi := max(off, b*bs)-b*bs, min(end, (b+1)*bs)-b*bs
		buf = append(buf, data[lo:hi]...)
	}
	if h, ok := fh.(*fileHandle); ok && n.root.opts.ReadAhead > 0 {
		if from, to := h.advance(off, end, bs, n.root.opts.ReadAhead); from < to {
			n.root.readAhead(n.f.Path, size, from, to)
		}
	}
	return fuse.ReadResultData(buf), 0
}
