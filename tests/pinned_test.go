package tests

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/versions"
)

// pinnedTable writes a table of three versions, each adding a file
// (a.parquet, b.parquet, c.parquet).
func pinnedTable(t *testing.T) (string, *deltagen.Table) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil), mustAdd(t, gen, "a.parquet", 10))
	mustCommit(t, gen, mustAdd(t, gen, "b.parquet", 10))
	mustCommit(t, gen, mustAdd(t, gen, "c.parquet", 10))
	return dir, gen
}

// TestPinnedTable: a table pinned at v1 reads as if its log ended there,
// and a refresh after a new commit does not move it.
func TestPinnedTable(t *testing.T) {
	dir, gen := pinnedTable(t)
	table, _ := openTable(t, dir)
	if err := table.Pin(5); err == nil || !strings.Contains(err.Error(), "the log ends at version 2") {
		t.Errorf("Pin(5): %v, want the log's end named", err)
	}
	if err := table.Pin(1); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if vs, err := table.Versions(ctx); err != nil || !slices.Equal(vs, []int64{0, 1}) || table.Latest() != 1 {
		t.Errorf("pinned at 1: versions %v (%v), latest %d", vs, err, table.Latest())
	}
	if _, err := table.Changes(ctx, 2); !errors.Is(err, versions.ErrNoCommit) {
		t.Errorf("changes of v2: %v, want ErrNoCommit", err)
	}
	if h, err := table.History(ctx); err != nil || len(h) != 2 {
		t.Errorf("history: %d versions (%v), want 2", len(h), err)
	}
	if v, ok, err := table.AsOf(ctx, 1<<62); err != nil || !ok || v != 1 {
		t.Errorf("as of the far future: v%d %v %v, want v1", v, ok, err)
	}
	mustCommit(t, gen, mustAdd(t, gen, "d.parquet", 10))
	if moved, err := table.Refresh(ctx, nil); moved || err != nil || table.Latest() != 1 {
		t.Errorf("refresh of a pinned table: moved %v, %v, latest %d", moved, err, table.Latest())
	}
}

// TestPinnedMount: a table whose newest commit comes after a gap cannot
// be mounted as it is, and the refusal names the newest version that can
// be rebuilt; `--version N` mounts it as of N, and `--at` as of an
// instant, pinned: latest, v/ and changes/ go no further.
func TestPinnedMount(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	table, _ := pinnedTable(t)
	stray := filepath.Join(table, "_delta_log", "00000000000000000004.json")
	if err := os.WriteFile(stray, []byte(`{"commitInfo":{"timestamp":1}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(bin, "mount", table, t.TempDir()).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "v2 is the newest version that can be rebuilt: --version 2 reads it") {
		t.Errorf("mount of a table with a gap below its newest commit: %v:\n%s", err, out)
	}

	for _, c := range []struct {
		flags  []string
		latest string
		files  string
	}{
		{[]string{"--version", "1"}, "v/1", "[a.parquet b.parquet]"},
		{[]string{"--at", "2099-01-01"}, "v/2", "[a.parquet b.parquet c.parquet]"},
	} {
		dir := t.TempDir()
		p := startMount(t, bin, table, dir, c.flags...)
		if line := p.ready(t); !strings.Contains(line, "pinned") {
			t.Errorf("%v: ready line %q does not say the mount is pinned", c.flags, line)
		}
		if target, err := os.Readlink(filepath.Join(dir, "latest")); err != nil || target != c.latest {
			t.Errorf("%v: latest -> %q (%v), want %s", c.flags, target, err, c.latest)
		}
		if files, err := walkFiles(filepath.Join(dir, "latest")); err != nil || strings.Join(files, " ") != strings.Trim(c.files, "[]") {
			t.Errorf("%v: latest holds %v (%v), want %s", c.flags, files, err, c.files)
		}
		want := []string{"0", "1", "2"}[:len(strings.Fields(c.files))]
		for _, sub := range []string{"v", "changes"} {
			entries, err := os.ReadDir(filepath.Join(dir, sub))
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if err != nil || !slices.Equal(names, want) {
				t.Errorf("%v: %s/ lists %v (%v), want %v", c.flags, sub, names, err, want)
			}
		}
		p.stop(t, syscall.SIGTERM)
	}
}
