package tests

import (
	"context"
	"fmt"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestTombstones: a snapshot's tombstones are the remove actions of its
// checkpoint and of the commits after it, for every kind of checkpoint
// (classic, multi-part, v2 in JSON or Parquet, with and without
// sidecars), and of a snapshot advanced from an older one. Building a
// snapshot does not read the checkpoint's removes; Tombstones does.
func TestTombstones(t *testing.T) {
	ctx := context.Background()
	kinds := map[string]func(g *deltagen.Table, v int64) error{
		"classic":           func(g *deltagen.Table, v int64) error { _, err := g.Checkpoint(v); return err },
		"multi-part":        func(g *deltagen.Table, v int64) error { _, err := g.MultiPartCheckpoint(v, 3); return err },
		"v2 json, sidecars": func(g *deltagen.Table, v int64) error { _, err := g.V2Checkpoint(v, "json", 2); return err },
		"v2 parquet, sidecars": func(g *deltagen.Table, v int64) error {
			_, err := g.V2Checkpoint(v, "parquet", 2)
			return err
		},
		"v2 parquet": func(g *deltagen.Table, v int64) error { _, err := g.V2Checkpoint(v, "parquet", 0); return err },
		"none":       func(*deltagen.Table, int64) error { return nil },
	}
	for name, checkpoint := range kinds {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			g := deltagen.New(dir)
			features := []string{"v2Checkpoint"}
			mustCommit(t, g, deltagen.Protocol(3, 7, features, features), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
			path := func(i int) string { return fmt.Sprintf("part-%03d.parquet", i) }
			var adds []action.Action
			for i := range 30 {
				adds = append(adds, deltagen.AddFile(path(i), 100, 1, nil, deltagen.Stats(0, 9)))
			}
			mustCommit(t, g, adds...)
			removes := func(lo, hi int) []action.Action {
				var out []action.Action
				for i := lo; i < hi; i++ {
					out = append(out, deltagen.Remove(path(i), 2))
				}
				return out
			}
			mustCommit(t, g, removes(0, 10)...)
			v := mustCommit(t, g, removes(10, 14)...)
			if err := checkpoint(g, v); err != nil {
				t.Fatal(err)
			}
			mustCommit(t, g, removes(14, 16)...)
			table, _ := openTable(t, dir)
			for _, c := range []struct{ version, live, tombstones int64 }{{4, 14, 16}, {5, 13, 17}} {
				if c.version == 5 {
					mustCommit(t, g, removes(16, 17)...)
					if _, err := table.Refresh(ctx, nil); err != nil {
						t.Fatal(err)
					}
				}
				snap, err := table.Snapshot(ctx, c.version)
				if err != nil {
					t.Fatal(err)
				}
				n, err := snap.Tombstones(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if int64(len(snap.Files)) != c.live || int64(n) != c.tombstones {
					t.Errorf("v%d: %d live files and %d tombstones, want %d and %d", c.version, len(snap.Files), n, c.live, c.tombstones)
				}
			}
		})
	}
}
