package tests

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/versions"
)

// openTable opens a generated table through the local store.
func openTable(t *testing.T, dir string) (*versions.Table, *blobstore.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := blobstore.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	table, err := versions.Open(ctx, st, versions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return table, st
}

// liveKeys lists "path|dvID" of the live files a snapshot holds.
func liveKeys(t *testing.T, table *versions.Table, v int64) []string {
	t.Helper()
	snap, err := table.Snapshot(context.Background(), v)
	if err != nil {
		t.Fatalf("v%d: %v", v, err)
	}
	var keys []string
	for _, f := range snap.Files {
		keys = append(keys, f.Path+"|"+f.DV.UniqueID())
	}
	slices.Sort(keys)
	return keys
}

// expectedKeys lists "path|dvID" of the generator's own reconciled state,
// with paths decoded as the mount shows them.
func expectedKeys(t *testing.T, gen *deltagen.Table, v int64) []string {
	t.Helper()
	st, err := gen.StateAt(v)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, a := range st.Adds {
		p, err := url.PathUnescape(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, p+"|"+a.DeletionVector.UniqueID())
	}
	slices.Sort(keys)
	return keys
}

// checkAllVersions compares every version the generator committed.
func checkAllVersions(t *testing.T, table *versions.Table, gen *deltagen.Table) {
	t.Helper()
	for _, v := range gen.Versions() {
		if got, want := liveKeys(t, table, v), expectedKeys(t, gen, v); !slices.Equal(got, want) {
			t.Errorf("v%d: live files\n got %v\nwant %v", v, got, want)
		}
	}
}

func mustCommit(t *testing.T, gen *deltagen.Table, actions ...action.Action) int64 {
	t.Helper()
	v, err := gen.Commit(actions...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// commitDV commits a deletion vector on the file add added: its remove,
// and its add again with an inline vector deleting rows.
func commitDV(t *testing.T, gen *deltagen.Table, add action.Action, rows ...uint64) {
	t.Helper()
	dv, err := deltagen.InlineDV(rows)
	if err != nil {
		t.Fatal(err)
	}
	f := add.Add
	mustCommit(t, gen, deltagen.Remove(f.Path, f.ModificationTime), deltagen.AddFileDV(f.Path, f.Size, f.ModificationTime, f.PartitionValues, f.Stats, dv))
}

// writeRows writes rows as the data file name of the table at dir and
// returns its add action, with stats.
func writeRows[T any](t testing.TB, dir, name string, rows []T, stats string) action.Action {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := parquet.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return deltagen.AddFile(name, info.Size(), 1_700_000_000_000, nil, stats)
}

func mustAdd(t *testing.T, gen *deltagen.Table, path string, rows int) action.Action {
	t.Helper()
	a, err := gen.DataFileAdd(path, rows, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestV2CheckpointWithSidecarsAndDVs covers v2 checkpoints in JSON, in
// Parquet and under a classic name, with sidecars holding files with
// deletion vectors, and commits on top of each.
func TestV2CheckpointWithSidecarsAndDVs(t *testing.T) {
	for _, kind := range []string{"json", "parquet", "classic-name"} {
		t.Run(kind, func(t *testing.T) {
			gen := deltagen.New(t.TempDir())
			mustCommit(t, gen, deltagen.Protocol(3, 7, []string{"deletionVectors", "v2Checkpoint"}, []string{"deletionVectors", "v2Checkpoint"}),
				deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
				mustAdd(t, gen, "a.parquet", 10), mustAdd(t, gen, "b.parquet", 10), mustAdd(t, gen, "c.parquet", 10))
			dvs, err := gen.WriteDVFile("ab", []uint64{1, 2}, []uint64{0})
			if err != nil {
				t.Fatal(err)
			}
			a := mustAdd(t, gen, "a.parquet", 10).Add
			b := mustAdd(t, gen, "b.parquet", 10).Add
			mustCommit(t, gen, deltagen.Remove("a.parquet", 1), deltagen.Remove("b.parquet", 1),
				deltagen.AddFileDV(a.Path, a.Size, a.ModificationTime, nil, a.Stats, dvs[0]),
				deltagen.AddFileDV(b.Path, b.Size, b.ModificationTime, nil, b.Stats, dvs[1]),
				deltagen.Txn("app", 7, 1), deltagen.DomainMetadata("d", "{}", false))
			var info *deltagen.CheckpointInfo
			switch kind {
			case "classic-name":
				info, err = gen.V2ClassicCheckpoint(1, 2)
			default:
				info, err = gen.V2Checkpoint(1, kind, 2)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := gen.WriteLastCheckpointFor(info); err != nil {
				t.Fatal(err)
			}
			// A newer DV for a, and c removed, after the checkpoint.
			dvs2, err := gen.WriteDVFile("", []uint64{1, 2, 3})
			if err != nil {
				t.Fatal(err)
			}
			mustCommit(t, gen, deltagen.RemoveDV(a.Path, 2, dvs[0]),
				deltagen.AddFileDV(a.Path, a.Size, a.ModificationTime, nil, a.Stats, dvs2[0]),
				deltagen.Remove("c.parquet", 2))
			table, _ := openTable(t, gen.Dir)
			checkAllVersions(t, table, gen)
			snap, err := table.Snapshot(context.Background(), 2)
			if err != nil {
				t.Fatal(err)
			}
			if f := snap.Find("a.parquet"); f == nil || f.DeletedRows() != 3 {
				t.Errorf("a.parquet at v2: %+v, want 3 deleted rows", f)
			}
			if snap.Txns["app"].Version != 7 || snap.Domains["d"].Configuration != "{}" {
				t.Errorf("txns %v domains %v", snap.Txns, snap.Domains)
			}
			if !slices.Contains(snap.Protocol.ReaderFeatures, "v2Checkpoint") {
				t.Errorf("protocol %+v", snap.Protocol)
			}
		})
	}
}

// TestMultiPartCheckpointMissingPart: a multi-part checkpoint with a part
// gone is not complete; replay falls back to the older complete checkpoint,
// whatever _last_checkpoint says.
func TestMultiPartCheckpointMissingPart(t *testing.T) {
	dir := t.TempDir()
	gen, err := deltagen.LongLog(dir, 31, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Checkpoint(10); err != nil {
		t.Fatal(err)
	}
	info, err := gen.MultiPartCheckpoint(20, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.WriteLastCheckpointFor(info); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(info.Files[1]); err != nil {
		t.Fatal(err)
	}
	// Commits below 10 are cleaned up: only checkpoint 10 can rebuild 20.
	for v := int64(0); v < 10; v++ {
		os.Remove(gen.CommitPath(v))
	}
	table, _ := openTable(t, dir)
	if table.Hint() != versions.HintCorrupt {
		t.Errorf("_last_checkpoint names an incomplete checkpoint: hint %q, want %q", table.Hint(), versions.HintCorrupt)
	}
	got, err := table.Versions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := seq(10, 30); !slices.Equal(got, want) {
		t.Errorf("versions %v, want %v", got, want)
	}
	for _, v := range []int64{10, 20, 25, 30} {
		if got, want := liveKeys(t, table, v), expectedKeys(t, gen, v); !slices.Equal(got, want) {
			t.Errorf("v%d: %d files, want %d", v, len(got), len(want))
		}
	}
	seg, err := table.Segment(context.Background(), 25)
	if err != nil {
		t.Fatal(err)
	}
	if seg.Checkpoint == nil || seg.Checkpoint.Version != 10 {
		t.Errorf("v25 segment uses checkpoint %+v, want the one at 10", seg.Checkpoint)
	}
}

func seq(lo, hi int64) []int64 {
	var out []int64
	for v := lo; v <= hi; v++ {
		out = append(out, v)
	}
	return out
}

// TestLongLog replays 20,001 commits, with and without checkpoints and
// _last_checkpoint, and checks the listing cost of opening.
func TestLongLog(t *testing.T) {
	if testing.Short() {
		t.Skip("long log: skipped with -short")
	}
	const commits = 20_001
	for _, every := range []int{0, 1000} {
		t.Run(fmt.Sprintf("checkpoint-every-%d", every), func(t *testing.T) {
			dir := t.TempDir()
			gen, err := deltagen.LongLog(dir, commits, every)
			if err != nil {
				t.Fatal(err)
			}
			table, st := openTable(t, dir)
			if table.Latest() != commits-1 {
				t.Fatalf("latest %d", table.Latest())
			}
			snap, err := table.Snapshot(context.Background(), commits-1)
			if err != nil {
				t.Fatal(err)
			}
			st1, _ := gen.StateAt(commits - 1)
			if len(snap.Files) != len(st1.Adds) {
				t.Errorf("%d live files, want %d", len(snap.Files), len(st1.Adds))
			}
			c := st.Counts()
			if every > 0 {
				// _last_checkpoint, then one page from checkpoint 20,000.
				if c.Lists != 1 || c.Gets != 1+1+0 {
					t.Errorf("open+replay from checkpoint 20000 cost %+v, want 1 list and 2 gets", c)
				}
				// Without the hint, probing finds the tail and the
				// checkpoint with a few parallel listings, never 40
				// sequential pages from version 0.
				if err := os.Remove(filepath.Join(dir, "_delta_log", "_last_checkpoint")); err != nil {
					t.Fatal(err)
				}
				table2, st2 := openTable(t, dir)
				if table2.Hint() != versions.HintMissing {
					t.Errorf("hint %q", table2.Hint())
				}
				if _, err := table2.Snapshot(context.Background(), commits-1); err != nil {
					t.Fatal(err)
				}
				c2 := st2.Counts()
				t.Logf("without _last_checkpoint: %+v", c2)
				if c2.Rounds > 8 {
					t.Errorf("open without _last_checkpoint took %d sequential round trips", c2.Rounds)
				}
			}
		})
	}
}

// schemaPartitionedByP is SimpleSchema plus a string partition column "p"
// (a partition column must be in the schema).
const schemaPartitionedByP = `{"type":"struct","fields":[` +
	`{"name":"id","type":"long","nullable":false,"metadata":{}},` +
	`{"name":"value","type":"string","nullable":true,"metadata":{}},` +
	`{"name":"p","type":"string","nullable":true,"metadata":{}}]}`

// TestPathsEncodedAbsoluteAndEscaping: URL-encoded relative paths are
// decoded, absolute paths under the root become relative, absolute paths
// elsewhere stay external, and ".." is refused.
func TestPathsEncodedAbsoluteAndEscaping(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	inside := mustAdd(t, gen, "sub dir/abs file.parquet", 3).Add
	absDir, _ := filepath.Abs(dir)
	absURI := "file://" + deltagen.EncodePath(filepath.ToSlash(absDir)) + "/" + inside.Path
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schemaPartitionedByP, []string{"p"}, nil),
		mustAdd(t, gen, "p=a%b:c/part 0.parquet", 5),
		deltagen.AddFile(absURI, inside.Size, inside.ModificationTime, nil, inside.Stats),
		deltagen.AddFile("s3://elsewhere/t/x.parquet", 10, 1, nil, ""))
	table, _ := openTable(t, dir)
	got := liveKeys(t, table, 0)
	want := []string{"p=a%b:c/part 0.parquet|", "s3://elsewhere/t/x.parquet|", "sub dir/abs file.parquet|"}
	if !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	// history.jsonl counts the files a mount shows: not the one elsewhere.
	if h, err := table.History(context.Background()); err != nil || len(h) != 1 || h[0].Files != 2 {
		t.Errorf("history %+v, %v; want 2 files at v0 (the one in s3://elsewhere is not served)", h, err)
	}
	mustCommit(t, gen, deltagen.AddFile("s3://elsewhere/t/y.parquet", 10, 1, nil, ""), deltagen.AddFile("p=b/z.parquet", 1, 1, nil, ""))
	table, _ = openTable(t, dir)
	if h, err := table.History(context.Background()); err != nil || len(h) != 2 || h[1].Files != 3 {
		t.Errorf("history %+v, %v; want 3 files at v1", h, err)
	}
	mustCommit(t, gen, deltagen.AddFile("../outside.parquet", 1, 1, nil, ""))
	table, _ = openTable(t, dir)
	_, err := table.Snapshot(context.Background(), 2)
	if err == nil || !strings.Contains(err.Error(), "leaves the table root") {
		t.Errorf("a path with ..: want an error saying it leaves the table root, got %v", err)
	}
}

// TestCorruptLastCheckpoint: a corrupt or stale hint is ignored.
func TestCorruptLastCheckpoint(t *testing.T) {
	for _, content := range []string{"{not json", `{"version": 99}`, `{"version": 5, "size": 1}`} {
		dir := t.TempDir()
		gen, err := deltagen.LongLog(dir, 21, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gen.Checkpoint(5); err != nil {
			t.Fatal(err)
		}
		if _, err := gen.Checkpoint(15); err != nil {
			t.Fatal(err)
		}
		if err := gen.WriteLastCheckpointRaw(content); err != nil {
			t.Fatal(err)
		}
		table, _ := openTable(t, dir)
		if got, want := liveKeys(t, table, 20), expectedKeys(t, gen, 20); !slices.Equal(got, want) {
			t.Errorf("%q: %d files, want %d", content, len(got), len(want))
		}
		if seg, _ := table.Segment(context.Background(), 20); seg == nil || seg.Checkpoint == nil || seg.Checkpoint.Version != 15 {
			t.Errorf("%q: segment %+v, want checkpoint 15", content, seg)
		}
		t.Logf("%q: hint %s", content, table.Hint())
	}
}

// TestCheckpointRowGroupsWithDrops reads a checkpoint of many small row
// groups, with tombstones among the adds, under commits that remove files
// of several row groups and re-add one with a deletion vector. A build
// decodes every row group into its own window of one slice and closes the
// gaps the dropped rows leave: every version's live files, and each file's
// numRecords and partition values, must match the generator's state.
func TestCheckpointRowGroupsWithDrops(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}),
		deltagen.Metadata(schemaPartitionedByP, []string{"p"}, nil))
	name := func(i int) string { return fmt.Sprintf("p=%d/f%02d.parquet", i%3, i) }
	var adds []action.Action
	for i := 0; i < 60; i++ {
		part := map[string]*string{"p": deltagen.Str(fmt.Sprint(i % 3))}
		adds = append(adds, deltagen.AddFile(name(i), 100+int64(i), 1, part, deltagen.Stats(0, int64(i))))
	}
	mustCommit(t, gen, adds...)
	var removes []action.Action
	for i := 0; i < 60; i += 7 {
		removes = append(removes, deltagen.Remove(name(i), 2))
	}
	cpVersion := mustCommit(t, gen, removes...)
	cp, err := gen.Checkpoint(cpVersion, deltagen.WithRowGroupRows(5))
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.WriteLastCheckpointFor(cp); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, gen, deltagen.Remove(name(3), 3), deltagen.Remove(name(20), 3), deltagen.Remove(name(58), 3))
	dv := action.DeletionVector{StorageType: "i", PathOrInlineDv: "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", SizeInBytes: 40, Cardinality: 6}
	mustCommit(t, gen, deltagen.Remove(name(41), 4),
		deltagen.AddFileDV(name(41), 141, 4, map[string]*string{"p": deltagen.Str("2")}, deltagen.Stats(0, 41), dv))

	// fileNumber is the n of a file named by name(n): it has n+1 records
	// and lies in partition p=n%3.
	fileNumber := func(f replay.File) int {
		var n int
		if _, err := fmt.Sscanf(f.Path, "p=%d/f%02d.parquet", new(int), &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	checkParts := func(what string, v int64, snap *replay.Snapshot, parts []*replay.Partition) {
		for i, f := range snap.Files {
			if got, n := *parts[i].Map()["p"], fileNumber(f); got != fmt.Sprint(n%3) {
				t.Errorf("v%d %s: %s p=%s, want %d", v, f.Path, what, got, n%3)
			}
		}
	}

	// A new table per version, so that each version is built from the
	// checkpoint rather than advanced from the version before.
	for _, v := range gen.Versions() {
		table, _ := openTable(t, dir)
		if got, want := liveKeys(t, table, v), expectedKeys(t, gen, v); !slices.Equal(got, want) {
			t.Errorf("v%d: live files\n got %v\nwant %v", v, got, want)
		}
		snap, err := table.Snapshot(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		// Partition values alone first (what the mount's layout reads),
		// then all the details.
		parts, err := snap.Partitions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		checkParts("partition values alone", v, snap, parts)
		details, err := snap.Details(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		checkParts("details' partition values", v, snap, details.Partitions)
		for i, f := range snap.Files {
			if got, n := details.NumRecords[i], fileNumber(f); got != int64(n+1) {
				t.Errorf("v%d %s: numRecords %d, want %d", v, f.Path, got, n+1)
			}
		}
	}
	// One table, each version advanced from the one before: partition
	// values alone come from the older snapshot's, for the files kept.
	table, _ := openTable(t, dir)
	for _, v := range gen.Versions() {
		snap, err := table.Snapshot(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := snap.Partitions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		checkParts("advanced, partition values alone", v, snap, parts)
	}
}

// TestHistoryWithADamagedCommit: junk in an old commit (below a
// checkpoint) leaves that version and the ones up to the checkpoint
// unbuildable; history still describes every version, those with an
// error, and counts the others' files.
func TestHistoryWithADamagedCommit(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	for i := 1; i <= 6; i++ {
		mustCommit(t, gen, deltagen.AddFile(fmt.Sprintf("part-%d.parquet", i), 10, 1, nil, ""))
	}
	if _, err := gen.Checkpoint(4); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, replay.CommitKey(2)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("garbage\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	table, _ := openTable(t, dir)
	h, err := table.History(context.Background())
	if err != nil || len(h) != 7 {
		t.Fatalf("history: %d versions, %v; want 7", len(h), err)
	}
	for _, c := range h {
		damaged := c.Version >= 2 && c.Version < 4
		if (c.Error != "") != damaged || (!damaged && c.Files != int(c.Version)) {
			t.Errorf("v%d: %d files, error %q; damaged %v", c.Version, c.Files, c.Error, damaged)
		}
		// A damaged version's counts are not known; the others' are.
		if (c.Added == nil) != damaged || (c.Removed == nil) != damaged {
			t.Errorf("v%d: added %v, removed %v; damaged %v", c.Version, c.Added, c.Removed, damaged)
		}
	}
	if !strings.Contains(h[2].Error, "commit 2: line 2") {
		t.Errorf("v2's error %q does not name the line", h[2].Error)
	}

	// Junk in the newest commit: the clock (the newest version's) is not
	// known, so no version has an instant, but history still lists them.
	mustCommit(t, gen, deltagen.AddFile("part-7.parquet", 10, 1, nil, ""))
	if err := os.WriteFile(filepath.Join(dir, replay.CommitKey(7)), []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	table, _ = openTable(t, dir)
	h, err = table.History(context.Background())
	if err != nil || len(h) != 8 || h[7].Error == "" || h[6].Error != "" || h[6].Instant != nil {
		t.Fatalf("history with a damaged newest commit: %d versions, %v; want 8, v7 damaged, v6 without an instant", len(h), err)
	}
}

// TestHistoryReadsOnlyNewCommits: after a refresh, History reads the new
// commits alone (history.jsonl is made again whenever latest moves, and
// read every commit each time) and says what a new table's History says,
// files counted across the versions it kept and the ones it added.
func TestHistoryReadsOnlyNewCommits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	for i := 1; i <= 40; i++ {
		mustCommit(t, gen, deltagen.AddFile(fmt.Sprintf("part-%d.parquet", i), 10, 1, nil, ""))
	}
	table, st := openTable(t, dir)
	if _, err := table.History(ctx); err != nil {
		t.Fatal(err)
	}
	// v41 removes a file and adds one; v42 adds one.
	mustCommit(t, gen, deltagen.Remove("part-3.parquet", 2), deltagen.AddFile("part-41.parquet", 10, 2, nil, ""))
	mustCommit(t, gen, deltagen.AddFile("part-42.parquet", 10, 3, nil, ""))
	if _, err := table.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	before := st.Counts()
	got, err := table.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gets := st.Counts().Sub(before).Gets; gets > 2 {
		t.Errorf("history after two new commits read %d objects, want 2 (the new commits)", gets)
	}
	fresh, _ := openTable(t, dir)
	want, err := fresh.History(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("history kept across a refresh:\n%+v\nwant\n%+v", got, want)
	}
	if last := got[len(got)-1]; len(got) != 43 || last.Files != 41 || got[41].Removed == nil || *got[41].Removed != 1 ||
		got[41].Added == nil || *got[41].Added != 1 {
		t.Errorf("%d versions, the last %+v, v41 %+v; want 43, 41 files, v41 removing one and adding one", len(got), last, got[41])
	}
}
