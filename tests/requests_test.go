package tests

import (
	"context"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/versions"
)

// TestOpenRequestCounts: opening the latest version of a table with a
// checkpoint at 8,640 and a 9-commit tail reads _last_checkpoint, lists one
// page from the checkpoint's key, and reads the checkpoint and the 9 commits,
// the last two at the same time. Counts are deterministic; round trips are
// measured with a small injected latency so that parallel requests overlap.
func TestOpenRequestCounts(t *testing.T) {
	dir := t.TempDir()
	info, err := deltagen.WriteBenchTable(dir, deltagen.BenchOptions{Files: 5000, Partitions: 10, CheckpointVersion: 8640, TailCommits: 9})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := blobstore.Open(ctx, dir, blobstore.WithLatency(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	table, err := versions.Open(ctx, st, versions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := table.Snapshot(ctx, table.Latest())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Version != 8649 || int64(len(snap.Files)) != info.LiveFiles {
		t.Fatalf("v%d with %d files, want v8649 with %d", snap.Version, len(snap.Files), info.LiveFiles)
	}
	c := st.Counts()
	want := blobstore.Counts{Gets: 1 + 1 + 9, Lists: 1, Heads: 0}
	if c.Gets != want.Gets || c.Lists != want.Lists || c.Heads != want.Heads {
		t.Errorf("requests %+v, want %d GETs (hint, checkpoint, 9 commits), %d LIST page, no HEAD", c, want.Gets, want.Lists)
	}
	if c.Rounds > 3 {
		t.Errorf("%d sequential round trips, want 3: hint, listing, then checkpoint and commits together", c.Rounds)
	}

	// Refreshing after one new commit lists once from the cached version,
	// and builds the new latest (so that latest only moves to a version
	// that builds) from the cached snapshot plus the one new commit.
	gen := deltagen.New(dir)
	if err := gen.CommitAt(8650, deltagen.CommitInfo("WRITE", 1)); err != nil {
		t.Fatal(err)
	}
	before := st.Counts()
	changed, err := table.Refresh(ctx, nil)
	if err != nil || !changed || table.Latest() != 8650 {
		t.Fatalf("refresh: changed=%v latest=%d err=%v", changed, table.Latest(), err)
	}
	if d := st.Counts().Sub(before); d.Requests() != 2 || d.Lists != 1 || d.Gets != 1 {
		t.Errorf("refresh cost %+v, want one listing page and the one new commit", d)
	}
	// The new latest is built already.
	before = st.Counts()
	next, err := table.Snapshot(ctx, 8650)
	if err != nil {
		t.Fatal(err)
	}
	if d := st.Counts().Sub(before); d.Requests() != 0 {
		t.Errorf("snapshot after refresh cost %+v, want none", d)
	}
	if len(next.Files) != len(snap.Files) {
		t.Errorf("%d files after an empty commit, want %d", len(next.Files), len(snap.Files))
	}
}
