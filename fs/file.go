package fs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions/layout"
	"github.com/deltafs/deltafs/versions/serve"
)

// fileNode is a data file of a version. Its attributes and extended
// attributes come from the snapshot (no storage request); its bytes are read
// through the root's block cache. The content never changes, so it is
// opened with FOPEN_KEEP_CACHE.
//
// A file with a deletion vector, or one whose columns are served under
// their logical names, is served as its view (dvfile.go): a valid Parquet
// file without the deleted rows, with the served column names; a file
// whose view finds nothing to change is served as stored. Its size is the
// stored one where the view keeps it (renamed only, footer padded), else
// known once the view is built at the node's lookup.
type fileNode struct {
	fusefs.Inode
	readOnlyFile

	root        *root
	tree        *tree               // the version (or commit part) it is served in
	name        string              // served path inside the tree
	f           *replay.File        // points into the snapshot; immutable
	rename      *parquetview.Rename // the served column names; nil: as stored
	sameSize    bool                // a renamed file keeps its stored size
	sizeChecked atomic.Bool         // checkSizeOnce found the stored size the log's
	asStored    atomic.Bool         // servedView found the view changes nothing
	keptLogged  atomic.Bool         // the view's Kept was logged
	ino         uint64
	size        int64 // served size: f.Size, or the view's size; set before the node is used

	sharedMu sync.Mutex
	shared   *serve.Reader // GUARDED_BY(sharedMu): serves reads that come without an open (leaveOpensToKernel)
	idle     *time.Timer   // GUARDED_BY(sharedMu): closes shared once no read came for sharedIdle
}

// sharedIdle is how long a node's own reader outlives its last read. No
// close comes for a read without an open, and the blocks a reader holds
// count against a budget all open files share: an idle reader gives its
// blocks back, and a later read starts a new one.
const sharedIdle = time.Second

var (
	_ = (fusefs.InodeEmbedder)((*fileNode)(nil))
	_ = (fusefs.NodeGetattrer)((*fileNode)(nil))
	_ = (fusefs.NodeOpener)((*fileNode)(nil))
	_ = (fusefs.NodeReader)((*fileNode)(nil))
	_ = (fusefs.NodeFlusher)((*fileNode)(nil))
	_ = (fusefs.NodeGetxattrer)((*fileNode)(nil))
	_ = (fusefs.NodeListxattrer)((*fileNode)(nil))
	_ = (fusefs.NodeOnForgetter)((*fileNode)(nil))
)

func newFileNode(r *root, t *tree, e *layout.Entry) *fileNode {
	rename, sameSize := t.lay.RenameOf(e)
	return &fileNode{
		root: r, tree: t, name: e.Name, f: e.File, rename: rename, sameSize: sameSize,
		ino: t.ino(kindFile, e.Name), size: max(e.File.Size, 0),
	}
}

