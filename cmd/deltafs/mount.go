package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions"
	"github.com/spf13/pflag"
)

// mountFlags are the flags of `deltafs mount` (and `deltafs demo`).
type mountFlags struct {
	allowOther  bool
	refresh     time.Duration
	cacheMiB    int64
	cacheDir    string
	dvCacheMiB  int64
	snapMiB     int64
	blockSize   string // "" or "auto": by the location's scheme
	readAhead   int    // -1: by the location's scheme
	directIO    string // "auto" (by the location's scheme), "on" or "off"
	passthrough bool
	xattrs      bool
	noOpen      bool
	noOpenSet   bool // --no-open given, either way: else the mount decides
	layout      string
	footers     bool
	external    externalFlag
	choice      *versionChoice // --version, --at: the mount is pinned there
	nonempty    bool
	debug       bool
}

func (f *mountFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.allowOther, "allow-other", false, "let other users use the mount (needs user_allow_other in /etc/fuse.conf unless root)")
	fs.DurationVar(&f.refresh, "refresh", 5*time.Second, "how often latest looks for new commits; 0 (or below): never")
	fs.Int64Var(&f.cacheMiB, "cache-mb", 256, "memory for cached data blocks, in MiB; 0 turns the cache off")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "directory for spilled parts of files filtered by deletion vectors (default: the system temp dir)")
	fs.Int64Var(&f.dvCacheMiB, "dv-cache-mb", 64, "memory for cached views of files with deletion vectors, in MiB")
	fs.Int64Var(&f.snapMiB, "snapshot-cache-mb", 1024, "memory for cached version snapshots (about 50 bytes plus the path per live file), in MiB")
	fs.StringVar(&f.blockSize, "block-size", "auto", "unit of data file reads and of the block cache, e.g. 1MiB, 512KiB (auto: "+
		"1MiB for local tables, 2MiB for s3://, gs://, azblob://)")
	f.readAhead = -1 // auto
	fs.Var(autoCount{&f.readAhead}, "read-ahead", "most blocks read ahead, in parallel, of a sequential reader; 0 disables (auto: "+
		"2 for local tables, 64 for s3://, gs://, azblob://)")
	fs.StringVar(&f.directIO, "direct-io", "auto", "read data files past the kernel's page cache: on, off or auto "+
		"(auto: on for s3://, gs://, azblob://, whose blocks deltafs caches itself; off for local tables)")
	fs.BoolVar(&f.passthrough, "passthrough", true, "let the kernel read the plain data files of a local table, 1 MiB and larger, straight from their files "+
		"(FUSE passthrough: Linux 6.9 and a mount by root; otherwise ignored)")
	fs.BoolVar(&f.xattrs, "xattrs", false, "serve the user.delta.* extended attributes of data files (getfattr); "+
		"off, ls -l and find -ls are several times faster: the kernel stops asking each file for attributes it does not have")
	fs.BoolVar(&f.noOpen, "no-open", false, "let the kernel open files without asking deltafs (it always opens directories): no round trip per open, and cached pages kept "+
		"from one open to the next (many small files, repeated queries); reads then go through the page cache, without passthrough or direct I/O "+
		"(unset: so where an open would hand the kernel nothing, a local table none of whose files is passed through; --no-open=false: never)")
	fs.StringVar(&f.layout, "layout", "logical", "what a version directory shows: logical (the table as a Delta reader sees it: "+
		"logical column names, <column>=<value>/ partition folders) or physical (the stored files and column names)")
	fs.BoolVar(&f.footers, "check-footers", false, "read every file's footer at its first stat and serve the columns it lacks, as nulls, whatever its stats say "+
		"(files without null counts, stats counting a column the file lacks): a request per file (deltafs doctor finds such files)")
	f.external.register(fs)
	f.choice = chooseVersion(fs, "to mount as latest, for good: v/ and changes/ go no further and new commits are not looked for (a table whose latest version cannot be rebuilt mounts as of an older one)")
	fs.BoolVar(&f.nonempty, "nonempty", false, "mount over a directory that has files in it (they are hidden while mounted)")
	fs.BoolVar(&f.debug, "debug", false, "log every FUSE request")
}

