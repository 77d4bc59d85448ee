package versions

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions/layout"
)

// Store is what a table needs from blobstore.
type Store interface {
	replay.Storage
	List(ctx context.Context, dir, startAfter string, fn func(blobstore.Object) bool) error
	ListPage(ctx context.Context, dir, startAfter string) ([]blobstore.Object, bool, error)
	Stat(ctx context.Context, key string) (blobstore.Object, error)
	Location() string
}

// rootChecker is a Store that can tell that the table it was opened at
// is no longer there (blobstore.Store.CheckRoot): a refresh then stops,
// as moving on with what the store still reads would serve another table
// than the one at that path.
type rootChecker interface{ CheckRoot() error }

// Table is an opened Delta table. It is safe for concurrent use.
//
// Lock order: mu is never held across storage I/O.
type Table struct {
	st    Store
	root  string
	snaps *snapshotCache

	mu       sync.Mutex
	files    []replay.LogFile // GUARDED_BY(mu); recognised log files, sorted by key
	complete bool             // GUARDED_BY(mu); files holds the whole log, not only its tail
	latest   int64            // GUARDED_BY(mu)
	known    int64            // GUARDED_BY(mu); newest version Versions shows: latest, or one about to be
	hint     HintState        // GUARDED_BY(mu)
	hintAt   int64            // GUARDED_BY(mu); the version _last_checkpoint names, or -1
	hintWhy  error            // GUARDED_BY(mu); why _last_checkpoint was not used, or nil
	ict      map[int64]int64  // GUARDED_BY(mu); in-commit timestamps read so far, by version
	// GUARDED_BY(mu); checkpoints a snapshot was rebuilt without, and why
	passedOver map[int64]error
	derived    *derived // GUARDED_BY(mu); from files and known, once
	// GUARDED_BY(mu); the versions History described, without their
	// instants: a commit never changes
	described map[int64]Commit

	pinned       bool          // GUARDED_BY(mu); Pin: latest never moves
	cleanupEvery time.Duration // immutable
	cleanupAt    time.Time     // GUARDED_BY(mu); when the next cleanup check is due
}

// Options tune a Table.
type Options struct {
	// SnapshotCacheBytes bounds the memory of cached snapshots.
	SnapshotCacheBytes int64
	// CleanupCheckEvery is how often Refresh checks whether log cleanup
	// removed the oldest files it knows (one HEAD of one object), so that
	// Versions stops listing versions that can no longer be rebuilt.
	// Default 1 minute; negative never.
	CleanupCheckEvery time.Duration
}

// Open finds the latest version of the table at st, reading as little of
// the log as the cost model allows. It does not build a snapshot.
func Open(ctx context.Context, st Store, opts Options) (*Table, error) {
	t := &Table{st: st, root: st.Location(), snaps: newSnapshotCache(opts.SnapshotCacheBytes), ict: map[int64]int64{}, passedOver: map[int64]error{},
		cleanupEvery: opts.CleanupCheckEvery}
	if t.cleanupEvery == 0 {
		t.cleanupEvery = time.Minute
	}
	t.cleanupAt = time.Now().Add(t.cleanupEvery)
	if err := t.open(ctx); err != nil {
		return nil, fmt.Errorf("open %s: %w", st.Location(), err)
	}
	return t, nil
}

func (t *Table) open(ctx context.Context) error {
	hintVersion, hint, hintWhy, err := readLastCheckpoint(ctx, t.st)
	if err != nil {
		return err
	}
	var files []replay.LogFile
	complete := false
	if hint == HintValid {
		files, err = listFrom(ctx, t.st, startKey(hintVersion))
		if err != nil {
			return err
		}
		switch c := newestCheckpoint(files, maxVersion(files)); {
		case c < hintVersion:
			hint = HintCorrupt
			hintWhy = fmt.Errorf("it names v%d, which has no complete checkpoint", hintVersion)
		case c > hintVersion:
			hint = HintStale
		}
		if hint == HintCorrupt && len(files) > 0 {
			// The listing is still the tail of the log from the hint on.
			if files, complete, err = fromTail(ctx, t.st, files, hintVersion); err != nil {
				return err
			}
		}
	}
	if len(files) == 0 {
		if files, complete, err = t.locate(ctx); err != nil {
			return err
		}
	}
	// As Delta readers do, the newest version listed is latest, and a gap
	// below it is an error when that version is built.
	latest := maxVersion(files)
	if latest < 0 {
		return noLogError(ctx, t.st, t.root)
	}
	t.mu.Lock()
	t.files, t.complete, t.latest, t.known = merge(files, nil), complete, latest, latest
	t.hint, t.hintAt, t.hintWhy = hint, hintVersion, hintWhy
	t.mu.Unlock()
	return nil
}

// Location is the table root URL.
func (t *Table) Location() string { return t.root }

// Latest is the newest version known, without I/O.
func (t *Table) Latest() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.latest
}

