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

// entries lists the rebuildable versions (for changes/, those with a
// commit) as directories whose inode numbers are those of kind (v/<N>,
// changes/<N>).
func (n *versionsNode) entries(ctx context.Context, kind byte) ([]fuse.DirEntry, syscall.Errno) {
	vs, err := n.root.table.Versions(ctx)
	if err != nil {
		if !isCancel(err) {
			n.root.logf("list versions: %v", err)
		}
		return nil, toErrno(err)
	}
	entries := make([]fuse.DirEntry, 0, len(vs))
	for _, v := range vs {
		if kind == kindChanges {
			// changes/ lists no version known from its checkpoint only:
			// there is no commit to tell what changed.
			if ok, err := n.root.table.HasCommit(ctx, v); err != nil {
				return nil, toErrno(err)
			} else if !ok {
				continue
			}
		}
		entries = append(entries, fuse.DirEntry{
			Name: strconv.FormatInt(v, 10), Mode: syscall.S_IFDIR, Ino: ino(v, kind, ""), Off: uint64(len(entries) + 1),
		})
	}
	return entries, 0
}

// OpendirHandle opens v/ for listing (versionsHandle).
func (n *versionsNode) OpendirHandle(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	return openVersions(ctx, n.root, n.Lookup, kindDir)
}

// openVersions opens a directory of versions (v/, changes/) for listing;
// lookup is the directory's Lookup.
func openVersions(ctx context.Context, r *root, lookup lookupFunc, kind byte) (fusefs.FileHandle, uint32, syscall.Errno) {
	h := &versionsHandle{root: r, lookup: lookup, kind: kind}
	if errno := h.Seekdir(ctx, 0); errno != 0 {
		return nil, 0, errno
	}
	return h, 0, 0
}

type lookupFunc func(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno)

// versionsHandle is one open of a directory of versions: the versions as
// of opendir (or the last rewind), and a position in them.
type versionsHandle struct {
	listHandle
	root   *root
	lookup lookupFunc
	kind   byte // of the inode numbers of the entries
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

// Lookup serves READDIRPLUS by the directory's Lookup: naming and timing a
// version reads nothing and builds nothing, and the kernel gets every
// entry's attributes with the listing. `ls -l v/` of 20,000 versions took
// 1.0 s with a LOOKUP per entry after a plain listing, 0.4 s so; the cost
// is a node per version listed (about 0.7 KB), `-l` or not.
func (h *versionsHandle) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return h.lookup(ctx, name, out)
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