// minRefresh is the shortest --refresh: each looks for a new commit
// (a listing of the log), and shorter ones only burn CPU and requests.
const minRefresh = 100 * time.Millisecond

// maxMiB is the largest value a --*-mb flag takes: 256 TiB, as much as
// the Go runtime can address for its heap on 64-bit Linux (48 address
// bits), so no budget above it could ever be filled. Larger values
// overflowed int64 once turned into bytes (9223372036854775807 became a
// negative budget: the cache silently off), or once summed into the
// mount's memory limit.
const maxMiB = 1 << 28

// check refuses flag values that parse but mean nothing.
func (f *mountFlags) check(fs *pflag.FlagSet, stderr io.Writer) error {
	f.noOpenSet = fs.Changed("no-open")
	if err := f.choice.check(fs, stderr); err != nil {
		return err
	}
	for _, mb := range []struct {
		name string
		mib  int64
	}{{"cache-mb", f.cacheMiB}, {"dv-cache-mb", f.dvCacheMiB}, {"snapshot-cache-mb", f.snapMiB}} {
		if mb.mib > maxMiB {
			return usageError(fs, stderr, "--%s %d: want at most %d (256 TiB, all a Go heap can address)", mb.name, mb.mib, maxMiB)
		}
	}
	switch {
	case f.layout != "logical" && f.layout != "physical":
		return usageError(fs, stderr, "--layout %q: want logical or physical", f.layout)
	case f.refresh > 0 && f.refresh < minRefresh:
		return usageError(fs, stderr, "--refresh %v: want %v or more, or 0 to never look", f.refresh, minRefresh)
	case f.cacheMiB < 0:
		return usageError(fs, stderr, "--cache-mb %d: want 0 (no cache) or more", f.cacheMiB)
	case f.dvCacheMiB <= 0:
		return usageError(fs, stderr, "--dv-cache-mb %d: want 1 or more", f.dvCacheMiB)
	case f.snapMiB <= 0:
		return usageError(fs, stderr, "--snapshot-cache-mb %d: want 1 or more", f.snapMiB)
	}
	if _, _, err := f.readTuning(""); err != nil {
		return usageError(fs, stderr, "%v", err)
	}
	if _, err := f.directIOFor(""); err != nil {
		return usageError(fs, stderr, "%v", err)
	}
	if f.cacheDir != "" {
		if info, err := os.Stat(f.cacheDir); err != nil || !info.IsDir() {
			return usageError(fs, stderr, "--cache-dir %s: not a directory", f.cacheDir)
		}
	}
	return nil
}

// refreshInterval and cacheBytes are the fs.Options of --refresh and
// --cache-mb, whose 0 (never, off) fs.Options spells negative.
func (f *mountFlags) refreshInterval() time.Duration {
	if f.refresh <= 0 {
		return -1
	}
	return f.refresh
}

func (f *mountFlags) cacheBytes() int64 {
	if f.cacheMiB == 0 {
		return -1
	}
	return f.cacheMiB << 20
}

// Read tuning by kind of location. Local reads are cheap: small blocks,
// little read-ahead. An object-store request costs a round trip and the
// server's per-request work, so a sequential reader's read-ahead asks for
// 16 MiB at a time (spanBytes) and keeps up to 128 MiB in flight, about
// what 20 ms per request at 2 GB/s needs: latency times bandwidth, plus
// the time the blocks in flight take to arrive (BENCHMARKS.md, "remote
// read"). Blocks are 2 MiB: what a random read fetches, and the unit of
// waste where a Parquet reader's column chunk begins and ends (8 MiB
// blocks read a column of 28 MiB files at 1.16-1.17x delta-rs's time,
// 2 MiB at 0.88-1.01x; sequential reads the same: "table read from S3").
const (
	localBlockSize  = 1 << 20
	localReadAhead  = 2
	remoteBlockSize = 2 << 20
	remoteReadAhead = 64
)

// isRemote reports whether a table location names an object store.
func isRemote(location string) bool {
	scheme, _, ok := strings.Cut(location, "://")
	if !ok {
		return false
	}
	switch strings.ToLower(scheme) {
	case "s3", "gs", "azblob":
		return true
	}
	return false
}

