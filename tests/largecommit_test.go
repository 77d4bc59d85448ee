package tests

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestLargeCommit: a commit larger than the pieces replay parses on every
// core gives the snapshot its files, in the commit's order, as a parse of
// it line by line does.
func TestLargeCommit(t *testing.T) {
	dir := t.TempDir()
	if err := deltagen.WriteJSONLog(dir, 1, 30000); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "_delta_log", "00000000000000000000.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 8<<20 {
		t.Fatalf("the commit is %d bytes: too small to be cut into pieces", len(data))
	}
	var want []string
	var records []int64
	if err := action.ParseLines(data, func(a *action.Action) error {
		if a.Add != nil {
			f, err := action.FileOf(a.Add, "file://"+dir)
			if err != nil {
				return err
			}
			want = append(want, f.Path)
			records = append(records, a.Add.NumRecords())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	table, _ := openTable(t, dir)
	snap, err := table.Snapshot(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range snap.Files {
		got = append(got, f.Path)
	}
	if len(want) != 30000 || !slices.Equal(got, want) {
		t.Fatalf("%d files, want %d in the commit's order", len(got), len(want))
	}
	d, err := snap.Details(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.NumRecords, records) {
		t.Error("numRecords differ from the commit's")
	}
}
