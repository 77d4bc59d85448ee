package fs

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

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
	_ = (fusefs.NodeReaddirer)((*changesNode)(nil))
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

// Readdir lists the versions, as v/ does.
func (n *changesNode) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	entries, errno := n.root.versions.entries(ctx, kindChanges)
	if errno != 0 {
		return nil, errno
	}
	return fusefs.NewListDirStream(entries), 0
}

// Lookup finds changes/<N>: the commit is read, and the versions N and N-1
// built, on the first lookup.
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
	c, err := n.root.table.Changes(ctx, v)
	switch {
	case errors.Is(err, versions.ErrNoCommit):
		return nil, syscall.ENOENT
	case err != nil:
		if !isCancel(err) {
			n.root.logf("changes of v%d: %v", v, err)
		}
		return nil, toErrno(err)
	}
	d, err := newCommitDir(ctx, n.root, c)
	if err != nil {
		if !isCancel(err) {
			n.root.logf("changes of v%d: %v", v, err)
		}
		return nil, toErrno(err)
	}
	d.fillEntry(out)
	return n.NewInode(ctx, d, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: d.ino}), 0
}

// commitDir is changes/<N>: added/, removed/ and cdc/, each a tree served
// as a version directory is. It never changes.
type commitDir struct {
	fusefs.Inode
	readOnlyDir
	root    *root
	version int64
	ino     uint64
	mtime   int64
	parts   [3]*tree // added, removed, cdc: a node is made per lookup
}

var (
	_ = (fusefs.InodeEmbedder)((*commitDir)(nil))
	_ = (fusefs.NodeLookuper)((*commitDir)(nil))
	_ = (fusefs.NodeReaddirer)((*commitDir)(nil))
	_ = (fusefs.NodeGetattrer)((*commitDir)(nil))
)

// partNames are the names of a commitDir's parts, in its order.
var partNames = [3]string{nameAdded, nameRemoved, nameCDC}

func newCommitDir(ctx context.Context, r *root, c *versions.Changes) (*commitDir, error) {
	d := &commitDir{root: r, version: c.Version, ino: ino(c.Version, kindChanges, "")}
	if c.RemovedUnknown != "" {
		r.logf("changes/%d/%s is empty: %s", c.Version, nameRemoved, c.RemovedUnknown)
	}
	for i, p := range []struct {
		name string
		part versions.Part
	}{{partNames[0], c.Added}, {partNames[1], c.Removed}, {partNames[2], c.CDC}} {
		var adjust func(*layout.Version)
		if p.name == nameCDC {
			adjust = (*layout.Version).ForChangeData
		}
		lay, err := r.layoutOf(ctx, p.part.Snap, p.part.Parts, p.part.NullCounted, adjust)
		if err != nil {
			return nil, err
		}
		space := fmt.Sprintf("changes/%d/%s/", c.Version, p.name)
		t := &tree{version: p.part.Snap.Version, lay: lay, space: space, vanishes: p.name == nameRemoved}
		d.parts[i] = t
		d.mtime = max(d.mtime, newTreeDir(r, t, space[:len(space)-1]).mtime) // logs what it hides, once
	}
	return d, nil
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
		t := d.parts[i]
		p := newDir(d.root, t, "", 0, len(t.lay.Entries))
		p.fillEntry(out)
		return d.NewInode(ctx, p, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: p.ino}), 0
	}
	return nil, syscall.ENOENT
}

// Readdir lists the three parts.
func (d *commitDir) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	entries := make([]fuse.DirEntry, len(partNames))
	for i, name := range partNames {
		entries[i] = fuse.DirEntry{Name: name, Mode: syscall.S_IFDIR, Ino: d.parts[i].ino(kindDir, "")}
	}
	return fusefs.NewListDirStream(entries), 0
}

func (d *commitDir) fillAttr(out *fuse.Attr) {
	out.Mode = syscall.S_IFDIR | 0o555
	out.Ino = d.ino
	out.Nlink = 5
	out.Size = 4096
	t := msTime(d.mtime)
	out.SetTimes(&t, &t, &t)
}

func (d *commitDir) fillEntry(out *fuse.EntryOut) {
	d.fillAttr(&out.Attr)
	out.SetEntryTimeout(d.root.opts.VersionEntryTimeout)
	out.SetAttrTimeout(d.root.opts.VersionAttrTimeout)
}

// Getattr reports the directory; no storage request.
func (d *commitDir) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	d.fillAttr(&out.Attr)
	out.SetTimeout(d.root.opts.VersionAttrTimeout)
	return 0
}
