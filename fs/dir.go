package fs

import (
	"context"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/versions/layout"
	"github.com/deltafs/deltafs/versions/serve"
)

// dirNode is a directory inside a version: the top of v/<N> (prefix "",
// serving the versionDir, without an inode of its own) or one of its
// subdirectories (prefix "date=2024-01-01/"). It keeps no tree of its
// own. A snapshot's files are sorted by path, so the files under a prefix
// are one contiguous run files[lo:hi]; a lookup is a binary search in the
// run (after a look where the previous one ended) and a listing is one
// pass over it. Everything but that hint and the kept listing
// (dirlisting.go) is immutable.
type dirNode struct {
	fusefs.Inode
	readOnlyDir

	dirAttr // mtime: the newest ModTime below; nlink: 2 + immediate subdirectories
	tree    *tree
	files   []layout.Entry // tree.lay.Entries: the served files, sorted by Name
	prefix  string         // path of this directory inside the tree, "" or ending in '/'
	lo, hi  int            // files[lo:hi] are the files under prefix

	// next is where the last Lookup of a file found it, plus one: a
	// READDIRPLUS looks up the files of a listing in order, and the next
	// one is there, one name compared instead of a binary search's
	// dozen or more, each a cache miss (the names lie scattered in memory).
	next atomic.Int64
	// sizedTo: the files before it have had their served sizes asked
	// for ahead of their lookups (sizeAhead).
	sizedTo atomic.Int64

	listing keptListing
}

// tree is what the nodes of one served tree of files share: a version
// directory, or one part of a commit's changes (changes.go).
type tree struct {
	version int64           // the version its files are served as
	lay     *layout.Version // how they are served
	// space tells the tree's inode numbers from those of other trees that
	// serve the same version: "" for v/<N>, "changes/<N>/added/" and so on.
	space string
	// vanishes marks files of the past (changes/<N>/removed): a missing
	// object was vacuumed (ENOENT), not a broken table (EIO).
	vanishes bool
}

// ino is the inode number of the node of a kind at a path in the tree.
func (t *tree) ino(kind byte, path string) uint64 { return ino(t.version, kind, t.space+path) }

var (
	_ = (fusefs.InodeEmbedder)((*dirNode)(nil))
	_ = (fusefs.NodeLookuper)((*dirNode)(nil))
	_ = (fusefs.NodeGetattrer)((*dirNode)(nil))
	_ = (fusefs.NodeOpendirHandler)((*dirNode)(nil))
)

// logHidden logs the first few files a tree does not show, and how many
// more (a shallow clone's tree may leave out all of its source's files);
// label names the tree.
func logHidden(r *root, t *tree, label string) {
	const named = 3
	for i, h := range t.lay.Hidden {
		if i == named {
			r.logf("%s: not shown: %d more files", label, len(t.lay.Hidden)-named)
			return
		}
		r.logf("%s: not shown: %s: %s", label, h.Path, h.Why)
	}
}

