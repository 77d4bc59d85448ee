package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/tests/servers"
	"github.com/deltafs/deltafs/versions"
)

// ictInfo is a commitInfo with an in-commit timestamp (first action).
func ictInfo(ms int64) action.Action {
	return action.Action{CommitInfo: &action.CommitInfo{InCommitTimestamp: &ms, Timestamp: &ms, Operation: "WRITE"}}
}

// setModTime gives commit v's file a modification time.
func setModTime(t *testing.T, dir string, v int64, ms int64) {
	t.Helper()
	when := time.UnixMilli(ms)
	if err := os.Chtimes(filepath.Join(dir, replay.CommitKey(v)), when, when); err != nil {
		t.Fatal(err)
	}
}

// checkAsOf resolves each instant and compares with want (-1: before the
// first version).
func checkAsOf(t *testing.T, table *versions.Table, cases map[int64]int64) {
	t.Helper()
	for ms, want := range cases {
		v, ok, err := table.AsOf(context.Background(), ms)
		if err != nil {
			t.Fatalf("AsOf(%d): %v", ms, err)
		}
		if (want < 0 && ok) || (want >= 0 && (!ok || v != want)) {
			t.Errorf("AsOf(%d) = %d, %v; want %d", ms, v, ok, want)
		}
	}
}

