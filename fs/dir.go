package fs

import (
	"context"
	"sort"
	"strings"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/versions/layout"
)

// dirNode is a directory inside a version: v/<N> itself (prefix "") or one
// of its subdirectories (prefix "date=2024-01-01/"). It keeps no tree of its
// own. A snapshot's files are sorted by path, so the files under a prefix
// are one contiguous run files[lo:hi]; a lookup is a binary search in the
// run and a listing is one pass over it. Everything is immutable, so the
// node needs no lock.
type dirNode struct {
	fusefs.Inode
	readOnlyDir

	root    *root
	version int64
	lay     *layout.Version // how the version is served
	files   []layout.Entry  // lay.Entries: the served files, sorted by Name
	prefix  string          // path of this directory inside the version, "" or ending in '/'
	lo, hi  int             // files[lo:hi] are the files under prefix
	ino     uint64
	mtime   int64  // newest ModTime below, in ms
	nlink   uint32 // 2 + immediate subdirectories
}

var (
	_ = (fusefs.InodeEmbedder)((*dirNode)(nil))
	_ = (fusefs.NodeLookuper)((*dirNode)(nil))
	_ = (fusefs.NodeReaddirer)((*dirNode)(nil))
	_ = (fusefs.NodeGetattrer)((*dirNode)(nil))
)

// newVersionDir returns the node of v/<N> for a version's layout.
func newVersionDir(r *root, version int64, lay *layout.Version) *dirNode {
	for _, h := range lay.Hidden {
		r.logf("v%d: not shown: %s: %s", version, h.Path, h.Why)
	}
	return newDir(r, version, lay, "", 0, len(lay.Entries))
}

func newDir(r *root, version int64, lay *layout.Version, prefix string, lo, hi int) *dirNode {
	files := lay.Entries
	d := &dirNode{
		root: r, version: version, lay: lay, files: files, prefix: prefix, lo: lo, hi: hi,
		ino: ino(version, kindDir, prefix), nlink: 2,
	}
	lastSub := ""
	for i := lo; i < hi; i++ {
		e := &files[i]
		d.mtime = max(d.mtime, e.File.ModTime)
		rest := e.Name[len(prefix):]
		if k := strings.IndexByte(rest, '/'); k > 0 && rest[:k] != lastSub {
			lastSub = rest[:k]
			d.nlink++
		}
	}
	return d
}

// search returns the first index in [from, to) whose path is >= target.
func (d *dirNode) search(from, to int, target string) int {
	return from + sort.Search(to-from, func(i int) bool { return d.files[from+i].Name >= target })
}

func (d *dirNode) fillAttr(out *fuse.Attr) {
	out.Mode = syscall.S_IFDIR | 0o555
	out.Ino = d.ino
	out.Nlink = d.nlink
	out.Size = 4096
	t := msTime(d.mtime)
	out.SetTimes(&t, &t, &t)
}

func (d *dirNode) fillEntry(out *fuse.EntryOut) {
	d.fillAttr(&out.Attr)
	out.SetEntryTimeout(d.root.opts.VersionEntryTimeout)
	out.SetAttrTimeout(d.root.opts.VersionAttrTimeout)
}

// Getattr reports the directory; no storage request.
func (d *dirNode) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	d.fillAttr(&out.Attr)
	out.SetTimeout(d.root.opts.VersionAttrTimeout)
	return 0
}

// Lookup finds a data file or subdirectory. A name that is both (a file "a"
// and a file "a/b", possible in an object store) is the file.
func (d *dirNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	full := d.prefix + name
	i := d.search(d.lo, d.hi, full)
	if i < d.hi && d.files[i].Name == full {
		f := newFileNode(d.root, d.version, &d.files[i], d.lay)
		if errno := f.prepare(ctx); errno != 0 {
			return nil, errno
		}
		f.fillEntry(out)
		return d.NewInode(ctx, f, fusefs.StableAttr{Mode: syscall.S_IFREG, Ino: f.ino}), 0
	}
	sub := full + "/"
	j := d.search(i, d.hi, sub)
	if j == d.hi || !strings.HasPrefix(d.files[j].Name, sub) {
		return nil, syscall.ENOENT
	}
	k := d.search(j, d.hi, full+"0") // '0' follows '/': the end of the run under sub
	ch := newDir(d.root, d.version, d.lay, sub, j, k)
	ch.fillEntry(out)
	return d.NewInode(ctx, ch, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: ch.ino}), 0
}

// Readdir lists the directory in one pass over its run of files, skipping
// each subdirectory's run by binary search.
func (d *dirNode) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	var entries []fuse.DirEntry
	for i := d.lo; i < d.hi; {
		rest := d.files[i].Name[len(d.prefix):]
		k := strings.IndexByte(rest, '/')
		switch {
		case k < 0:
			if rest != "" {
				entries = append(entries, fuse.DirEntry{
					Name: rest, Mode: syscall.S_IFREG, Ino: ino(d.version, kindFile, d.files[i].Name),
				})
			}
			i++
		default:
			name := rest[:k]
			next := d.search(i, d.hi, d.prefix+name+"0")
			full := d.prefix + name
			if f := d.search(d.lo, i, full); name != "" && (f == i || d.files[f].Name != full) {
				entries = append(entries, fuse.DirEntry{
					Name: name, Mode: syscall.S_IFDIR, Ino: ino(d.version, kindDir, full+"/"),
				})
			}
			i = max(next, i+1)
		}
	}
	return fusefs.NewListDirStream(entries), 0
}
