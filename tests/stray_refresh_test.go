package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/versions"
)

// TestRefreshIgnoresStrayCommit: a stray commit name far past the end of
// the log, arriving after the table was opened, does not move latest (it
// could not be built: the commits below it are missing); the next real
// commit does.
func TestRefreshIgnoresStrayCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	mustCommit(t, gen, mustAdd(t, gen, "part-0.parquet", 10))
	table, _ := openTable(t, dir)
	stray := filepath.Join(dir, replay.CommitKey(9223372036854775807))
	if err := os.WriteFile(stray, []byte(`{"commitInfo":{}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if moved, err := table.Refresh(ctx, nil); err != nil || moved || table.Latest() != 1 {
		t.Fatalf("after a stray commit: moved %v, latest %d, %v; want latest 1", moved, table.Latest(), err)
	}
	mustCommit(t, gen, mustAdd(t, gen, "part-1.parquet", 10))
	if moved, err := table.Refresh(ctx, nil); err != nil || !moved || table.Latest() != 2 {
		t.Fatalf("after commit 2: moved %v, latest %d, %v; want latest 2", moved, table.Latest(), err)
	}
	if _, err := table.Snapshot(ctx, 2); err != nil {
		t.Fatal(err)
	}
}

// TestRefreshNoticesReplacedFolder: when the table folder is replaced
// (a rebuilt table moved into place) or removed, a refresh says so and
// latest stays, rather than following the folder first opened, now
// another table or none; once the folder is back, refreshes go on.
func TestRefreshNoticesReplacedFolder(t *testing.T) {
	ctx := context.Background()
	parent := t.TempDir()
	dir := filepath.Join(parent, "table")
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	table, _ := openTable(t, dir)
	rebuilt := deltagen.New(filepath.Join(parent, "table.new"))
	mustCommit(t, rebuilt, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	mustCommit(t, rebuilt, mustAdd(t, rebuilt, "part-0.parquet", 10))
	rename := func(from, to string) {
		t.Helper()
		if err := os.Rename(filepath.Join(parent, from), filepath.Join(parent, to)); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, gen, mustAdd(t, gen, "part-9.parquet", 10)) // the old table goes on, moved away
	rename("table", "table.old")
	for _, step := range []string{"removed", "replaced"} {
		if step == "replaced" {
			rename("table.new", "table")
		}
		moved, err := table.Refresh(ctx, nil)
		if moved || !errors.Is(err, blobstore.ErrRootReplaced) || !strings.Contains(err.Error(), "latest stays at v0") || table.Latest() != 0 {
			t.Errorf("folder %s: moved %v, latest %d, %v", step, moved, table.Latest(), err)
		}
	}
	rename("table", "table.new")
	rename("table.old", "table")
	if moved, err := table.Refresh(ctx, nil); err != nil || !moved || table.Latest() != 1 {
		t.Errorf("folder back: moved %v, latest %d, %v; want latest 1", moved, table.Latest(), err)
	}
}

// TestRefreshStaysOnBuildableVersion: latest moves only to a version
// whose snapshot builds. A garbage commit, or one that needs a reader
// feature deltafs lacks, leaves latest on the newest version before it,
// with an error naming why; the new version is listed before latest
// points at it.
func TestRefreshStaysOnBuildableVersion(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		bad  string // commit 4
		why  string
	}{
		{"garbage", "this is not JSON\n", "v5 cannot be read, latest stays at v3"},
		{"unknown reader feature", `{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["futureFeature"],"writerFeatures":["futureFeature"]}}` + "\n", "futureFeature"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			gen := deltagen.New(dir)
			mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
			mustCommit(t, gen, mustAdd(t, gen, "part-1.parquet", 10))
			table, _ := openTable(t, dir)
			mustCommit(t, gen, mustAdd(t, gen, "part-2.parquet", 10))
			mustCommit(t, gen, mustAdd(t, gen, "part-3.parquet", 10))
			if err := os.WriteFile(filepath.Join(dir, replay.CommitKey(4)), []byte(c.bad), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, replay.CommitKey(5)), []byte(`{"commitInfo":{}}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			moved, err := table.Refresh(ctx, func(v int64) {
				vs, verr := table.Versions(ctx)
				if verr != nil || len(vs) == 0 || vs[len(vs)-1] != v || table.Latest() != 1 {
					t.Errorf("before the move to v%d: versions %v (%v), latest %d", v, vs, verr, table.Latest())
				}
			})
			if !moved || table.Latest() != 3 || err == nil || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("moved %v, latest %d, err %v; want latest 3 and an error naming %q", moved, table.Latest(), err, c.why)
			}
			if moved, err := table.Refresh(ctx, nil); moved || table.Latest() != 3 {
				t.Fatalf("again: moved %v, latest %d, %v", moved, table.Latest(), err)
			}
		})
	}
}

// TestRefreshNoticesLogCleanup: after log cleanup removes the oldest
// commits (a checkpoint keeps the table), a refresh notices it (one HEAD
// per CleanupCheckEvery) and the versions that can no longer be rebuilt
// are no longer listed.
func TestRefreshNoticesLogCleanup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	for i := 1; i <= 3; i++ {
		mustCommit(t, gen, mustAdd(t, gen, fmt.Sprintf("part-%d.parquet", i), 5))
	}
	if _, err := gen.Checkpoint(2); err != nil {
		t.Fatal(err)
	}
	st, err := blobstore.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	table, err := versions.Open(ctx, st, versions.Options{CleanupCheckEvery: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := table.Versions(ctx); err != nil || len(vs) != 4 {
		t.Fatalf("versions %v, %v", vs, err)
	}
	if changed, err := table.Refresh(ctx, nil); err != nil || changed {
		t.Fatalf("refresh with nothing new: changed %v, %v", changed, err)
	}
	for _, v := range []int64{0, 1} {
		if err := os.Remove(filepath.Join(dir, replay.CommitKey(v))); err != nil {
			t.Fatal(err)
		}
	}
	changed, err := table.Refresh(ctx, nil)
	vs, verr := table.Versions(ctx)
	if err != nil || !changed || verr != nil || !slices.Equal(vs, []int64{2, 3}) {
		t.Fatalf("after cleanup: changed %v (%v), versions %v (%v); want [2 3]", changed, err, vs, verr)
	}
}
