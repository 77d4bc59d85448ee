package fs

import (
	"context"
	"strconv"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/versions"
)

// atNode is at/: time travel by instant. at/<instant> is a symlink to
// ../v/<N>, N the version a Delta reader resolves for that instant (the
// newest committed at or before it, by Delta's clock: versions.AsOf). Any
// accepted spelling of an instant can be looked up; `ls at/` lists one
// entry per version an instant reaches, named by its instant in the
// canonical spelling. The answers change as commits land, so they carry
// the short timeouts of latest.
type atNode struct {
	fusefs.Inode
	readOnlyDir
	root *root
}

var (
	_ = (fusefs.InodeEmbedder)((*atNode)(nil))
	_ = (fusefs.NodeLookuper)((*atNode)(nil))
	_ = (fusefs.NodeReaddirer)((*atNode)(nil))
	_ = (fusefs.NodeGetattrer)((*atNode)(nil))
)

func (n *atNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFDIR | 0o555
	out.Ino = inoAt
	out.Nlink = 2
	t := &n.root.mounted
	out.SetTimes(t, t, t)
	out.SetTimeout(n.root.opts.LatestAttrTimeout)
	return 0
}

// Lookup resolves an instant. A name that is no instant, or one before the
// first version that can be rebuilt, does not exist.
func (n *atNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	ms, err := versions.ParseInstant(name)
	if err != nil {
		return nil, syscall.ENOENT
	}
	v, ok, err := n.root.table.AsOf(ctx, ms)
	if err != nil {
		if !isCancel(err) {
			n.root.logf("at/%s: %v", name, err)
		}
		return nil, toErrno(err)
	}
	if !ok {
		return nil, syscall.ENOENT
	}
	link := &atLink{target: "../" + nameVersions + "/" + strconv.FormatInt(v, 10), mtime: ms}
	link.fillAttr(&out.Attr)
	out.SetEntryTimeout(n.root.opts.LatestEntryTimeout)
	out.SetAttrTimeout(n.root.opts.LatestAttrTimeout)
	return n.NewInode(ctx, link, fusefs.StableAttr{Mode: syscall.S_IFLNK}), 0
}

// Readdir lists one instant per version that can be rebuilt and that an
// instant resolves to: each name leads to the version it is the instant of.
// An instant past the year 9999 (a broken log's) has no name to list.
func (n *atNode) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	inst, err := n.root.table.Instants(ctx)
	if err != nil {
		if !isCancel(err) {
			n.root.logf("at/: %v", err)
		}
		return nil, toErrno(err)
	}
	entries := make([]fuse.DirEntry, 0, len(inst))
	for _, in := range inst {
		if in.Resolves && versions.Spellable(in.Millis) {
			entries = append(entries, fuse.DirEntry{Name: versions.FormatInstant(in.Millis), Mode: syscall.S_IFLNK})
		}
	}
	return fusefs.NewListDirStream(entries), 0
}

// atLink is at/<instant>: a symlink to the version it resolves to.
type atLink struct {
	fusefs.Inode
	readOnlyNode
	target string
	mtime  int64 // the instant, ms
}

var (
	_ = (fusefs.InodeEmbedder)((*atLink)(nil))
	_ = (fusefs.NodeReadlinker)((*atLink)(nil))
	_ = (fusefs.NodeGetattrer)((*atLink)(nil))
)

func (l *atLink) Readlink(ctx context.Context) ([]byte, syscall.Errno) { return []byte(l.target), 0 }

func (l *atLink) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	l.fillAttr(&out.Attr)
	return 0
}

func (l *atLink) fillAttr(out *fuse.Attr) {
	out.Mode = syscall.S_IFLNK | 0o777
	out.Nlink = 1
	out.Size = uint64(len(l.target))
	t := msTime(l.mtime)
	out.SetTimes(&t, &t, &t)
}