// Pin makes v the table's latest version for good, as if the log ended
// there: Versions, History, AsOf and Changes go no further, and Refresh
// never moves it (a mount as of a version). v must not be past latest.
func (t *Table) Pin(v int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if v > t.latest {
		return fmt.Errorf("version %d: the log ends at version %d", v, t.latest)
	}
	t.latest, t.known, t.pinned = v, v, true
	return nil
}

// Hint says what became of _last_checkpoint when the table was opened.
func (t *Table) Hint() HintState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hint
}

// HintProblem says why _last_checkpoint was not used when the table was
// opened (it could not be read, or names no checkpoint), or nil.
func (t *Table) HintProblem() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hintWhy
}

// HintVersion is the version _last_checkpoint named when the table was
// opened, or -1 when it was missing or unreadable.
func (t *Table) HintVersion() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hintAt
}

// LogFiles returns the whole listing of the log (listing it once if only its
// tail is known yet).
func (t *Table) LogFiles(ctx context.Context) ([]replay.LogFile, error) {
	t.mu.Lock()
	files, complete := t.files, t.complete
	t.mu.Unlock()
	if complete {
		return files, nil
	}
	all, err := listFrom(ctx, t.st, "")
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", replay.LogDir, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.files, t.complete = merge(t.files, all), true
	return t.files, nil
}

// Versions lists the versions that can be rebuilt, ascending. The slice is
// shared: callers do not modify it.
func (t *Table) Versions(ctx context.Context) ([]int64, error) {
	d, err := t.current(ctx)
	if err != nil {
		return nil, err
	}
	return slices.Clip(d.versions), nil
}

// Segment names the files that make up version v.
func (t *Table) Segment(ctx context.Context, v int64) (*replay.LogSegment, error) {
	t.mu.Lock()
	files := t.files
	t.mu.Unlock()
	seg, err := replay.NewLogSegment(files, v)
	if err == nil {
		return seg, nil
	}
	// The tail listing may not reach back far enough for an old version.
	if files, err = t.LogFiles(ctx); err != nil {
		return nil, err
	}
	return replay.NewLogSegment(files, v)
}

// maxAdvance bounds how many commits are applied to a cached snapshot
// instead of rebuilding from the newest checkpoint.
const maxAdvance = 100

// Snapshot returns the state at version v, building it on first use: from a
// cached older snapshot plus the commits since, when one is close enough,
// else from the newest checkpoint at or below v and the commits after it.
func (t *Table) Snapshot(ctx context.Context, v int64) (*replay.Snapshot, error) {
	return t.snaps.getOrBuild(ctx, v, func(ctx context.Context) (*replay.Snapshot, error) {
		snap, err := t.build(ctx, v)
		if err != nil {
			return nil, err
		}
		// As a protocol deltafs cannot read is refused (replay), so is
		// metadata no Delta reader accepts.
		if err := layout.CheckMetadata(&snap.Metadata, &snap.Protocol); err != nil {
			return nil, fmt.Errorf("replay v%d: invalid metaData: %w", v, err)
		}
		return snap, nil
	})
}

// build builds the snapshot of version v (see Snapshot).
func (t *Table) build(ctx context.Context, v int64) (*replay.Snapshot, error) {
	seg, err := t.Segment(ctx, v)
	if err != nil {
		return nil, err
	}
	if base := t.snaps.nearestBelow(v, maxAdvance); base != nil && (seg.Checkpoint == nil || seg.Checkpoint.Version <= base.Version) {
		var commits []replay.LogFile
		for _, c := range seg.Commits {
			if c.Version > base.Version {
				commits = append(commits, c)
			}
		}
		if int64(len(commits)) == v-base.Version {
			return replay.Advance(ctx, t.st, base, commits, t.root)
		}
	}
	snap, err := replay.Build(ctx, t.st, seg, t.root)
	if errors.Is(err, replay.ErrCheckpoint) {
		// The commits are the log; a checkpoint only shortens it. When
		// the commits below a broken checkpoint are still there, the
		// version is rebuilt from an older checkpoint or from commit 0.
		if older, serr := t.segmentWithout(ctx, v, seg.Checkpoint.Version); serr == nil {
			if snap, berr := replay.Build(ctx, t.st, older, t.root); berr == nil {
				t.mu.Lock()
				t.passedOver[seg.Checkpoint.Version] = err
				t.mu.Unlock()
				return snap, nil
			}
		}
	}
	return snap, err
}

// PassedOver returns the checkpoints a snapshot was rebuilt without, as
// unusable (unreadable, truncated), each with its error.
func (t *Table) PassedOver() map[int64]error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.passedOver)
}

// segmentWithout names the files of version v as if the checkpoints at
// version cp and above were not there.
func (t *Table) segmentWithout(ctx context.Context, v, cp int64) (*replay.LogSegment, error) {
	files, err := t.LogFiles(ctx)
	if err != nil {
		return nil, err
	}
	kept := make([]replay.LogFile, 0, len(files))
	for _, f := range files {
		if f.Kind != replay.CheckpointFile || f.Version < cp {
			kept = append(kept, f)
		}
	}
	return replay.NewLogSegment(kept, v)
}

