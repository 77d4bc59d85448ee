package fs

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// versionDir is v/<N>. Its attributes come from the listing of the log, so
// that `ls -l v/` times every version without building any (it built
// every snapshot and layout: minutes on a long history); the version's
// snapshot and layout are built at the first look inside, a lookup or a
// listing, by a dirNode that serves them from then on.
type versionDir struct {
	fusefs.Inode
	readOnlyDir

	dirAttr // mtime: when committed (Table.CommitTime); nlink 1
	version int64

	// top is the tree's top directory once built. It is not an inode of
	// its own: the nodes it makes hang below this one.
	top atomic.Pointer[dirNode]
}

var (
	_ = (fusefs.InodeEmbedder)((*versionDir)(nil))
	_ = (fusefs.NodeLookuper)((*versionDir)(nil))
	_ = (fusefs.NodeGetattrer)((*versionDir)(nil))
	_ = (fusefs.NodeOpendirHandler)((*versionDir)(nil))
)

// newVersionDir returns v/<N>, committed at mtime. Its link count is 1,
// "subdirectories not counted" (as find reads it): counting them would
// need the build.
func newVersionDir(r *root, v, mtime int64) *versionDir {
	return &versionDir{dirAttr: dirAttr{root: r, ino: ino(v, kindDir, ""), nlink: 1, mtime: mtime}, version: v}
}

func (n *versionDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	top, errno := n.built(ctx)
	if errno != 0 {
		return nil, errno
	}
	return top.lookupIn(ctx, &n.Inode, name, out)
}

func (n *versionDir) OpendirHandle(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	top, errno := n.built(ctx)
	if errno != 0 {
		return nil, 0, errno
	}
	return top.OpendirHandle(ctx, flags)
}

// built returns the top directory, building the version's snapshot (the
// table caches it) and layout at the first call. A build that fails is
// tried again at the next call: storage may be back.
func (n *versionDir) built(ctx context.Context) (*dirNode, syscall.Errno) {
	if top := n.top.Load(); top != nil {
		return top, 0
	}
	fail := func(what string, err error) (*dirNode, syscall.Errno) {
		if !isCancel(err) {
			n.root.logf("%s v%d: %v", what, n.version, err)
		}
		return nil, toErrno(err)
	}
	snap, err := n.root.table.Snapshot(ctx, n.version)
	if err != nil {
		return fail("snapshot", err)
	}
	lay, err := n.root.layout(ctx, snap)
	if err != nil {
		return fail("layout of", err)
	}
	t := &tree{version: n.version, lay: lay}
	top := newDir(n.root, t, "", 0, len(lay.Entries))
	if !n.top.CompareAndSwap(nil, top) {
		return n.top.Load(), 0 // built at the same time by another call
	}
	logHidden(n.root, t, fmt.Sprintf("v%d", n.version))
	return top, 0
}