func newDir(r *root, t *tree, prefix string, lo, hi int) *dirNode {
	files := t.lay.Entries
	d := &dirNode{
		dirAttr: dirAttr{root: r, ino: t.ino(kindDir, prefix), nlink: 2},
		tree:    t, files: files, prefix: prefix, lo: lo, hi: hi,
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

// fileIndex returns the first index in [lo, hi) whose name inside the
// directory is >= name, trying where the last file lookup ended first.
func (d *dirNode) fileIndex(name string) int {
	at := func(i int) string { return d.files[i].Name[len(d.prefix):] }
	if i := int(d.next.Load()); i > d.lo && i < d.hi && at(i) == name && at(i-1) < name {
		return i
	}
	return d.lo + sort.Search(d.hi-d.lo, func(i int) bool { return at(d.lo+i) >= name })
}

// sizeAheadWindow is how many files past a listing's lookup have their
// served sizes asked for ahead (serve.Files.SizeAhead); asked again when
// fewer than half of them are left.
const sizeAheadWindow = 64

// sizeAhead asks for the served sizes of the directory's files from
// from on, up to sizeAheadWindow of them, that were not asked for yet.
// Files of subdirectories in that run are skipped: a listing of this one
// does not look them up.
func (d *dirNode) sizeAhead(from int) {
	done := int(d.sizedTo.Load())
	to := min(from+sizeAheadWindow, d.hi)
	if done >= to || done >= from+sizeAheadWindow/2 || !d.sizedTo.CompareAndSwap(int64(done), int64(to)) {
		return
	}
	var next []serve.Sized
	for i := max(done, from); i < to; i++ {
		e := &d.files[i]
		if strings.IndexByte(e.Name[len(d.prefix):], '/') >= 0 {
			continue
		}
		rename, sameSize := d.tree.lay.RenameOf(e)
		next = append(next, serve.Sized{File: e.File, Rename: rename, SameSize: sameSize})
	}
	d.root.files.SizeAhead(next)
}

// search returns the first index in [from, to) whose path is >= target.
func (d *dirNode) search(from, to int, target string) int {
	return from + sort.Search(to-from, func(i int) bool { return d.files[from+i].Name >= target })
}

// dirAttr is the attributes of a directory that never changes (v/<N>,
// changes/<N> and the directories inside them), reported with the long
// timeouts of a version.
type dirAttr struct {
	root  *root
	ino   uint64
	nlink uint32
	mtime int64 // ms
}

func (a *dirAttr) fillAttr(out *fuse.Attr) {
	out.Mode = syscall.S_IFDIR | 0o555
	out.Ino = a.ino
	out.Nlink = a.nlink
	out.Size = 4096
	t := msTime(a.mtime)
	out.SetTimes(&t, &t, &t)
}

func (a *dirAttr) fillEntry(out *fuse.EntryOut) {
	a.fillAttr(&out.Attr)
	out.SetEntryTimeout(a.root.opts.VersionEntryTimeout)
	out.SetAttrTimeout(a.root.opts.VersionAttrTimeout)
}

// Getattr reports the directory; no storage request.
func (a *dirAttr) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	a.fillAttr(&out.Attr)
	out.SetTimeout(a.root.opts.VersionAttrTimeout)
	return 0
}

// Lookup finds a data file or subdirectory. A name that is both (a file "a"
// and a file "a/b", possible in an object store) is the file.
func (d *dirNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	return d.lookupIn(ctx, &d.Inode, name, out)
}

// lookupIn is Lookup, making the node found below parent: d's own inode,
// or for the top of a version, the versionDir's (d has none).
func (d *dirNode) lookupIn(ctx context.Context, parent *fusefs.Inode, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	i := d.fileIndex(name)
	if i < d.hi && d.files[i].Name[len(d.prefix):] == name {
		if d.next.Swap(int64(i+1)) == int64(i) && i > d.lo {
			d.sizeAhead(i + 1) // the lookups of a listing, in its order
		}
		f := newFileNode(d.root, d.tree, &d.files[i])
		if errno := f.prepare(ctx); errno != 0 {
			return nil, errno
		}
		f.fillEntry(out)
		return parent.NewInode(ctx, f, fusefs.StableAttr{Mode: syscall.S_IFREG, Ino: f.ino}), 0
	}
	full := d.prefix + name
	sub := full + "/"
	j := d.search(i, d.hi, sub)
	if j == d.hi || !strings.HasPrefix(d.files[j].Name, sub) {
		return nil, syscall.ENOENT
	}
	k := d.search(j, d.hi, full+"0") // '0' follows '/': the end of the run under sub
	ch := newDir(d.root, d.tree, sub, j, k)
	ch.fillEntry(out)
	return parent.NewInode(ctx, ch, fusefs.StableAttr{Mode: syscall.S_IFDIR, Ino: ch.ino}), 0
}

// OpendirHandle opens the directory for listing (noOpendirFS opens one
// per READDIR) with the kernel told to keep the listing: a version never
// changes.
func (d *dirNode) OpendirHandle(ctx context.Context, flags uint32) (fusefs.FileHandle, uint32, syscall.Errno) {
	return &listHandle{entries: d.keptEntries()}, fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE, 0
}

// entries lists the directory in one pass over its run of files,
// skipping each subdirectory's run by binary search.
func (d *dirNode) entries() []fuse.DirEntry {
	var entries []fuse.DirEntry
	for i := d.lo; i < d.hi; {
		rest := d.files[i].Name[len(d.prefix):]
		k := strings.IndexByte(rest, '/')
		switch {
		case k < 0:
			if rest != "" {
				entries = append(entries, fuse.DirEntry{
					Name: rest, Mode: syscall.S_IFREG, Ino: d.tree.ino(kindFile, d.files[i].Name),
				})
			}
			i++
		default:
			name := rest[:k]
			next := d.search(i, d.hi, d.prefix+name+"0")
			full := d.prefix + name
			if f := d.search(d.lo, i, full); name != "" && (f == i || d.files[f].Name != full) {
				entries = append(entries, fuse.DirEntry{
					Name: name, Mode: syscall.S_IFDIR, Ino: d.tree.ino(kindDir, full+"/"),
				})
			}
			i = max(next, i+1)
		}
	}
	for i := range entries {
		entries[i].Off = uint64(i + 1)
	}
	return entries
}
