package fs

import (
	"context"
	"fmt"
	"log"
	"sync/atomic"
	"time"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/deltafs/deltafs/versions/serve"
)

// Options tune a mount. The zero value of every field means its default.
type Options struct {
	// VersionEntryTimeout and VersionAttrTimeout are how long the kernel may
	// cache names and attributes inside v/<N>, which never change.
	// Default 1h.
	VersionEntryTimeout time.Duration
	VersionAttrTimeout  time.Duration
	// LatestEntryTimeout and LatestAttrTimeout are how long the kernel may
	// cache what changes as new commits land: latest, v/, history.jsonl and
	// failed lookups. Default 1s.
	LatestEntryTimeout time.Duration
	LatestAttrTimeout  time.Duration
	// RefreshInterval is how often the table is asked for new commits.
	// Default 5s; negative disables the refresher.
	RefreshInterval time.Duration
	// BlockSize is the unit of data file reads and of the block cache.
	// Default 1 MiB, right for local files; object stores want larger
	// blocks (cmd/deltafs uses 2 MiB, with ReadAhead 64 and DirectIO, for
	// s3://, gs:// and azblob://).
	BlockSize int64
	// CacheBytes is the block cache's budget. Default 256 MiB; negative
	// disables caching (concurrent reads of a block are still shared).
	CacheBytes int64
	// ReadAhead is the most blocks prefetched past a sequential reader,
	// loaded in parallel. The window starts at one block and doubles with
	// each block the reader enters in sequence; a read elsewhere resets
	// it, so random access reads no more than it asks for. Default 2;
	// negative disables read-ahead. Open files together hold at most
	// 2*(ReadAhead+2) blocks (read ahead, or being read) beyond the cache:
	// enough for two readers at full speed; more share what is left.
	ReadAhead int
	// DVCacheBytes bounds the memory of cached filtered views of files with
	// deletion vectors (footers and small re-encoded row groups). Default
	// 64 MiB.
	DVCacheBytes int64
	// CacheDir is where large re-encoded row groups of filtered views are
	// spilled (unlinked temporary files). Default os.TempDir().
	CacheDir string
	// DirectIO serves data files with direct I/O: every read comes to
	// deltafs instead of the kernel's page cache. Right for object stores,
	// whose blocks deltafs caches itself: the page cache would hold a
	// second copy of every byte, and filling it is a copy per byte that
	// limits a sequential reader (BENCHMARKS.md, "remote read"). mmap
	// keeps working through the page cache, which needs a kernel that
	// allows it (FUSE_DIRECT_IO_ALLOW_MMAP, Linux 6.6); on an older kernel
	// the mount logs so and serves through the page cache.
	DirectIO bool
	// NoPassthrough keeps the kernel from reading local data files
	// directly. By default, a plain data file of a Table that is a
	// LocalFiler is handed to the kernel at open (FUSE passthrough, Linux
	// 6.9, and a mount by root), which then reads it as fast as the file
	// itself; without that support the mount serves it as any other.
	NoPassthrough bool
	// PhysicalLayout serves the stored paths and column names instead of
	// the table as a Delta reader sees it (see versions/layout).
	PhysicalLayout bool
	// CheckFooters serves every file with the columns its footer shows it
	// lacks, whatever its stats say (layout.Options.CheckFooters).
	CheckFooters bool
	// NoXAttrs turns the user.delta.* extended attributes off. Every
	// `ls -l` asks each file for two attributes it does not have (a
	// security label, an ACL), one kernel round trip each, which no
	// answer makes the kernel remember; without extended attributes the
	// kernel stops asking at the first: `ls -lR` of 100,000 files 0.6 s
	// instead of 5 s (BENCHMARKS.md).
	NoXAttrs bool
	// NoOpen lets the kernel open files without asking deltafs (FUSE
	// no_open; directories it always opens itself, noopendir.go): an open
	// costs no round trip, and what the kernel cached of a file is kept
	// from one open to the next, which suits many opens of small files and
	// repeated queries over a table (DuckDB's count(*) over 96 files: about
	// 1.1x the local disk instead of 1.4x). In exchange reads go through the page
	// cache: no passthrough of local files, no direct I/O, so a first
	// sequential read of a large file is slower (a local one 0.2-0.3x the
	// disk's speed instead of about 0.9x: BENCHMARKS.md). It holds for the
	// whole mount: the kernel stops sending OPEN at the first ENOSYS.
	// Without NoOpen or AlwaysOpen, the mount decides (opens.go): files
	// are opened by the kernel where an open would hand it nothing.
	NoOpen bool
	// AlwaysOpen has the kernel ask deltafs to open every file, even where
	// the open hands it nothing: each open then reads ahead on its own,
	// and history.jsonl keeps one text per open.
	AlwaysOpen bool

	// MemoryLimit, when positive, is the soft memory limit the mount gives
	// the Go runtime for the process and keeps while it runs, raised with
	// what the mount holds beyond its data (serve.Files.KeepMemoryLimit).
	// Zero leaves the runtime's limit alone.
	MemoryLimit int64

	// AllowOther lets users other than the mounting one use the mount.
	AllowOther bool
	// Debug logs every FUSE request.
	Debug bool
	// Logger receives error lines (a file that cannot be read, a failed
	// refresh). Default log.Default().
	Logger *log.Logger
}

// serveOptions are the options of the mount's data file reader.
func (o Options) serveOptions() serve.Options {
	return serve.Options{
		BlockSize: o.BlockSize, CacheBytes: o.CacheBytes, ReadAhead: o.ReadAhead,
		ViewCacheBytes: o.DVCacheBytes, SpillDir: o.CacheDir,
	}
}

