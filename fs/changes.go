package fs

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions"
	"github.com/deltafs/deltafs/versions/layout"
)

// changesNode is changes/: for each version, what its commit did to the
// table's files, as changes/<N>/added, removed and cdc.
type changesNode struct {
	fusefs.Inode
	readOnlyDir
	root *root
}

var (
	_ = (fusefs.InodeEmbedder)((*changesNode)(nil))
	_ = (fusefs.NodeLookuper)((*changesNode)(nil))
	_ = (fusefs.NodeOpendirHandler)((*changesNode)(nil))
	_ = (fusefs.NodeGetattrer)((*changesNode)(nil))
)

// Names of a commit's directories.
const (
	nameAdded   = "added"
	nameRemoved = "removed"
	nameCDC     = "cdc"
)

// Getattr reports changes/.
func (n *changesNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFDIR | 0o555
	out.Ino = inoChanges
	out.Nlink = 2
	t := &n.root.mounted
	out.SetTimes(t, t, t)
	out.SetTimeout(n.root.opts.LatestAttrTimeout)
	return 0
}

// OpendirHandle opens changes/ for listing the versions, as v/ does.
func (n *changesNode) OpendirHandle(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	return openVersions(ctx, n.root, n.Lookup, kindChanges)
}

// Lookup finds changes/<N>, for a version whose commit the log holds. As
// for v/<N>, the commit is read, and the versions N and N-1 built, at the
// first look inside.
func (n *changesNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	v, ok := parseVersion(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	if ch := n.GetChild(name); ch != nil {
		if c, ok := ch.Operations().(*commitDir); ok {
			c.fillEntry(out)
			return ch, 0
		}
	}
	ms, ok, err := n.root.table.CommitTime(ctx, v)
	if ok {
		ok, err = n.root.table.HasCommit(ctx, v) // none for a version known from its checkpoint only
	}
	if err != nil {
		if !isCancel(err) {
			n.root.logf("list versions: %v", err)
		}
		return nil, toErrno(err)
	}
	if !ok {
		return nil, syscall.ENOENT
	}
	d := &commitDir{dirAttr: dirAttr{root: n.root, ino: ino(v, kindChanges, ""), nlink: 5, mtime: ms}, version: v}
	d.fillEntry(out)
	return n.NewInode(ctx, d, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: d.ino}), 0
}

// commitDir is changes/<N>: added/, removed/ and cdc/, each a tree served
// as a version directory is. It never changes. Its time is its commit's;
// the trees are made at the first look inside.
type commitDir struct {
	fusefs.Inode
	readOnlyDir
	dirAttr // mtime: when committed (Table.CommitTime); nlink 5
	version int64
	parts   atomic.Pointer[[3]*tree] // added, removed, cdc, once built: a node is made per lookup
}

var (
	_ = (fusefs.InodeEmbedder)((*commitDir)(nil))
	_ = (fusefs.NodeLookuper)((*commitDir)(nil))
	_ = (fusefs.NodeReaddirer)((*commitDir)(nil))
	_ = (fusefs.NodeGetattrer)((*commitDir)(nil))
)

// partNames are the names of a commitDir's parts, in its order.
var partNames = [3]string{nameAdded, nameRemoved, nameCDC}

// built returns the parts, reading the commit and building the versions
// it changed at the first call. A build that fails is tried again at the
// next call.
func (d *commitDir) built(ctx context.Context) (*[3]*tree, syscall.Errno) {
	if parts := d.parts.Load(); parts != nil {
		return parts, 0
	}
	parts, err := commitParts(ctx, d.root, d.version)
	if err != nil {
		if errors.Is(err, versions.ErrNoCommit) {
			return nil, syscall.ENOENT // gone since the lookup (log cleanup)
		}
		if !isCancel(err) {
			d.root.logf("changes of v%d: %v", d.version, err)
		}
		return nil, toErrno(err)
	}
	if !d.parts.CompareAndSwap(nil, parts) {
		return d.parts.Load(), 0
	}
	for _, t := range parts {
		logHidden(d.root, t, t.space[:len(t.space)-1])
	}
	return parts, 0
}

// commitParts reads what commit v did and lays out its three parts.
func commitParts(ctx context.Context, r *root, v int64) (*[3]*tree, error) {
	c, err := r.table.Changes(ctx, v)
	if err != nil {
		return nil, err
	}
	if c.RemovedUnknown != "" {
		r.logf("changes/%d/%s is empty: %s", c.Version, nameRemoved, c.RemovedUnknown)
	}
	var parts [3]*tree
	for i, p := range []versions.Part{c.Added, c.Removed, c.CDC} {
		var adjust func(*layout.Version)
		if partNames[i] == nameCDC {
			adjust = (*layout.Version).ForChangeData
		}
		lay, err := r.layoutOf(ctx, p.Snap, p.Parts, p.NullCounted, adjust)
		if err != nil {
			return nil, err
		}
		if p.Of != nil {
			whole := p.Of
			if err := layout.NameAsIn(lay, whole, func() ([]*replay.Partition, error) { return whole.Partitions(ctx) }, r.layoutOptions()); err != nil {
				return nil, err
			}
		}
		space := fmt.Sprintf("changes/%d/%s/", c.Version, partNames[i])
		parts[i] = &tree{version: p.Snap.Version, lay: lay, space: space, vanishes: partNames[i] == nameRemoved}
	}
	return &parts, nil
}

// Lookup finds added/, removed/ or cdc/.
func (d *commitDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	for i, pn := range partNames {
		if name != pn {
			continue
		}
		if ch := d.GetChild(name); ch != nil {
			ch.Operations().(*dirNode).fillEntry(out)
			return ch, 0
		}
		parts, errno := d.built(ctx)
		if errno != 0 {
			return nil, errno
		}
		t := parts[i]
		p := newDir(d.root, t, "", 0, len(t.lay.Entries))
		p.fillEntry(out)
		return d.NewInode(ctx, p, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: p.ino}), 0
	}
	return nil, syscall.ENOENT
}

// Readdir lists the three parts.
func (d *commitDir) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	parts, errno := d.built(ctx)
	if errno != 0 {
		return nil, errno
	}
	entries := make([]fuse.DirEntry, len(partNames))
	for i, name := range partNames {
		entries[i] = fuse.DirEntry{Name: name, Mode: syscall.S_IFDIR, Ino: parts[i].ino(kindDir, "")}
	}
	return fusefs.NewListDirStream(entries), 0
}