// TestTimeTravelByModificationTime: without in-commit timestamps a
// version's instant is its commit file's modification time, made strictly
// increasing (v2 written "before" v1, v4 at the same time as v3).
func TestTimeTravelByModificationTime(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	for i := 1; i <= 4; i++ {
		mustCommit(t, gen, mustAdd(t, gen, fmt.Sprintf("part-%d.parquet", i), 5))
	}
	const s = 1_700_000_000_000
	for v, ms := range []int64{s, s + 2000, s + 1500, s + 3000, s + 3000} {
		setModTime(t, dir, int64(v), ms)
	}
	table, _ := openTable(t, dir)
	inst, err := table.Instants(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{s, s + 2000, s + 2001, s + 3000, s + 3001}
	for i, in := range inst {
		if in.Millis != want[i] || in.InCommit {
			t.Errorf("v%d: instant %d (in-commit %v), want %d", in.Version, in.Millis, in.InCommit, want[i])
		}
	}
	checkAsOf(t, table, map[int64]int64{
		s - 1: -1, s: 0, s + 1999: 0, s + 2000: 1, s + 2001: 2, s + 2500: 2, s + 3000: 3, s + 3001: 4, s + 1e9: 4,
	})
}

// TestTimeTravelByInCommitTimestamps: with in-commit timestamps (from v0,
// or enabled at v3 with the enablement properties) those decide, whatever
// the files' modification times say; versions before the enablement keep
// their modification times; the property alone, without the feature in the
// protocol, is not enough.
func TestTimeTravelByInCommitTimestamps(t *testing.T) {
	const s = 1_700_000_000_000
	ictConf := func(extra map[string]string) map[string]string {
		c := map[string]string{"delta.enableInCommitTimestamps": "true"}
		for k, v := range extra {
			c[k] = v
		}
		return c
	}
	proto := deltagen.Protocol(3, 7, []string{}, []string{"inCommitTimestamp"})
	// fromV0 writes v0-v4 timed by in-commit timestamps s, s+1000, ...
	fromV0 := func(t *testing.T) (string, *deltagen.Table) {
		dir := t.TempDir()
		gen := deltagen.New(dir)
		mustCommit(t, gen, ictInfo(s), proto, deltagen.Metadata(deltagen.SimpleSchema, nil, ictConf(nil)))
		for i := int64(1); i <= 4; i++ {
			mustCommit(t, gen, ictInfo(s+i*1000), mustAdd(t, gen, fmt.Sprintf("part-%d.parquet", i), 5))
		}
		return dir, gen
	}
	t.Run("from v0", func(t *testing.T) {
		dir, _ := fromV0(t)
		for i := int64(1); i <= 4; i++ {
			setModTime(t, dir, i, s-i*1000) // the files' times contradict: ignored
		}
		table, _ := openTable(t, dir)
		checkAsOf(t, table, map[int64]int64{s - 1: -1, s: 0, s + 999: 0, s + 1000: 1, s + 3500: 3, s + 4000: 4, s + 1e9: 4})
		inst, err := table.Instants(context.Background())
		if err != nil || len(inst) != 5 || !inst[2].InCommit || inst[2].Millis != s+2000 {
			t.Errorf("instants %+v, %v", inst, err)
		}
	})
	// enabledAtV3 writes v0-v2 timed by their files (times mods), then
	// enables in-commit timestamps at v3 (s+5000) and commits v4 (s+6000).
	enabledAtV3 := func(t *testing.T, mods []int64) string {
		dir := t.TempDir()
		gen := deltagen.New(dir)
		mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
		mustCommit(t, gen, mustAdd(t, gen, "part-1.parquet", 5))
		mustCommit(t, gen, mustAdd(t, gen, "part-2.parquet", 5))
		for v, ms := range mods {
			setModTime(t, dir, int64(v), ms)
		}
		enable := map[string]string{"delta.inCommitTimestampEnablementVersion": "3", "delta.inCommitTimestampEnablementTimestamp": fmt.Sprint(s + 5000)}
		mustCommit(t, gen, ictInfo(s+5000), proto, deltagen.Metadata(deltagen.SimpleSchema, nil, ictConf(enable)))
		mustCommit(t, gen, ictInfo(s+6000), mustAdd(t, gen, "part-4.parquet", 5))
		return dir
	}
	t.Run("enabled at v3", func(t *testing.T) {
		dir := enabledAtV3(t, []int64{s, s + 1000, s + 2000})
		setModTime(t, dir, 3, s+100) // contradicting: ignored
		setModTime(t, dir, 4, s+200)
		table, _ := openTable(t, dir)
		checkAsOf(t, table, map[int64]int64{s - 1: -1, s: 0, s + 1500: 1, s + 4999: 2, s + 5000: 3, s + 5999: 3, s + 6000: 4, s + 1e9: 4})
	})
	t.Run("earlier files later than the enablement", func(t *testing.T) {
		// v0-v2 are timed by files later than the enablement instant:
		// every instant from the enablement on goes to the in-commit
		// versions, none before reaches them, and at/ does not list them.
		dir := enabledAtV3(t, []int64{s + 10_000, s + 11_000, s + 12_000})
		table, _ := openTable(t, dir)
		checkAsOf(t, table, map[int64]int64{s + 4999: -1, s + 5000: 3, s + 10_000: 4, s + 12_000: 4})
		inst, err := table.Instants(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var reached []int64
		for _, in := range inst {
			if in.Resolves {
				reached = append(reached, in.Version)
			}
		}
		if fmt.Sprint(reached) != "[3 4]" {
			t.Errorf("versions an instant reaches: %v, want [3 4]", reached)
		}
		requireFUSE(t)
		m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
		ents, err := os.ReadDir(filepath.Join(m.dir, "at"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if want := []string{versions.FormatInstant(s + 5000), versions.FormatInstant(s + 6000)}; fmt.Sprint(names) != fmt.Sprint(want) {
			t.Errorf("ls at/ = %v, want %v", names, want)
		}
	})
	t.Run("commits cleaned up to a checkpoint", func(t *testing.T) {
		// v2 is rebuilt from its checkpoint, but its timestamp went with
		// its commit: the timed versions start at v3, and at/ lists them.
		dir, gen := fromV0(t)
		if _, err := gen.Checkpoint(2); err != nil {
			t.Fatal(err)
		}
		for v := int64(0); v <= 2; v++ {
			if err := os.Remove(filepath.Join(dir, replay.CommitKey(v))); err != nil {
				t.Fatal(err)
			}
		}
		table, _ := openTable(t, dir)
		checkAsOf(t, table, map[int64]int64{s + 2500: -1, s + 3000: 3, s + 3999: 3, s + 1e9: 4})
		inst, err := table.Instants(context.Background())
		if err != nil || len(inst) != 2 || inst[0].Version != 3 || !inst[0].Resolves {
			t.Errorf("instants %+v, %v; want v3 and v4", inst, err)
		}
		// history says v2 has no instant (it said the epoch), v3 its own;
		// nor has v2 an operation or counts (it said "" and 0).
		h, err := table.History(context.Background())
		if err != nil || len(h) != 3 || h[0].Instant != nil || h[1].Instant == nil || *h[1].Instant != s+3000 {
			t.Errorf("history %+v, %v; want v2 without an instant, v3 at s+3000", h, err)
		} else if h[0].Added != nil || h[0].Removed != nil || h[0].Operation != "" || h[1].Added == nil || h[1].Removed == nil {
			t.Errorf("history %+v; want counts for v3 only", h)
		}
		requireFUSE(t)
		m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
		ents, err := os.ReadDir(filepath.Join(m.dir, "at"))
		if err != nil || len(ents) != 2 || ents[0].Name() != versions.FormatInstant(s+3000) {
			t.Errorf("ls at/ = %v, %v", ents, err)
		}
		// changes/ lists only the versions it holds: v2 has no commit.
		ents, err = os.ReadDir(filepath.Join(m.dir, "changes"))
		if err != nil || len(ents) != 2 || ents[0].Name() != "3" {
			t.Errorf("ls changes/ = %v, %v; want 3 and 4", ents, err)
		}
	})
	t.Run("property without the feature", func(t *testing.T) {
		// Not active: the versions are timed by their files, and commits
		// without an inCommitTimestamp are no error.
		dir := t.TempDir()
		gen := deltagen.New(dir)
		mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, ictConf(nil)))
		mustCommit(t, gen, mustAdd(t, gen, "part-1.parquet", 5))
		setModTime(t, dir, 0, s)
		setModTime(t, dir, 1, s+1000)
		table, _ := openTable(t, dir)
		checkAsOf(t, table, map[int64]int64{s - 1: -1, s: 0, s + 999: 0, s + 1000: 1})
	})
}

// TestTimeTravelFollowsRefresh: the timeline a table keeps between
// lookups is made again when the log moves: a new version is timed and
// resolved, and a commit enabling in-commit timestamps changes the clock.
func TestTimeTravelFollowsRefresh(t *testing.T) {
	const s = 1_700_000_000_000
	ctx := context.Background()
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	mustCommit(t, gen, mustAdd(t, gen, "part-1.parquet", 5))
	setModTime(t, dir, 0, s)
	setModTime(t, dir, 1, s+1000)
	table, _ := openTable(t, dir)
	checkAsOf(t, table, map[int64]int64{s + 1500: 1, s + 1e9: 1})

	mustCommit(t, gen, mustAdd(t, gen, "part-2.parquet", 5))
	setModTime(t, dir, 2, s+2000)
	if _, err := table.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	checkAsOf(t, table, map[int64]int64{s + 1500: 1, s + 2000: 2, s + 1e9: 2})
	if vs, err := table.Versions(ctx); err != nil || fmt.Sprint(vs) != "[0 1 2]" {
		t.Errorf("versions %v, %v; want [0 1 2]", vs, err)
	}

	// v3 enables in-commit timestamps; its file's time is ignored.
	conf := map[string]string{"delta.enableInCommitTimestamps": "true",
		"delta.inCommitTimestampEnablementVersion": "3", "delta.inCommitTimestampEnablementTimestamp": fmt.Sprint(s + 5000)}
	mustCommit(t, gen, ictInfo(s+5000), deltagen.Protocol(3, 7, []string{}, []string{"inCommitTimestamp"}),
		deltagen.Metadata(deltagen.SimpleSchema, nil, conf))
	setModTime(t, dir, 3, s+100)
	if _, err := table.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	checkAsOf(t, table, map[int64]int64{s + 4999: 2, s + 5000: 3, s + 1e9: 3})
	inst, err := table.Instants(ctx)
	if err != nil || len(inst) != 4 || !inst[3].InCommit || inst[3].Millis != s+5000 {
		t.Errorf("instants %+v, %v", inst, err)
	}
}

// TestTimeTravelTruncatedHistory: after log cleanup the first version that
// can be rebuilt is the checkpoint's; an instant before it resolves to
// nothing, never to a version that cannot be built.
func TestTimeTravelTruncatedHistory(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	for i := 1; i <= 4; i++ {
		mustCommit(t, gen, mustAdd(t, gen, fmt.Sprintf("part-%d.parquet", i), 5))
	}
	if _, err := gen.Checkpoint(2); err != nil {
		t.Fatal(err)
	}
	const s = 1_700_000_000_000
	for v := int64(0); v <= 4; v++ {
		setModTime(t, dir, v, s+v*1000)
	}
	for _, v := range []int64{0, 1} {
		if err := os.Remove(filepath.Join(dir, replay.CommitKey(v))); err != nil {
			t.Fatal(err)
		}
	}
	table, _ := openTable(t, dir)
	checkAsOf(t, table, map[int64]int64{s: -1, s + 1500: -1, s + 2000: 2, s + 3000: 3, s + 1e9: 4})
}

// TestTimeTravelReadsLogCommits: resolving an instant on a 10,000-commit
// log with in-commit timestamps reads the first lines of about
// log2(10,000) commits, at most 16, not every commit.
func TestTimeTravelReadsLogCommits(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	gen := deltagen.New(dir)
	const s, n = 1_700_000_000_000, 10_000
	proto := deltagen.Protocol(3, 7, []string{}, []string{"inCommitTimestamp"})
	mustCommit(t, gen, ictInfo(s), proto, deltagen.Metadata(deltagen.SimpleSchema, nil, map[string]string{"delta.enableInCommitTimestamps": "true"}))
	for v := int64(1); v < n; v++ {
		mustCommit(t, gen, ictInfo(s+v*1000), deltagen.AddFile(fmt.Sprintf("p-%d.parquet", v), 10, s, nil, ""))
	}
	if _, err := gen.Checkpoint(n - 1); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	table, st := openTable(t, dir)
	if _, err := table.Snapshot(ctx, table.Latest()); err != nil {
		t.Fatal(err)
	}
	if _, err := table.LogFiles(ctx); err != nil {
		t.Fatal(err)
	}
	for _, target := range []int64{s + 4321*1000 + 500, s + 17*1000, s + (n-1)*1000} {
		before := st.Counts()
		v, ok, err := table.AsOf(ctx, target)
		if err != nil || !ok || v != (target-s)/1000 {
			t.Fatalf("AsOf(%d) = %d, %v, %v", target, v, ok, err)
		}
		if d := st.Counts().Sub(before); d.Gets > 16 || d.Lists != 0 {
			t.Errorf("resolving an instant made %d reads and %d listings, want at most 16 reads", d.Gets, d.Lists)
		}
	}
	// ls at/ times every version: each commit's first line is read once,
	// many at a time (1 ms added per read makes the reads that overlap
	// count once in Rounds, as on a remote store).
	slow, err := blobstore.Open(ctx, dir, blobstore.WithLatency(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	table, err = versions.Open(ctx, slow, versions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.LogFiles(ctx); err != nil {
		t.Fatal(err)
	}
	before := slow.Counts()
	inst, err := table.Instants(ctx)
	if err != nil || len(inst) != n || inst[n/2].Millis != s+n/2*1000 {
		t.Fatalf("%d instants, %v", len(inst), err)
	}
	d := slow.Counts().Sub(before)
	t.Logf("timing %d versions: %d reads in %d round trips", n, d.Gets, d.Rounds)
	if d.Gets > n+20 || d.Rounds > n/8 {
		t.Errorf("timing %d versions made %d reads in %d round trips; want each commit read once, many at a time", n, d.Gets, d.Rounds)
	}
}

// TestTimeTravelOnS3: on S3 a commit's modification time is the object's
// LastModified as the server lists it (versitygw's posix backend gives the
// file's time, which the test sets, two commits out of order); at/ through
// a mount resolves by it.
func TestTimeTravelOnS3(t *testing.T) {
	srv := servers.Start(t, servers.VersityGW)
	local := t.TempDir()
	gen := deltagen.New(local)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	for i := 1; i <= 4; i++ {
		mustCommit(t, gen, mustAdd(t, gen, fmt.Sprintf("part-%d.parquet", i), 5))
	}
	prefix := "timetravel/" + t.Name()
	copyToStore(t, local, srv.Location(prefix))
	const s = 1_700_000_000_000
	for v, ms := range []int64{s, s + 2000, s + 1500, s + 3000, s + 3000} {
		setModTime(t, filepath.Join(srv.DataDir(), prefix), int64(v), ms)
	}
	m := mountLayout(t, srv.Location(prefix), fs.Options{RefreshInterval: -1})
	inst, err := m.table.Instants(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{s, s + 2000, s + 2001, s + 3000, s + 3001}
	for i, in := range inst {
		if in.Millis != want[i] {
			t.Errorf("v%d: instant %d, want %d (LastModified, made increasing)", in.Version, in.Millis, want[i])
		}
	}
	for ms, wantV := range map[int64]int64{s: 0, s + 1999: 0, s + 2000: 1, s + 2001: 2, s + 2999: 2, s + 3001: 4, s + 1e9: 4} {
		name := versions.FormatInstant(ms)
		if got := readlink(t, filepath.Join(m.dir, "at", name)); got != fmt.Sprintf("../v/%d", wantV) {
			t.Errorf("at/%s -> %s; want ../v/%d", name, got, wantV)
		}
	}
	if _, err := os.Lstat(filepath.Join(m.dir, "at", versions.FormatInstant(s-1))); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("at/ before the first commit: %v; want ENOENT", err)
	}
}

// copyToStore writes every file under dir to the store at location.
func copyToStore(t *testing.T, dir, location string) {
	t.Helper()
	ctx := context.Background()
	st, err := blobstore.Open(ctx, location)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	files, err := walkFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Write(ctx, f, data); err != nil {
			t.Fatal(err)
		}
	}
}

// TestListingVersionsReadsNothing: `ls -l` of v/, changes/ and at/ names
// and times every version from the listing of the log: no object is read
// (the log is listed once, if the open did not list it whole), and no
// version is built. Before, a stat of v/<N> or changes/<N> built the
// version, reading its checkpoint and commits, and at/ walked the whole
// listing per entry.
func TestListingVersionsReadsNothing(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	const commits = 30
	for v := 1; v < commits; v++ {
		mustCommit(t, gen, mustAdd(t, gen, fmt.Sprintf("part-%02d.parquet", v), 5))
		if v == 10 || v == 20 {
			if _, err := gen.Checkpoint(int64(v)); err != nil {
				t.Fatal(err)
			}
		}
	}
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	before := m.store.Counts()
	for _, sub := range []string{"v", "changes", "at"} {
		out, err := exec.Command("ls", "-l", filepath.Join(m.dir, sub)).CombinedOutput()
		if err != nil {
			t.Fatalf("ls -l %s: %v\n%s", sub, err, out)
		}
		if lines := strings.Count(string(out), "\n"); lines != commits+1 { // and "total"
			t.Errorf("ls -l %s: %d lines, want %d\n%s", sub, lines, commits+1, out)
		}
	}
	if c := m.store.Counts().Sub(before); c.Gets != 0 || c.Lists > 1 {
		t.Errorf("ls -l of v/, changes/, at/ made %+v; want no read, one listing at most", c)
	}
	// The first look inside builds the version: v/25 from the checkpoint
	// of v20 and five commits.
	names := mustWalk(t, filepath.Join(m.dir, "v", "25"))
	if len(names) != 25 {
		t.Errorf("v/25 holds %d files, want 25", len(names))
	}
}