// MemoryBound is the most memory a mount with these options gives data
// file bytes (block cache, blocks held by readers, views), snapshots not
// counted.
func (o Options) MemoryBound() int64 { return serve.MemoryBound(o.withDefaults().serveOptions()) }

// withDefaults fills in the zero fields.
func (o Options) withDefaults() Options {
	setDur := func(d *time.Duration, def time.Duration) {
		if *d == 0 {
			*d = def
		}
	}
	setDur(&o.VersionEntryTimeout, time.Hour)
	setDur(&o.VersionAttrTimeout, time.Hour)
	setDur(&o.LatestEntryTimeout, time.Second)
	setDur(&o.LatestAttrTimeout, time.Second)
	setDur(&o.RefreshInterval, 5*time.Second)
	if o.Logger == nil {
		o.Logger = log.Default()
	}
	return o
}

// Mount mounts t read-only at dir and returns the running server. The caller
// waits on it (Server.Wait) and unmounts it (Server.Unmount). ctx bounds the
// background work of the mount (the latest refresher, read-ahead): it ends
// when ctx is cancelled or the server stops, whichever comes first.
// Cancelling ctx does not unmount.
func Mount(ctx context.Context, dir string, t Table, opts Options) (*fuse.Server, error) {
	srv, _, err := mount(ctx, dir, t, opts)
	return srv, err
}

// mount is Mount, also returning the root node (tests look inside).
func mount(ctx context.Context, dir string, t Table, opts Options) (*fuse.Server, *root, error) {
	r := newRoot(ctx, t, opts)
	o := r.opts
	neg := o.LatestEntryTimeout
	srv, err := mountTree(dir, r, &fusefs.Options{
		MountOptions: fuse.MountOptions{
			FsName:      "deltafs",
			Name:        "deltafs",
			AllowOther:  o.AllowOther,
			Debug:       o.Debug,
			DirectMount: true, // mount(2) when we may, fusermount otherwise
			// Reads of up to 1 MiB per request (the kernel's limit), not
			// 128 KiB: an eighth of the requests for a sequential reader.
			MaxWrite:     maxRead,
			MaxReadAhead: maxRead,
			// Replies are bytes in memory, never file descriptors: skip
			// go-fuse's splice attempt for each (pipe set-up, and a log
			// line for every reply larger than a pipe).
			DisableSplice: true,
			// ls -l asks every file for its security label; answer in
			// go-fuse without a trip through the node tree. Not with
			// attributes off: noXAttrFS's ENOSYS to the first ask stops
			// the kernel asking, where go-fuse's ENODATA would not.
			IgnoreSecurityLabels: !o.NoXAttrs,
			// Every path through latest or at/ reads the link (DuckDB
			// resolving a glob: ten per file): the kernel keeps its
			// target until refresh moves latest and says so
			// (latest.go); an at/ link never changes.
			EnableSymlinkCaching: true,
			ExtraCapabilities:    extraCapabilities(o),
			Options:              []string{"ro"},
			Logger:               o.Logger,
		},
		NegativeTimeout: &neg,
		Logger:          o.Logger,
	})
	if err != nil {
		r.Close()
		if hint := fuseHint(fuseDevice); hint != "" {
			err = hinted{err, hint}
		}
		return nil, nil, fmt.Errorf("mount %s: %w", dir, err)
	}
	_ = raiseReadAhead(dir, maxRead) // best effort: else 128 KiB READs
	if o.DirectIO {
		if srv.KernelSettings().Flags64()&fuse.CAP_DIRECT_IO_ALLOW_MMAP != 0 {
			r.directIO.Store(true)
		} else {
			r.logf("direct I/O off: this kernel cannot mmap files opened with direct I/O (needs Linux 6.6); reading through the page cache")
		}
	}
	if why := leaveOpensToKernel(ctx, o, t, r.directIO.Load(), srv.KernelSettings().Flags64()); why != "" {
		r.noOpen.Store(true)
		if !o.NoOpen {
			r.logf("files are opened by the kernel without asking deltafs (as with --no-open; --no-open=false asks for every open): %s", why)
		}
	}
	if o.MemoryLimit > 0 {
		r.files.KeepMemoryLimit(r.ctx, o.MemoryLimit)
	}
	// Start the refresher before anything can call Close, whose Wait must
	// not race with the refresher's Add.
	r.startRefresher()
	go func() {
		srv.Wait()
		r.Close()
	}()
	return srv, r, nil
}

// mountTree mounts the node tree at dir, as fusefs.Mount does, with directory
// opens left to the kernel (noOpendirFS).
func mountTree(dir string, r *root, opts *fusefs.Options) (*fuse.Server, error) {
	var raw fuse.RawFileSystem = noOpendirFS{fusefs.NewNodeFS(r, opts)}
	if r.opts.NoXAttrs {
		raw = noXAttrFS{raw, r.logf, new(atomic.Bool)}
	}
	srv, err := fuse.NewServer(raw, dir, &opts.MountOptions)
	if err != nil {
		return nil, err
	}
	go srv.Serve()
	if err := srv.WaitMount(); err != nil {
		return nil, err // the serve loop ends with the failed mount
	}
	return srv, nil
}

// maxRead is the largest READ request the kernel is asked to send.
const maxRead = 1 << 20

// extraCapabilities asks the kernel for what the options need beyond
// go-fuse's defaults; it grants only what it offers.
func extraCapabilities(o Options) uint64 {
	if o.DirectIO {
		return fuse.CAP_DIRECT_IO_ALLOW_MMAP
	}
	return 0
}
