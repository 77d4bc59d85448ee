package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/fs"
)

// versionView is what a reader sees in one v/N: file names and their bytes.
type versionView struct {
	names []string
	bytes map[string][]byte
}

func viewVersion(t *testing.T, vdir string) versionView {
	t.Helper()
	v, err := tryViewVersion(vdir)
	if err != nil {
		t.Fatalf("view %s: %v", vdir, err)
	}
	return v
}

func (v versionView) equal(o versionView) bool {
	if !sameStrings(v.names, o.names) {
		return false
	}
	for n, b := range v.bytes {
		if !bytes.Equal(b, o.bytes[n]) {
			return false
		}
	}
	return true
}

// appendCommit writes commit version v of the table at dir: the actions as
// newline-delimited JSON, through a rename so the mount never sees half a
// commit.
func appendCommit(t *testing.T, dir string, v int64, actions ...map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	for _, a := range actions {
		line, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	name := filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", v))
	tmp := filepath.Join(dir, "_delta_log", fmt.Sprintf(".tmp-%d", v))
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
}

func commitInfo(op string) map[string]any {
	return map[string]any{"commitInfo": map[string]any{"timestamp": time.Now().UnixMilli(), "operation": op}}
}

// TestMountWriterAppends mounts a copy of a small real table with a 100ms
// refresh interval while a writer appends commits: an add of a copy of an
// existing data file, then a remove. latest must advance to each new version
// within a bounded wait, the new v/N must hold the new state, and every
// older v/N must stay identical (same names, same bytes), as must
// history.jsonl's earlier lines.
func TestMountWriterAppends(t *testing.T) {
	requireFUSE(t)
	const table = "dat/reader_tests/generated/basic_append/delta"
	tableDir := filepath.Join(t.TempDir(), "table")
	copyTree(t, filepath.Join(TestdataDir(t), table), tableDir)

	m := mountForTest(t, tableDir, fs.Options{RefreshInterval: 100 * time.Millisecond})
	latest := filepath.Join(m.dir, "latest")
	start := m.table.Latest()
	if got, want := readlink(t, latest), fmt.Sprintf("v/%d", start); got != want {
		t.Fatalf("latest -> %s, want %s", got, want)
	}
	before := map[int64]versionView{}
	for v := int64(0); v <= start; v++ {
		before[v] = viewVersion(t, filepath.Join(m.dir, "v", fmt.Sprint(v)))
	}
	history0, err := os.ReadFile(filepath.Join(m.dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}

	// Commit start+1: a copy of an existing data file under a new name.
	src := before[start].names[0]
	srcPath := filepath.Join(tableDir, filepath.FromSlash(src))
	const added = "part-appended-by-test.snappy.parquet"
	if err := copyFile(srcPath, filepath.Join(tableDir, added)); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(tableDir, added))
	if err != nil {
		t.Fatal(err)
	}
	appendCommit(t, tableDir, start+1, commitInfo("WRITE"), map[string]any{"add": map[string]any{
		"path": added, "partitionValues": map[string]any{}, "size": info.Size(),
		"modificationTime": info.ModTime().UnixMilli(), "dataChange": true,
	}})
	waitLatest(t, latest, start+1)
	v1 := viewVersion(t, filepath.Join(m.dir, "v", fmt.Sprint(start+1)))
	if want := append(append([]string(nil), before[start].names...), added); !sameStrings(v1.names, sortedCopy(want)) {
		t.Errorf("v/%d: got %q, want %q", start+1, v1.names, sortedCopy(want))
	}
	if !bytes.Equal(v1.bytes[added], before[start].bytes[src]) {
		t.Errorf("v/%d/%s: bytes differ from the file it copies", start+1, added)
	}

	// Commit start+2: remove the original file.
	appendCommit(t, tableDir, start+2, commitInfo("DELETE"), map[string]any{"remove": map[string]any{
		"path": src, "deletionTimestamp": time.Now().UnixMilli(), "dataChange": true,
	}})
	waitLatest(t, latest, start+2)
	v2 := viewVersion(t, filepath.Join(m.dir, "latest"))
	for _, n := range v2.names {
		if n == src {
			t.Errorf("v/%d still shows the removed %s", start+2, src)
		}
	}
	if len(v2.names) != len(v1.names)-1 {
		t.Errorf("v/%d: %d files, want %d", start+2, len(v2.names), len(v1.names)-1)
	}

	// Older versions are untouched.
	for v, view := range before {
		if now := viewVersion(t, filepath.Join(m.dir, "v", fmt.Sprint(v))); !now.equal(view) {
			t.Errorf("v/%d changed after new commits: was %q, now %q", v, view.names, now.names)
		}
	}
	if now := viewVersion(t, filepath.Join(m.dir, "v", fmt.Sprint(start+1))); !now.equal(v1) {
		t.Errorf("v/%d changed after a later commit", start+1)
	}
	entries, err := os.ReadDir(filepath.Join(m.dir, "v"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != int(start)+3 {
		t.Errorf("ls v/: %d entries, want %d", len(entries), start+3)
	}
	history, err := os.ReadFile(filepath.Join(m.dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(history, history0) {
		t.Errorf("history.jsonl rewrote its past:\nbefore:\n%s\nafter:\n%s", history0, history)
	}
	lines := strings.Split(strings.TrimSpace(string(history)), "\n")
	if len(lines) != int(start)+3 || !strings.Contains(lines[len(lines)-1], `"operation":"DELETE"`) {
		t.Errorf("history.jsonl after two commits:\n%s", history)
	}
}

// waitLatest waits (at most 10s, i.e. 100 refresh intervals) for latest to
// point at v/want.
func waitLatest(t *testing.T, latest string, want int64) {
	t.Helper()
	target := fmt.Sprintf("v/%d", want)
	var got string
	start := time.Now()
	if !waitFor(10*time.Second, func() bool {
		got, _ = os.Readlink(latest)
		return got == target
	}) {
		t.Fatalf("latest -> %q after %v, want %q", got, time.Since(start).Round(time.Millisecond), target)
	}
	t.Logf("latest -> %s after %v", target, time.Since(start).Round(time.Millisecond))
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
