package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/versions/serve"
)

// TestAbsoluteDeletionVectorPaths: a 'p' deletion vector whose URI lies
// under the table root is read from it in every spelling writers use
// (file:/p, file:///p, a bare /p, escaped or not), also when the table's
// folder has characters that URIs escape; one outside the root is refused
// with the reason, never read.
func TestAbsoluteDeletionVectorPaths(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "folder&with%special char")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gen := deltagen.New(dir)
	add, err := gen.DataFileAdd("part-0.parquet", 50, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	dvs, err := gen.WriteDVFileAbsolute("dvs/abs.bin", []uint64{1, 49})
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.ToSlash(filepath.Join(dir, "dvs", "abs.bin"))
	escaped := deltagen.EncodePath(abs)
	st, err := blobstore.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	files := serve.New(ctx, serve.StoreStorage{Store: st}, serve.Options{})
	defer files.Close()
	for _, uri := range []string{dvs[0].PathOrInlineDv, "file:" + escaped, "file://" + escaped, "file:///" + strings.TrimPrefix(escaped, "/"), escaped} {
		dv := dvs[0]
		dv.PathOrInlineDv = uri
		f := &replay.File{Path: "part-0.parquet", Size: add.Add.Size, DV: &dv}
		v, err := files.View(ctx, f, nil)
		if err != nil {
			t.Errorf("%s: %v", uri, err)
			continue
		}
		if v.Deleted != 2 || v.Rows != 48 {
			t.Errorf("%s: %d rows deleted, %d left; want 2 and 48", uri, v.Deleted, v.Rows)
		}
	}
	outside := filepath.Join(t.TempDir(), "abs.bin")
	data, _ := os.ReadFile(abs)
	if err := os.WriteFile(outside, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dv := dvs[0]
	dv.PathOrInlineDv = "file://" + filepath.ToSlash(outside)
	_, err = files.View(ctx, &replay.File{Path: "part-0.parquet", Size: add.Add.Size, DV: &dv}, nil)
	if err == nil || !strings.Contains(err.Error(), "outside the table root") {
		t.Errorf("a vector outside the root: %v; want a refusal", err)
	}
}

// TestHistoryCountsFilesWithAbsoluteVectors: history.jsonl counts a file
// whose deletion vector is named by an absolute URI like any other (the
// vector's URI is no sign of a file outside the table): re-adding it with
// a vector is one file added and one removed, removing it one removed.
func TestHistoryCountsFilesWithAbsoluteVectors(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	a := mustAdd(t, gen, "a.parquet", 20).Add
	b := mustAdd(t, gen, "b.parquet", 20).Add
	mustCommit(t, gen, deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}),
		deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
		deltagen.AddFile(a.Path, a.Size, a.ModificationTime, nil, a.Stats),
		deltagen.AddFile(b.Path, b.Size, b.ModificationTime, nil, b.Stats))
	dvs, err := gen.WriteDVFileAbsolute("dvs/abs.bin", []uint64{3})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, gen, deltagen.Remove(a.Path, 2),
		deltagen.AddFileDV(a.Path, a.Size, a.ModificationTime, nil, a.Stats, dvs[0]))
	mustCommit(t, gen, deltagen.RemoveDV(a.Path, 3, dvs[0]))
	table, _ := openTable(t, dir)
	h, err := table.History(context.Background())
	if err != nil || len(h) != 3 {
		t.Fatalf("history %+v, %v; want 3 versions", h, err)
	}
	want := [][3]int{{2, 2, 0}, {2, 1, 1}, {1, 0, 1}} // files, added, removed
	for i, c := range h {
		if c.Added == nil || c.Removed == nil {
			t.Fatalf("v%d: counts not known: %+v", c.Version, c)
		}
		if got := [3]int{c.Files, *c.Added, *c.Removed}; got != want[i] {
			t.Errorf("v%d: files, added, removed = %v; want %v", c.Version, got, want[i])
		}
	}
}

// TestChangesRemovedMatchesVectors: a remove takes out the live file of
// its path and deletion vector only (reconciliation's key), so removed/
// lists what the commit took out of the version before: not a file whose
// remove names another vector, which stays live.
func TestChangesRemovedMatchesVectors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gen := deltagen.New(dir)
	a := mustAdd(t, gen, "a.parquet", 20).Add
	dvs, err := gen.WriteDVFile("", []uint64{1}, []uint64{2})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, gen, deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}),
		deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
		deltagen.AddFileDV(a.Path, a.Size, a.ModificationTime, nil, a.Stats, dvs[0]))
	mustCommit(t, gen, deltagen.RemoveDV(a.Path, 2, dvs[1])) // another vector: removes nothing
	mustCommit(t, gen, deltagen.RemoveDV(a.Path, 3, dvs[0]))
	table, _ := openTable(t, dir)
	for v, want := range map[int64]int{1: 0, 2: 1} {
		c, err := table.Changes(ctx, v)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(c.Removed.Snap.Files); got != want {
			t.Errorf("v%d: %d files removed, want %d", v, got, want)
		}
	}
	if snap, err := table.Snapshot(ctx, 1); err != nil || len(snap.Files) != 1 {
		t.Errorf("v1 after a remove naming another vector: %v, %v; want the file still live", snap, err)
	}
}
