package tests

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/tests/deltagen"
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
	if moved, err := table.Refresh(ctx); err != nil || moved || table.Latest() != 1 {
		t.Fatalf("after a stray commit: moved %v, latest %d, %v; want latest 1", moved, table.Latest(), err)
	}
	mustCommit(t, gen, mustAdd(t, gen, "part-1.parquet", 10))
	if moved, err := table.Refresh(ctx); err != nil || !moved || table.Latest() != 2 {
		t.Fatalf("after commit 2: moved %v, latest %d, %v; want latest 2", moved, table.Latest(), err)
	}
	if _, err := table.Snapshot(ctx, 2); err != nil {
		t.Fatal(err)
	}
}
