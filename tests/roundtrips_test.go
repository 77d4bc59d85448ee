package tests

import (
	"context"
	iofs "io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/versions"
)

// rtLatency is the latency injected per request when counting round
// trips: enough for requests issued together to overlap, so that they
// count as one round trip, and small enough to keep the tests fast.
const rtLatency = 10 * time.Millisecond

// busyParts is the number of parts of the checkpoints of a busy log.
const busyParts = 35

// busyLog writes a bench table of 5,000 files whose log looks like a busy
// table's: a commit and a CRC file per version from 0, a checkpoint in 35
// parts every 10 versions up to version cv (the older ones stand-ins, see
// deltagen.PadLog), then tail commits and _last_checkpoint naming cv. With
// cv 8,640 and a 9-commit tail it holds over 47,000 objects.
func busyLog(t testing.TB, cv int64, tail int) (dir string, info *deltagen.BenchInfo, objects int) {
	t.Helper()
	dir = t.TempDir()
	info, err := deltagen.WriteBenchTable(dir, deltagen.BenchOptions{
		Files: 5000, Partitions: 10, CheckpointVersion: cv, TailCommits: tail, Parts: busyParts,
	})
	if err != nil {
		t.Fatal(err)
	}
	objects, err = deltagen.PadLog(dir, deltagen.PadOptions{Below: cv, CRC: true, CheckpointEvery: 10, CheckpointParts: busyParts})
	if err != nil {
		t.Fatal(err)
	}
	return dir, info, objects
}