// Refresh lists the log after the latest known version and moves latest to
// the newest version the log reaches whose snapshot builds (so a garbage
// commit, or one that needs a reader feature deltafs lacks, leaves latest
// where it was, with an error saying why, and a later version that builds
// moves it on). The new version is listed by Versions before latest moves
// to it, and beforeMove (if set) runs in between: whatever points at the
// new latest finds it. Every CleanupCheckEvery it also notices log cleanup
// (the oldest known file gone) and lists the log again, so that Versions
// drops what can no longer be rebuilt. It reports whether latest moved or
// versions went away; an error with changed true says latest stopped short
// of the newest version.
func (t *Table) Refresh(ctx context.Context, beforeMove func(latest int64)) (changed bool, err error) {
	if rc, ok := t.st.(rootChecker); ok {
		if err := rc.CheckRoot(); err != nil {
			return false, fmt.Errorf("refresh %s: %w; latest stays at v%d: mount again to serve the folder now there", t.root, err, t.Latest())
		}
	}
	pruned, err := t.checkCleanup(ctx)
	if err != nil {
		return false, fmt.Errorf("refresh %s: %w", t.root, err)
	}
	moved, err := t.advance(ctx, beforeMove)
	return moved || pruned, err
}

// advance moves latest as Refresh says.
func (t *Table) advance(ctx context.Context, beforeMove func(latest int64)) (moved bool, err error) {
	t.mu.Lock()
	before, pinned := t.latest, t.pinned
	t.mu.Unlock()
	if pinned {
		return false, nil
	}
	files, err := listFrom(ctx, t.st, afterKey(before))
	if err != nil {
		return false, fmt.Errorf("refresh %s: %w", t.root, err)
	}
	if len(files) == 0 {
		return false, nil
	}
	t.mu.Lock()
	t.files = merge(t.files, files)
	// The newest version the log reaches, not the highest number listed:
	// a stray or half-written commit past a gap does not move latest.
	newest := replay.Head(t.files)
	t.mu.Unlock()
	if newest <= before {
		return false, nil
	}
	v, stuck := t.newestBuildable(ctx, before, newest)
	if v > before {
		t.mu.Lock()
		t.known = max(t.known, v)
		t.mu.Unlock()
		if beforeMove != nil {
			beforeMove(v)
		}
		t.mu.Lock()
		if v > t.latest {
			t.latest, moved = v, true
		}
		t.mu.Unlock()
	}
	return moved, stuck
}

// checkCleanup, when due, looks up the oldest log file known; if log
// cleanup removed it, the whole log is listed again (replacing what was
// known). It reports whether it was.
func (t *Table) checkCleanup(ctx context.Context) (bool, error) {
	t.mu.Lock()
	due := t.cleanupEvery > 0 && !time.Now().Before(t.cleanupAt) && len(t.files) > 0
	var oldest string
	if due {
		t.cleanupAt = time.Now().Add(t.cleanupEvery)
		oldest = t.files[0].Key
	}
	t.mu.Unlock()
	if !due {
		return false, nil
	}
	if _, err := t.st.Stat(ctx, oldest); !errors.Is(err, blobstore.ErrNotFound) {
		return false, nil // still there (or unknown: try again next time)
	}
	all, err := listFrom(ctx, t.st, "")
	if err != nil {
		return false, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.files, t.complete = merge(all, nil), true
	return true, nil
}

// NewestBuildable returns the newest version whose snapshot builds, and
// false when none does: latest, or one below it where a commit is missing
// or damaged (Versions goes by the listing, which cannot tell the latter).
func (t *Table) NewestBuildable(ctx context.Context) (int64, bool, error) {
	vs, err := t.Versions(ctx)
	if err != nil || len(vs) == 0 {
		return 0, false, err
	}
	floor := vs[0] - 1
	v, _ := t.newestBuildable(ctx, floor, vs[len(vs)-1])
	return v, v > floor, ctx.Err()
}

// newestBuildable returns the newest version in (floor, top] whose
// snapshot builds, or floor, and why top does not build. A version that
// fails to build (a bad commit) makes the ones after it fail too, so the
// search is a bisection: about log2(top-floor) builds, each cheap from the
// cached snapshot below it.
func (t *Table) newestBuildable(ctx context.Context, floor, top int64) (int64, error) {
	_, err := t.Snapshot(ctx, top)
	if err == nil || ctx.Err() != nil {
		if err != nil {
			return floor, err
		}
		return top, nil
	}
	why := err
	lo, hi := floor, top // lo builds (or is floor), hi does not
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if _, err := t.Snapshot(ctx, mid); err == nil {
			lo = mid
		} else if ctx.Err() != nil {
			return floor, ctx.Err()
		} else {
			hi = mid
		}
	}
	return lo, fmt.Errorf("v%d cannot be read, latest stays at v%d: %w", top, lo, why)
}
