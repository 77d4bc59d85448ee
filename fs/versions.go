package fs

import (
	"context"
	"strconv"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// versionsNode is v/: one directory per version the table can rebuild. Its
// listing grows as commits land, so it carries short timeouts; the version
// directories in it carry long ones.
type versionsNode struct {
	fusefs.Inode
	readOnlyDir
	root *root
}

var (
	_ = (fusefs.InodeEmbedder)((*versionsNode)(nil))
	_ = (fusefs.NodeLookuper)((*versionsNode)(nil))
	_ = (fusefs.NodeGetattrer)((*versionsNode)(nil))
	_ = (fusefs.NodeOpendirHandler)((*versionsNode)(nil))

	_ = (fusefs.FileReaddirenter)((*versionsHandle)(nil))
	_ = (fusefs.FileSeekdirer)((*versionsHandle)(nil))
	_ = (fusefs.FileLookuper)((*versionsHandle)(nil))
)

// Getattr reports v/.
func (n *versionsNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFDIR | 0o555
	out.Ino = inoVersions
	out.Nlink = 2
	t := &n.root.mounted
	out.SetTimes(t, t, t)
	out.SetTimeout(n.root.opts.LatestAttrTimeout)
	return 0
}

// entries lists the rebuildable versions as directories whose inode
// numbers are those of kind (v/<N>, changes/<N>).
func (n *versionsNode) entries(ctx context.Context, kind byte) ([]fuse.DirEntry, syscall.Errno) {
	vs, err := n.root.table.Versions(ctx)
	if err != nil {
		if !isCancel(err) {
			n.root.logf("list versions: %v", err)
		}
		return nil, toErrno(err)
	}
	entries := make([]fuse.DirEntry, len(vs))
	for i, v := range vs {
		entries[i] = fuse.DirEntry{
			Name: strconv.FormatInt(v, 10), Mode: syscall.S_IFDIR, Ino: ino(v, kind, ""), Off: uint64(i + 1),
		}
	}
	return entries, 0
}

// OpendirHandle opens v/ for listing (versionsHandle).
func (n *versionsNode) OpendirHandle(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	return openVersions(ctx, n.root, &n.Inode, kindDir)
}

// openVersions opens a directory of versions (v/, changes/) for listing
// with a handle of our own, so that READDIRPLUS does not make a node for
// every version that `ls` merely names.
func openVersions(ctx context.Context, r *root, dir *fusefs.Inode, kind byte) (fusefs.FileHandle, uint32, syscall.Errno) {
	h := &versionsHandle{root: r, dir: dir, kind: kind}
	if errno := h.Seekdir(ctx, 0); errno != 0 {
		return nil, 0, errno
	}
	return h, 0, 0
}

// versionsHandle is one open of a directory of versions: the versions as
// of opendir (or the last rewind), and a position in them.
type versionsHandle struct {
	listHandle
	root *root
	dir  *fusefs.Inode
	kind byte // of the inode numbers of the entries
}

// Seekdir moves to an offset a Readdirent returned; 0 rewinds and re-lists.
func (h *versionsHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if off == 0 {
		entries, errno := h.root.versions.entries(ctx, h.kind)
		if errno != 0 {
			return errno
		}
		h.entries = entries
	}
	return h.listHandle.Seekdir(ctx, off)
}

// entryFiller is a node that reports its own entry.
type entryFiller interface{ fillEntry(out *fuse.EntryOut) }

// Lookup serves READDIRPLUS: a directory the kernel already knows is
// returned as is; for the others it declines (the kernel then treats the
// entry as a plain dirent and looks it up when it is used).
func (h *versionsHandle) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	if ch := h.dir.GetChild(name); ch != nil {
		if d, ok := ch.Operations().(entryFiller); ok {
			d.fillEntry(out)
			return ch, 0
		}
	}
	return nil, syscall.ENOENT
}

// Lookup finds version directory v/<name>. Only canonical decimal names of
// rebuildable versions exist: "007", "-1", "+1" and "abc" do not. Its
// snapshot is built at the first look inside it (versionDir); later
// lookups reuse the node while the kernel keeps it.
func (n *versionsNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	v, ok := parseVersion(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	if ch := n.GetChild(name); ch != nil {
		if d, ok := ch.Operations().(*versionDir); ok {
			d.fillEntry(out)
			return ch, 0
		}
	}
	ms, ok, err := n.root.table.CommitTime(ctx, v)
	if err != nil {
		if !isCancel(err) {
			n.root.logf("list versions: %v", err)
		}
		return nil, toErrno(err)
	}
	if !ok {
		return nil, syscall.ENOENT
	}
	d := newVersionDir(n.root, v, ms)
	d.fillEntry(out)
	return n.NewInode(ctx, d, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: d.ino}), 0
}

// parseVersion accepts only the canonical decimal spelling of a version
// number: digits, no sign, no leading zero unless the number is 0.
func parseVersion(name string) (int64, bool) {
	if name == "" || len(name) > 19 || (name[0] == '0' && len(name) > 1) {
		return 0, false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(name, 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}