// readTuning returns the block size and read-ahead for a location: the
// flags if given, else the defaults for its kind.
func (f *mountFlags) readTuning(location string) (blockSize int64, readAhead int, err error) {
	blockSize, readAhead = localBlockSize, localReadAhead
	if isRemote(location) {
		blockSize, readAhead = remoteBlockSize, remoteReadAhead
	}
	if f.blockSize != "" && f.blockSize != "auto" {
		if blockSize, err = parseSize(f.blockSize); err != nil {
			return 0, 0, fmt.Errorf("--block-size: %w", err)
		}
		if blockSize < 4<<10 || blockSize > 256<<20 {
			return 0, 0, fmt.Errorf("--block-size %s: want 4KiB to 256MiB", f.blockSize)
		}
	}
	if f.readAhead >= 0 {
		readAhead = f.readAhead
	}
	if readAhead > 256 {
		return 0, 0, fmt.Errorf("--read-ahead %d: want at most 256 blocks", readAhead)
	}
	return blockSize, readAhead, nil
}

// directIOFor says whether a mount of location reads with direct I/O.
func (f *mountFlags) directIOFor(location string) (bool, error) {
	switch f.directIO {
	case "", "auto":
		return isRemote(location), nil
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, fmt.Errorf("--direct-io %q: want on, off or auto", f.directIO)
}

// parseSize reads a byte count: a plain number, or one with a binary unit
// (K, KiB, M, MiB, G, GiB; any case, KB and MB taken as KiB and MiB).
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	num := strings.TrimRight(t, "kmgib")
	shift := 0
	switch strings.TrimSuffix(strings.TrimSuffix(t[len(num):], "b"), "i") {
	case "":
	case "k":
		shift = 10
	case "m":
		shift = 20
	case "g":
		shift = 30
	default:
		return 0, fmt.Errorf("%q: unknown unit (use KiB, MiB or GiB)", s)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > 1<<40>>shift {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	return n << shift, nil
}

// memoryHeadroom is what a mount needs beyond its data and snapshots: the
// runtime, listings, requests in flight.
const memoryHeadroom = 128 << 20

// memoryLimit is the soft memory limit a mount gives the Go runtime
// (fs.Options.MemoryLimit): the bound on data file bytes, twice the latest
// snapshot, and headroom; none when GOMEMLIMIT sets one.
func memoryLimit(opts fs.Options, snap *replay.Snapshot) int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	return opts.MemoryBound() + 2*snap.MemoryBytes() + memoryHeadroom
}

func runMount(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	surviveClosedOutput()
	flags := pflag.NewFlagSet("mount", pflag.ContinueOnError)
	var mf mountFlags
	mf.register(flags)
	if err := parseFlags(flags, args, "TABLE MOUNTPOINT", 2, 2, stdout, stderr); err != nil {
		return err
	}
	if err := mf.check(flags, stderr); err != nil {
		return err
	}
	return mountAndServe(ctx, flags.Arg(0), flags.Arg(1), mf, stdout, stderr)
}

// surviveClosedOutput keeps a serving process alive when whoever read its
// output goes away (`deltafs demo | head -1`): Go otherwise exits on
// SIGPIPE at the next line written, leaving a dead mount behind. Writes to
// the closed pipe then fail, unseen, and SIGINT or SIGTERM still unmount.
func surviveClosedOutput() { signal.Ignore(syscall.SIGPIPE) }

// mountAndServe opens the table, mounts it, prints one "ready" line and
// serves until ctx ends (SIGINT, SIGTERM), then unmounts.
func mountAndServe(ctx context.Context, location, dir string, mf mountFlags, stdout, stderr io.Writer) error {
	start := time.Now()
	blockSize, readAhead, err := mf.readTuning(location)
	if err != nil {
		return err
	}
	if readAhead == 0 {
		readAhead = -1 // fs.Options: negative disables
	}
	directIO, err := mf.directIOFor(location)
	if err != nil {
		return err
	}
	if err := checkMountpoint(dir, location, mf.nonempty); err != nil {
		return err
	}
	// Lines start with the time, then "deltafs: " (which the mount's own
	// lines carry already).
	logs := newLogSink(stderr)
	defer logs.Close()
	logger := log.New(logs, "", log.LstdFlags)
	storeLogger := log.New(logs, "deltafs: ", log.LstdFlags|log.Lmsgprefix)
	st, err := blobstore.Open(ctx, location, blobstore.WithLogf(storeLogger.Printf))
	if err != nil {
		return err
	}
	defer st.Close()
	t, err := versions.Open(ctx, st, versions.Options{SnapshotCacheBytes: mf.snapMiB << 20})
	if err != nil {
		return err
	}
	if why := t.HintProblem(); why != nil {
		logger.Printf("deltafs: %s not used, the log was listed instead: %v", versions.LastCheckpointKey, why)
	}
	v, err := mf.choice.resolve(ctx, t, stderr)
	if err != nil {
		return err
	}
	pinned := ""
	if mf.choice.chosen() {
		if err := t.Pin(v); err != nil {
			return err
		}
		pinned = ", pinned (new commits are not shown)"
	}
	// Build the latest snapshot now: an unsupported feature or a broken log
	// refuses the mount instead of surfacing later as EIO.
	snap, err := t.Snapshot(ctx, v)
	if err != nil {
		if !mf.choice.chosen() {
			err = latestBroken(ctx, t, err, readsIt)
		}
		return err
	}

	opts := fs.Options{
		AllowOther:      mf.allowOther,
		RefreshInterval: mf.refreshInterval(),
		CacheBytes:      mf.cacheBytes(),
		BlockSize:       blockSize,
		ReadAhead:       readAhead,
		DirectIO:        directIO,
		NoPassthrough:   !mf.passthrough,
		NoXAttrs:        !mf.xattrs,
		NoOpen:          mf.noOpen,
		AlwaysOpen:      mf.noOpenSet && !mf.noOpen,
		PhysicalLayout:  mf.layout == "physical",
		CheckFooters:    mf.footers,
		CacheDir:        mf.cacheDir,
		DVCacheBytes:    mf.dvCacheMiB << 20,
		Debug:           mf.debug,
		Logger:          logger,
	}
	opts.MemoryLimit = memoryLimit(opts, snap)
	storage, closeElsewhere, err := mf.external.storage(ctx, st, blobstore.WithLogf(storeLogger.Printf))
	if err != nil {
		return err
	}
	defer closeElsewhere()
	// Files not shown are counted while the kernel mounts: a pass over
	// every path, about 12 ms for a million. Said before the ready line.
	note := make(chan string, 1)
	go func() {
		if n, under := unserved(snap.Files, storage.Serves); n > 0 {
			note <- unservedNote(n, len(snap.Files), snap.Version, under)
		}
		close(note)
	}()
	table := fs.StoreTable{Table: t, Store: st, Elsewhere: storage.Elsewhere}
	if ctx.Err() != nil {
		// A signal while the table was opened: do not mount only to
		// unmount (exit 128+N, nothing mounted).
		return context.Cause(ctx)
	}
	srv, err := fs.Mount(ctx, dir, table, opts)
	if err != nil {
		return err
	}
	if s, ok := <-note; ok {
		logger.Printf("deltafs: %s", s)
	}
	if err := awaitServing(ctx, dir); err != nil {
		if uerr := srv.Unmount(); uerr != nil {
			_ = lazyUnmount(dir)
		}
		return err
	}
	fmt.Fprintf(stdout, "ready: %s mounted at %s: version %d%s, %s, in %v\n",
		location, dir, snap.Version, pinned, plural(len(snap.Files), "live file", "live files"), time.Since(start).Round(time.Millisecond))
	done := make(chan struct{})
	go func() {
		srv.Wait()
		close(done)
	}()
	select {
	case <-ctx.Done():
		if err := srv.Unmount(); err != nil {
			// Busy: detach it lazily rather than leave a dead mount behind.
			// Open files keep the connection, so do not wait for the server.
			if lerr := lazyUnmount(dir); lerr != nil {
				return fmt.Errorf("unmount %s: %w; %v", dir, err, lerr)
			}
			fmt.Fprintf(stdout, "unmounted %s (lazily: it was busy)\n", dir)
			return nil
		}
		<-done
	case <-done: // unmounted from outside (fusermount -u)
	}
	fmt.Fprintf(stdout, "unmounted %s\n", dir)
	return nil
}