func (n *fileNode) fillAttr(out *fuse.Attr) {
	out.Mode = syscall.S_IFREG | 0o444
	out.Ino = n.ino
	out.Nlink = 1
	out.Size = uint64(n.size)
	out.Blocks = (out.Size + 511) / 512
	out.Blksize = uint32(n.root.files.BlockSize())
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

// Open checks the file can be served and returns a handle whose reader
// tracks sequential reading for read-ahead, and holds the file's view.
// Where files are left to the kernel (leaveOpensToKernel) it answers
// ENOSYS: the kernel opens files on its own from then on.
func (n *fileNode) Open(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	if n.root.noOpen.Load() {
		return nil, 0, syscall.ENOSYS
	}
	if errno := openReadOnly(flags); errno != 0 {
		return nil, 0, errno
	}
	v, errno := n.servedView(ctx)
	if errno != 0 {
		return nil, 0, errno
	}
	var local *os.File
	if v == nil && n.passesThrough() { // a view is never passed through
		if local, errno = n.checkSize(); errno != 0 {
			return nil, 0, errno
		}
	}
	h := &fileHandle{reader: n.root.files.Open(n.f.Path, n.f.Size, v)}
	if local != nil {
		h.backing = local // offered to the kernel (passthrough)
	}
	// The bytes of a path never change: whatever the kernel cached of them
	// stays valid. (go-fuse clears this for a file it passes through.)
	out := uint32(fuse.FOPEN_KEEP_CACHE)
	if n.root.directIO.Load() && h.backing == nil {
		out |= fuse.FOPEN_DIRECT_IO
	}
	return h, out, 0
}

// passthroughMin is the size from which a plain local file is passed
// through. A smaller one fits in one READ, whose pages the kernel then
// keeps from one open to the next (FOPEN_KEEP_CACHE), while handing a
// file to the kernel costs every open work on both sides: 2,000 opens of
// small files took 1.3x the time with it, DuckDB's count(*) over 96 files
// of 179 KB 1.1x (BENCHMARKS.md).
const passthroughMin = maxRead

// passesThrough reports whether an open of a file served as stored hands
// it to the kernel (passable), unless Options.NoPassthrough. Whether it is
// a local file, checkSize finds.
func (n *fileNode) passesThrough() bool {
	return !n.root.opts.NoPassthrough && passable(n.f)
}

// passable reports whether a file served as stored could be passed
// through: no deletion vector, and at least passthroughMin long.
func passable(f *replay.File) bool {
	return f.DV == nil && f.Size >= passthroughMin
}

// Flush answers ENOSYS, which tells the kernel to send no FLUSH on close
// for the rest of the mount: a read-only file has nothing to flush, and
// each was one more round trip per open.
func (n *fileNode) Flush(ctx context.Context, fh fusefs.FileHandle) syscall.Errno {
	return syscall.ENOSYS
}

// Read serves [off, off+len(dest)) through the open's reader, or the
// node's own for a read without an open (leaveOpensToKernel).
func (n *fileNode) Read(ctx context.Context, fh fusefs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if off < 0 {
		return nil, syscall.EINVAL
	}
	var r *serve.Reader
	if h, _ := fh.(*fileHandle); h != nil && h.reader != nil {
		r = h.reader
	} else {
		var errno syscall.Errno
		if r, errno = n.sharedReader(ctx); errno != 0 {
			return nil, errno
		}
	}
	data, lease, err := r.Read(ctx, dest, off)
	if err != nil {
		if !isCancel(err) {
			n.root.logf("read %s: %v", n.where(), err)
		}
		return nil, n.readErrno(err)
	}
	if lease != nil {
		return newLeasedReply(data, lease), 0
	}
	return fuse.ReadResultData(data), 0
}

// sharedReader returns the reader of the reads that come without an open:
// one per node, made at the first, so that a sequential reader still gets
// read-ahead, and closed sharedIdle after the last read, or when the
// kernel forgets the node.
func (n *fileNode) sharedReader(ctx context.Context) (*serve.Reader, syscall.Errno) {
	n.sharedMu.Lock()
	defer n.sharedMu.Unlock()
	if n.idle == nil {
		n.idle = time.AfterFunc(sharedIdle, n.dropShared)
	} else {
		n.idle.Reset(sharedIdle)
	}
	if n.shared == nil {
		v, errno := n.servedView(ctx)
		if errno != 0 {
			return nil, errno
		}
		n.shared = n.root.files.Open(n.f.Path, n.f.Size, v)
	}
	return n.shared, 0
}

// OnForget lets go of the node's own reader. go-fuse may call it for a
// node still in use: a read then in flight finishes on the closed reader,
// which still reads, holding nothing, and the next read makes a new one.
func (n *fileNode) OnForget() { n.dropShared() }

// dropShared closes the node's own reader, if it has one.
func (n *fileNode) dropShared() {
	n.sharedMu.Lock()
	defer n.sharedMu.Unlock()
	if n.shared != nil {
		n.shared.Close()
		n.shared = nil
	}
}

// needsView says whether the file is served as a view rather than as
// stored.
func (n *fileNode) needsView() bool { return serve.NeedsView(n.f, n.rename) }

// prepare makes the node ready to report its attributes: for a file served
// as a view whose size is not the stored one, it learns the size (building
// the view unless the size is cached).
func (n *fileNode) prepare(ctx context.Context) syscall.Errno {
	if n.f.Size < 0 {
		// No file has that size, and a kernel told it would read the file
		// as empty without asking (an open is not always asked for).
		n.root.logf("%s: the log gives size %d for %s", n.where(), n.f.Size, n.f.Path)
		return syscall.EIO
	}
	size, err := n.root.files.ServedSize(ctx, serve.Sized{File: n.f, Rename: n.rename, SameSize: n.sameSize})
	if err != nil {
		return n.viewFailed(err)
	}
	n.size = size
	return 0
}

// servedView checks the stored size once (a clearer error than a view's)
// and returns the view the node's file is served as; nil for a file served
// as stored, including one whose view turned out to change nothing (a
// Rename that keeps its columns as they are), which later opens then skip.
func (n *fileNode) servedView(ctx context.Context) (*parquetview.View, syscall.Errno) {
	if errno := n.checkSizeOnce(); errno != 0 || !n.needsView() || n.asStored.Load() {
		return nil, errno
	}
	v, errno := n.view(ctx)
	if errno != 0 {
		return nil, errno
	}
	if v.Unchanged() {
		n.asStored.Store(true)
		return nil, 0
	}
	return v, 0
}

// view returns the view of the node's file, logging a failure.
func (n *fileNode) view(ctx context.Context) (*parquetview.View, syscall.Errno) {
	v, err := n.root.files.View(ctx, n.f, n.rename)
	if err != nil {
		return nil, n.viewFailed(err)
	}
	if v.Kept != nil && n.keptLogged.CompareAndSwap(false, true) {
		n.root.logf("%s: %v", n.where(), v.Kept)
	}
	if v.Size() != n.size {
		// The kernel has another size: a rebuilt view differs, or a
		// renamed footer came out longer than the stored one.
		n.root.logf("%s: served size changed from %d to %d", n.where(), n.size, v.Size())
		return nil, syscall.EIO
	}
	return v, 0
}

func (n *fileNode) viewFailed(err error) syscall.Errno {
	if !isCancel(err) {
		n.root.logOnce("%s: cannot serve the file as a view (rows deleted, columns renamed): %v", n.where(), err)
	}
	return n.readErrno(err)
}

// checkSize refuses a file on this machine (LocalFiler) whose stored size
// is not the log's: truncated, appended to or replaced since it was
// committed (prepare refuses a negative size). Serving it would give
// bytes that are not the table's. It returns the local file it opened to
// look (nil for others), which the open may hand to the kernel.
func (n *fileNode) checkSize() (*os.File, syscall.Errno) {
	lf, ok := n.root.table.(LocalFiler)
	if !ok {
		return nil, 0
	}
	open, ok := lf.LocalFile(n.f.Path)
	if !ok {
		return nil, 0
	}
	f, size, err := open()
	switch {
	case err != nil:
		n.root.logf("%s: %v", n.where(), err)
		return nil, n.readErrno(err)
	case size != n.f.Size:
		f.Close()
		n.root.logf("%s: %s is %d bytes, the log says %d: not served", n.where(), n.f.Path, size, n.f.Size)
		return nil, syscall.EIO
	}
	return f, 0
}

// checkSizeOnce is checkSize for a file not passed through, once per
// node: every block read checks the stored size again anyway.
func (n *fileNode) checkSizeOnce() syscall.Errno {
	if n.sizeChecked.Load() {
		return 0
	}
	f, errno := n.checkSize()
	if errno != 0 {
		return errno
	}
	f.Close()
	n.sizeChecked.Store(true)
	return 0
}

// readErrno is readErrno, but a file of the past whose object is gone was
// vacuumed: ENOENT, as for any name that no longer exists. A file of the
// past is one changes/<N>/removed serves, or one of an older version whose
// path latest no longer has; gone while latest still serves it, the table
// is broken: EIO.
func (n *fileNode) readErrno(err error) syscall.Errno {
	if errors.Is(err, blobstore.ErrNotFound) && (n.tree.vanishes || n.removedSince()) {
		return syscall.ENOENT
	}
	return readErrno(err)
}

// where names the file in log lines: its path in the mount.
func (n *fileNode) where() string {
	if n.tree.space != "" {
		return n.tree.space + n.name
	}
	return fmt.Sprintf("v%d/%s", n.tree.version, n.name)
}

// removedSince reports whether the file's path is not live at latest: a
// commit after its version removed it, and VACUUM may have deleted it.
func (n *fileNode) removedSince() bool {
	latest := n.root.table.Latest()
	if n.tree.version >= latest {
		return false
	}
	snap, err := n.root.table.Snapshot(n.root.ctx, latest)
	return err == nil && snap.Find(n.f.Path) == nil
}
