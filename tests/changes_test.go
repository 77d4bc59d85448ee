package tests

// changes/<N>/{added,removed,cdc}: what each commit did, as files. Checked
// on the shared tables that write change data (Spark and delta-rs, with
// partitions, deletion vectors and a checkpoint) against the commits as
// this test reads them, and on a generated table whose removed file was
// vacuumed.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// commitFiles is what one commit file says it did, read with
// encoding/json, apart from deltafs's parser.
type commitFiles struct {
	adds, removes, cdc []string // decoded paths
}

func readCommitFiles(t *testing.T, table string, v int64) commitFiles {
	t.Helper()
	f, err := os.Open(filepath.Join(table, replay.CommitKey(v)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out commitFiles
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var a map[string]struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			continue // actions whose value is not an object with a path
		}
		for kind, act := range a {
			p, err := url.PathUnescape(act.Path)
			if err != nil {
				t.Fatal(err)
			}
			switch kind {
			case "add":
				out.adds = append(out.adds, p)
			case "remove":
				out.removes = append(out.removes, p)
			case "cdc":
				out.cdc = append(out.cdc, p)
			}
		}
	}
	return out
}

func TestChangesOfRealCDCTables(t *testing.T) {
	data := TestdataDir(t)
	for _, name := range []string{"cdf-table", "cdf-table-non-partitioned", "cdf-table-with-cdc-and-dvs", "checkpoint-cdf-table", "simple_table_with_cdc"} {
		t.Run(name, func(t *testing.T) {
			table := filepath.Join(data, "delta-rs", "data", name)
			m := mountLayout(t, table, fs.Options{RefreshInterval: -1})
			ctx := context.Background()
			var history []struct {
				Version        int64
				Added, Removed int
			}
			for _, line := range strings.Split(strings.TrimSpace(mustRead(t, filepath.Join(m.dir, "history.jsonl"))), "\n") {
				var h struct {
					Version        int64
					Added, Removed int
				}
				if err := json.Unmarshal([]byte(line), &h); err != nil {
					t.Fatal(err)
				}
				history = append(history, h)
			}
			vs, err := m.table.Versions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			cdcSeen := 0
			for i, v := range vs {
				want := readCommitFiles(t, table, v)
				dir := filepath.Join(m.dir, "changes", strconv.FormatInt(v, 10))
				added := mustWalk(t, filepath.Join(dir, "added"))
				if len(added) != len(want.adds) {
					t.Errorf("v%d: added/ holds %d files, the commit adds %d", v, len(added), len(want.adds))
				}
				for _, f := range added { // served as in v/N
					sameBytes(t, filepath.Join(dir, "added", f), filepath.Join(m.dir, "v", strconv.FormatInt(v, 10), f))
				}
				// removed/ holds the removed files that were live in v/N-1;
				// when v/N-1 cannot be built it is empty, and history.jsonl
				// counts every remove of the commit.
				wantRemoved, historyRemoved := 0, len(want.removes)
				if slices.Contains(vs, v-1) {
					prev, err := m.table.Snapshot(ctx, v-1)
					if err != nil {
						t.Fatal(err)
					}
					historyRemoved = 0
					for _, p := range want.removes {
						if prev.Find(p) != nil {
							wantRemoved++
							historyRemoved++
						}
					}
				}
				removed := mustWalk(t, filepath.Join(dir, "removed"))
				if len(removed) != wantRemoved {
					t.Errorf("v%d: removed/ holds %d files; want %d", v, len(removed), wantRemoved)
				}
				for _, f := range removed { // served as in v/N-1
					sameBytes(t, filepath.Join(dir, "removed", f), filepath.Join(m.dir, "v", strconv.FormatInt(v-1, 10), f))
				}
				cdc := mustWalk(t, filepath.Join(dir, "cdc"))
				if len(cdc) != len(want.cdc) {
					t.Errorf("v%d: cdc/ holds %d files, the commit wrote %d", v, len(cdc), len(want.cdc))
				}
				byBase := map[string]string{}
				for _, p := range want.cdc {
					byBase[filepath.Base(p)] = p
				}
				for _, f := range cdc { // as stored: these tables have no column mapping
					sameBytes(t, filepath.Join(dir, "cdc", f), filepath.Join(table, byBase[filepath.Base(f)]))
				}
				cdcSeen += len(cdc)
				if h := history[i]; h.Version != v || h.Added != len(want.adds) || h.Removed != historyRemoved {
					t.Errorf("history.jsonl for v%d: %+v; want %d added, %d removed", v, h, len(want.adds), historyRemoved)
				}
			}
			if cdcSeen == 0 {
				t.Errorf("no change-data file in any commit of %s", name)
			}
		})
	}
}

