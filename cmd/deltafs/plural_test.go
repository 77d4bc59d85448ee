package main

import (
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0 entries"}, {1, "1 entry"}, {2, "2 entries"}, {-1, "-1 entries"}} {
		if got := plural(c.n, "entry", "entries"); got != c.want {
			t.Errorf("plural(%d): %q, want %q", c.n, got, c.want)
		}
	}
}

// TestSingularCounts: text that counts one thing says it in the singular:
// a table of one live file and one tombstone, one commit since its
// checkpoint of one part; one argument too many.
func TestSingularCounts(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	var adds []action.Action
	for _, name := range []string{"a.parquet", "b.parquet"} {
		add, err := gen.DataFileAdd(name, 10, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		adds = append(adds, add)
	}
	if _, err := gen.Commit(append([]action.Action{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)}, adds...)...); err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Checkpoint(0); err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Commit(deltagen.Remove("b.parquet", 2)); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("doctor", dir)
	if code != 0 {
		t.Fatalf("doctor: exit %d, %s", code, errOut)
	}
	for _, want := range []string{
		", 1 part\n",
		" 1 tombstone\n",
		"1 commit since the classic checkpoint at v0",
		"(2 commits, 1 checkpoint file): 1 listing page from version 0",
		"1 live file, ",
		"1 tombstone still retained",
		"1 live file checked: all present",
		"(1 file served as stored checked: none lacks a column)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor: no %q in\n%s", want, out)
		}
	}
	for _, wrong := range []string{" 1 files", " 1 commits", " 1 tombstones", "(s)"} {
		if strings.Contains(out, wrong) {
			t.Errorf("doctor: %q in\n%s", wrong, out)
		}
	}
	if got := formatDuration(24 * time.Hour); got != "1 day" {
		t.Errorf("formatDuration of a day: %q", got)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ls", dir, "extra"}, "got 2 arguments"},
		{[]string{"ls"}, "got 0 arguments"},
	} {
		if code, _, errOut := runCLI(c.args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %q; want %q", c.args, code, errOut, c.want)
		}
	}
}