// memStore copies the table under dir, but for the keys skip names, into a
// fresh mem:// store with the given latency per request. Listing a folder
// of 47,000 files costs fileblob a walk of the folder per page; memory
// keeps the latency the only cost, so that timings measure the access
// pattern.
func memStore(t testing.TB, dir string, latency time.Duration, skip ...string) *blobstore.Store {
	t.Helper()
	ctx := context.Background()
	st, err := blobstore.Open(ctx, "mem://", blobstore.WithLatency(latency))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var keys []string
	err = filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if key := filepath.ToSlash(rel); err == nil && !slices.Contains(skip, key) {
			keys = append(keys, key)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Written by a few goroutines: 47,000 objects one by one take seconds.
	errs := make(chan error, len(keys))
	sem := make(chan struct{}, 16)
	for _, key := range keys {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
			if err == nil {
				err = st.Write(ctx, key, data)
			}
			errs <- err
		}()
	}
	for range keys {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// coldOpen opens the table at st and builds its latest snapshot, the cost
// of a first `ls latest/`, and returns what that cost.
func coldOpen(t testing.TB, st *blobstore.Store) (*versions.Table, *replay.Snapshot, blobstore.Counts, time.Duration) {
	t.Helper()
	ctx := context.Background()
	before, start := st.Counts(), time.Now()
	table, err := versions.Open(ctx, st, versions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := table.Snapshot(ctx, table.Latest())
	if err != nil {
		t.Fatal(err)
	}
	return table, snap, st.Counts().Sub(before), time.Since(start)
}

// checkOpen checks the version and the live files a cold open found, and
// its round trips against the budget.
func checkOpen(t *testing.T, st *blobstore.Store, info *deltagen.BenchInfo, budget int64) (*versions.Table, blobstore.Counts) {
	t.Helper()
	table, snap, c, _ := coldOpen(t, st)
	if snap.Version != info.LatestVersion || int64(len(snap.Files)) != info.LiveFiles {
		t.Fatalf("v%d with %d files, want v%d with %d", snap.Version, len(snap.Files), info.LatestVersion, info.LiveFiles)
	}
	t.Logf("cold open: %d round trips, %d requests (%d GET, %d LIST), %d bytes", c.Rounds, c.Requests(), c.Gets, c.Lists, c.Bytes)
	if c.Rounds > budget {
		t.Errorf("cold open took %d sequential round trips, budget %d (%+v)", c.Rounds, budget, c)
	}
	if c.Heads != 0 {
		t.Errorf("%d HEAD requests: sizes come from listings", c.Heads)
	}
	return table, c
}

// TestOpenRoundTrips counts the sequential round trips of cold opens of
// latest (versions.Open, then the latest snapshot) against the budgets of
// the cost model, on busy logs (see busyLog).
func TestOpenRoundTrips(t *testing.T) {
	if testing.Short() {
		t.Skip("47,000-object logs: skipped with -short")
	}
	dir, info, objects := busyLog(t, 8640, 9)
	if objects < 47_000 {
		t.Fatalf("the log holds %d objects, want at least 47,000", objects)
	}

	// One copy of the log serves the first two cases: without its
	// _last_checkpoint, then with it.
	st := memStore(t, dir, rtLatency, versions.LastCheckpointKey)

	// _last_checkpoint missing: probing finds the end and the newest
	// checkpoint with rounds of parallel listings, never listing 47 pages
	// from version 0.
	t.Run("no-hint-47000-objects", func(t *testing.T) {
		table, c := checkOpen(t, st, info, 6)
		if table.Hint() != versions.HintMissing {
			t.Errorf("hint %q, want missing", table.Hint())
		}
		if c.Lists > 32 {
			t.Errorf("%d listings: probing should need fewer", c.Lists)
		}
		seg, err := table.Segment(context.Background(), table.Latest())
		if err != nil || seg.Checkpoint == nil || seg.Checkpoint.Version != 8640 {
			t.Errorf("segment %+v (%v), want checkpoint 8640", seg, err)
		}
	})

	// _last_checkpoint valid: read it; list from the checkpoint's key; read
	// the 35 parts and the 9 commits together. Then latest follows one new
	// commit with one listing and one read.
	t.Run("checkpoint-8640-tail-9", func(t *testing.T) {
		hint, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(versions.LastCheckpointKey)))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Write(context.Background(), versions.LastCheckpointKey, hint); err != nil {
			t.Fatal(err)
		}
		table, c := checkOpen(t, st, info, 4)
		if table.Hint() != versions.HintValid {
			t.Errorf("hint %q, want valid", table.Hint())
		}
		if want := int64(1 + busyParts + 9); c.Gets != want || c.Lists != 1 {
			t.Errorf("%d GETs and %d LISTs, want %d (hint, parts, commits) and 1", c.Gets, c.Lists, want)
		}
		checkRefresh(t, st, table)
	})

	// Checkpoints stopped 500 commits ago; _last_checkpoint names the
	// newest. The listing from it takes two pages (commits and CRC files);
	// the checkpoint and the 500 commits are read together.
	t.Run("500-commits-since-checkpoint", func(t *testing.T) {
		dir, info, _ := busyLog(t, 8150, 500)
		st := memStore(t, dir, rtLatency)
		_, c := checkOpen(t, st, info, 8)
		if want := int64(1 + busyParts + 500); c.Gets != want {
			t.Errorf("%d GETs, want %d (hint, parts, commits)", c.Gets, want)
		}
	})
}

// checkRefresh commits one version to st and checks that latest follows
// it in at most 2 requests: Refresh lists from the latest version on, and
// the new latest is the cached snapshot plus that commit.
func checkRefresh(t *testing.T, st *blobstore.Store, table *versions.Table) {
	t.Helper()
	data, err := deltagen.EncodeActions([]action.Action{deltagen.CommitInfo("WRITE", 1)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	next := table.Latest() + 1
	if err := st.Write(ctx, replay.CommitKey(next), data); err != nil {
		t.Fatal(err)
	}
	before := st.Counts()
	if changed, err := table.Refresh(ctx, nil); err != nil || !changed || table.Latest() != next {
		t.Fatalf("refresh: changed=%v latest=%d err=%v", changed, table.Latest(), err)
	}
	if _, err := table.Snapshot(ctx, next); err != nil {
		t.Fatal(err)
	}
	if d := st.Counts().Sub(before); d.Requests() > 2 || d.Rounds > 2 {
		t.Errorf("refresh and snapshot of the new latest cost %+v, want at most 2 requests", d)
	}
}

// TestMountedVersionCostsNoRequests: once a version directory is open,
// stat, ls -l, find and du over it cost no request: sizes and times come
// from the log.
func TestMountedVersionCostsNoRequests(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	info, err := deltagen.WriteBenchTable(dir, deltagen.BenchOptions{Files: 2000, Partitions: 10, CheckpointVersion: 40, TailCommits: 5})
	if err != nil {
		t.Fatal(err)
	}
	m := mountForTest(t, dir, fs.Options{RefreshInterval: -1})
	st, mnt := m.store, m.dir
	vdir := filepath.Join(mnt, "v", strconv.FormatInt(info.LatestVersion, 10))
	// Opening the version builds its snapshot: that is the open's cost.
	if _, err := os.ReadDir(vdir); err != nil {
		t.Fatal(err)
	}
	before := st.Counts()
	var files int
	var bytes int64
	err = filepath.WalkDir(vdir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p) // stat
		if err != nil {
			return err
		}
		if d.IsDir() {
			if _, err := os.ReadDir(p); err != nil { // ls -l lists, then stats
				return err
			}
			return nil
		}
		files++
		bytes += fi.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if int64(files) != info.LiveFiles {
		t.Errorf("%d files under %s, want %d", files, vdir, info.LiveFiles)
	}
	for _, cmd := range [][]string{{"ls", "-lR", vdir}, {"find", vdir, "-ls"}, {"du", "-sb", vdir}, {"stat", vdir}} {
		if _, err := exec.LookPath(cmd[0]); err != nil {
			t.Logf("no %s: %v", cmd[0], err)
			continue
		}
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Errorf("%s: %v: %s", strings.Join(cmd, " "), err, out)
		}
	}
	if d := st.Counts().Sub(before); d.Requests() != 0 {
		t.Errorf("stat, ls -l, find, du over %s cost %+v, want no request", vdir, d)
	}
}