// TestChangesRemovedVacuumed: a removed file whose object is gone is
// listed (the log names it) and gives ENOENT when opened, with a log line,
// through changes/<N>/removed and the versions before; one latest still
// serves is a broken table (EIO). A version without a commit and a name
// that is not a version do not exist.
func TestChangesRemovedVacuumed(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
		mustAdd(t, gen, "a.parquet", 10), mustAdd(t, gen, "b.parquet", 20))
	mustCommit(t, gen, deltagen.Remove("a.parquet", 1700000000500), mustAdd(t, gen, "c.parquet", 5))
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	removed := filepath.Join(m.dir, "changes", "1", "removed", "a.parquet")
	sameBytes(t, removed, filepath.Join(m.dir, "v", "0", "a.parquet"))
	if err := os.Remove(filepath.Join(dir, "a.parquet")); err != nil {
		t.Fatal(err)
	}
	// A fresh mount: the kernel would answer from what it read above.
	m2 := mountLayout(t, dir, fs.Options{RefreshInterval: -1, NoPassthrough: true})
	removed = filepath.Join(m2.dir, "changes", "1", "removed", "a.parquet")
	if _, err := os.Stat(removed); err != nil {
		t.Errorf("stat of a vacuumed removed file: %v; the log still names it", err)
	}
	if _, err := os.ReadFile(removed); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("read of a vacuumed removed file: %v; want ENOENT", err)
	}
	if _, err := os.ReadFile(filepath.Join(m2.dir, "v", "0", "a.parquet")); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("read of the vacuumed file through v/0: %v; want ENOENT, as through changes/1/removed", err)
	}
	for _, where := range []string{"changes/1/removed/a.parquet: ", "v0/a.parquet: "} {
		if !strings.Contains(m2.logs.String(), where) {
			t.Errorf("no log line naming %s:\n%s", where, m2.logs)
		}
	}
	if got := mustWalk(t, filepath.Join(m2.dir, "changes", "0", "removed")); len(got) != 0 {
		t.Errorf("changes/0/removed: %v", got)
	}
	for _, name := range []string{"2", "01", "-1", "x"} {
		if _, err := os.Stat(filepath.Join(m2.dir, "changes", name)); !errors.Is(err, syscall.ENOENT) {
			t.Errorf("changes/%s: %v; want ENOENT", name, err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "b.parquet")); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"0", "1"} {
		if _, err := os.ReadFile(filepath.Join(m2.dir, "v", v, "b.parquet")); !errors.Is(err, syscall.EIO) {
			t.Errorf("read of v/%s/b.parquet, gone while latest serves it: %v; want EIO", v, err)
		}
	}
}

// TestChangesNamedAsInVersions: a file is named in changes/<N> as in the
// version it is served as, also where it shares its base name with a file
// outside the commit: b/p.parquet, added after a/p.parquet, is served
// renamed in v/1, so in changes/1/added; and when a commit removes it, in
// changes/2/removed, as it was in v/1.
func TestChangesNamedAsInVersions(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
		mustAdd(t, gen, "a/p.parquet", 10))
	mustCommit(t, gen, mustAdd(t, gen, "b/p.parquet", 20))
	mustCommit(t, gen, deltagen.Remove("b/p.parquet", 1700000000500))
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	v1 := mustWalk(t, filepath.Join(m.dir, "v", "1"))
	if len(v1) != 2 || !slices.Contains(v1, "p.parquet") {
		t.Fatalf("v/1 serves %q, want p.parquet and b/p.parquet renamed", v1)
	}
	renamed := v1[0]
	if renamed == "p.parquet" {
		renamed = v1[1]
	}
	for _, c := range []struct{ part, version string }{{"1/added", "1"}, {"2/removed", "1"}} {
		got := mustWalk(t, filepath.Join(m.dir, "changes", c.part))
		if !slices.Equal(got, []string{renamed}) {
			t.Errorf("changes/%s lists %q, want %q as v/%s names it", c.part, got, renamed, c.version)
			continue
		}
		sameBytes(t, filepath.Join(m.dir, "changes", c.part, renamed), filepath.Join(m.dir, "v", c.version, renamed))
	}
}

// TestChangesFileAddedTwice: a commit that adds one file twice (which the
// protocol forbids) lists it once in changes/<N>/added, as v/<N> serves it.
func TestChangesFileAddedTwice(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	first := mustAdd(t, gen, "a.parquet", 10)
	again := *first.Add
	again.ModificationTime += 60_000
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
		first, action.Action{Add: &again})
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	if got := mustWalk(t, filepath.Join(m.dir, "changes", "0", "added")); !slices.Equal(got, []string{"a.parquet"}) {
		t.Fatalf("changes/0/added lists %q, want a.parquet once", got)
	}
	added, errA := os.Stat(filepath.Join(m.dir, "changes", "0", "added", "a.parquet"))
	served, errV := os.Stat(filepath.Join(m.dir, "v", "0", "a.parquet"))
	if errA != nil || errV != nil || !added.ModTime().Equal(served.ModTime()) {
		t.Errorf("changes/0/added/a.parquet (%v) and v/0/a.parquet (%v) differ in time: %v, %v", errA, errV, added.ModTime(), served.ModTime())
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustWalk(t *testing.T, dir string) []string {
	t.Helper()
	files, err := walkFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameBytes fails the test unless the files at a and b hold the same bytes.
func sameBytes(t *testing.T, a, b string) {
	t.Helper()
	x, errA := os.ReadFile(a)
	y, errB := os.ReadFile(b)
	if errA != nil || errB != nil || !bytes.Equal(x, y) {
		t.Errorf("%s (%d bytes, %v) and %s (%d bytes, %v) differ", a, len(x), errA, b, len(y), errB)
	}
}
