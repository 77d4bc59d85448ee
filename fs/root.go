package fs

import (
	"context"
	"log"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/versions/serve"
)

// root is the mount's root directory and the owner of everything the nodes
// share: the table, the options, the logger, the data files' reader
// (blocks, views) and the mount's background context. Nodes reach it through a pointer; there are no
// package globals.
type root struct {
	fusefs.Inode
	readOnlyDir

	table Table
	opts  Options
	log   *log.Logger
	said  saidLines    // lines logOnce wrote
	files *serve.Files // data file bytes: blocks, read-ahead, views

	ctx    context.Context // background work: refresher, read-ahead
	cancel context.CancelFunc

	directIO atomic.Bool  // data files open with direct I/O (Options.DirectIO, and the kernel allows mmap of them)
	noOpen   atomic.Bool  // files are opened by the kernel alone (leaveOpensToKernel)
	listings atomic.Int64 // version directory listings built (keptListing), for tests
	mounted  time.Time    // mtime of the root, v/ and latest

	latest   *latestNode
	versions *versionsNode
	history  *historyNode
	at       *atNode
	changes  *changesNode

	closeOnce sync.Once
	refresher sync.WaitGroup

	histMu   sync.Mutex
	histText []byte // GUARDED_BY(histMu): history.jsonl as of histAt
	histTime int64  // GUARDED_BY(histMu): newest timestamp in histText, ms
	histAt   int64  // GUARDED_BY(histMu): Table.Latest() when histText was made; -1 none
}

var (
	_ = (fusefs.InodeEmbedder)((*root)(nil))
	_ = (fusefs.NodeOnAdder)((*root)(nil))
	_ = (fusefs.NodeLookuper)((*root)(nil))
	_ = (fusefs.NodeReaddirer)((*root)(nil))
	_ = (fusefs.NodeGetattrer)((*root)(nil))
)

// Names of the root entries.
const (
	nameLatest   = "latest"
	nameVersions = "v"
	nameHistory  = "history.jsonl"
	nameAt       = "at"
	nameChanges  = "changes"
)

// newRoot returns the root node for t, ready for go-fuse's fs.Mount; Mount
// is the usual way in. ctx bounds the background work; Close stops it.
func newRoot(ctx context.Context, t Table, opts Options) *root {
	o := opts.withDefaults()
	r := &root{
		table:   t,
		opts:    o,
		log:     o.Logger,
		histAt:  -1,
		mounted: time.Now(),
	}
	r.ctx, r.cancel = context.WithCancel(ctx)
	so := o.serveOptions()
	lf, ok := t.(LocalFiler)
	so.FooterBlocks = !ok || !lf.HasLocalFiles()
	r.files = serve.New(r.ctx, t, so)
	r.latest = &latestNode{root: r}
	r.versions = &versionsNode{root: r}
	r.history = &historyNode{root: r}
	r.at = &atNode{root: r}
	r.changes = &changesNode{root: r}
	return r
}

// Close stops the background work and frees the block cache. The mount
// calls it when the server stops.
func (r *root) Close() {
	r.closeOnce.Do(func() {
		r.cancel()
		r.refresher.Wait()
		r.files.Close()
	})
}

// rootEntry is one fixed child of the root: the one list OnAdd and
// Readdir both use.
type rootEntry struct {
	name string
	mode uint32
	ino  uint64
	node fusefs.InodeEmbedder
}

// entries lists the root's children, sorted by name.
func (r *root) entries() []rootEntry {
	return []rootEntry{
		{nameAt, syscall.S_IFDIR, inoAt, r.at},
		{nameChanges, syscall.S_IFDIR, inoChanges, r.changes},
		{nameHistory, syscall.S_IFREG, inoHistory, r.history},
		{nameLatest, syscall.S_IFLNK, inoLatest, r.latest},
		{nameVersions, syscall.S_IFDIR, inoVersions, r.versions},
	}
}

// OnAdd builds the fixed children once the root is part of a mount.
func (r *root) OnAdd(ctx context.Context) {
	for _, e := range r.entries() {
		r.AddChild(e.name, r.NewPersistentInode(ctx, e.node, fusefs.StableAttr{Mode: e.mode, Ino: e.ino}), false)
	}
}

// Getattr reports the root directory.
func (r *root) Getattr(ctx context.Context, fh fusefs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFDIR | 0o555
	out.Ino = inoRoot
	out.Nlink = 5 // 2, plus its child directories v/, at/ and changes/
	out.SetTimes(&r.mounted, &r.mounted, &r.mounted)
	out.SetTimeout(r.opts.LatestAttrTimeout)
	return 0
}

// Lookup finds one of the fixed children, with its attributes and the short
// timeouts of things that change as the table moves.
func (r *root) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fusefs.Inode, syscall.Errno) {
	ch := r.GetChild(name)
	if ch == nil {
		return nil, syscall.ENOENT
	}
	var a fuse.AttrOut
	if errno := ch.Operations().(fusefs.NodeGetattrer).Getattr(ctx, nil, &a); errno != 0 {
		return nil, errno
	}
	out.Attr = a.Attr
	out.SetEntryTimeout(r.opts.LatestEntryTimeout)
	out.SetAttrTimeout(r.opts.LatestAttrTimeout)
	return ch, 0
}

// Readdir lists the fixed children.
func (r *root) Readdir(ctx context.Context) (fusefs.DirStream, syscall.Errno) {
	var out []fuse.DirEntry
	for _, e := range r.entries() {
		out = append(out, fuse.DirEntry{Name: e.name, Mode: e.mode, Ino: e.ino})
	}
	return fusefs.NewListDirStream(out), 0
}

// startRefresher runs the latest refresher until Close, if enabled.
func (r *root) startRefresher() {
	if r.opts.RefreshInterval < 0 {
		return
	}
	r.refresher.Add(1)
	go func() {
		defer r.refresher.Done()
		r.latest.refreshLoop(r.ctx, r.opts.RefreshInterval)
	}()
}

// logf writes one error line.
func (r *root) logf(format string, args ...any) {
	r.log.Printf("deltafs: "+format, args...)
}

// msTime converts milliseconds since the epoch to a time.
func msTime(ms int64) time.Time { return time.UnixMilli(ms) }
