package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestStrayCommitName: one stray commit name far past the end of the log
// (a 67-byte object beside a two-commit table) costs one step: every
// command answers at once. As for Delta readers, the stray name is the
// newest version, which cannot be built (a commit is missing below it);
// the versions before it still list and build. Before, versions, ls,
// history and doctor walked every number up to the stray one.
func TestStrayCommitName(t *testing.T) {
	for _, stray := range []int64{10_000_000_000, 9223372036854775807} {
		dir := t.TempDir()
		gen := deltagen.New(dir)
		if _, err := gen.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)); err != nil {
			t.Fatal(err)
		}
		add, err := gen.DataFileAdd("part-0.parquet", 10, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gen.Commit(add); err != nil {
			t.Fatal(err)
		}
		junk := `{"commitInfo":{"operation":"WRITE","timestamp":1700000000000000}}` + "\n"
		if err := os.WriteFile(filepath.Join(dir, replay.CommitKey(stray)), []byte(junk), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			args []string
			code int
			want string // in stdout, or stderr for a failure
		}{
			{[]string{"versions", dir}, 0, "0\n1\n"},
			{[]string{"ls", "--version", "1", dir}, 0, "part-0.parquet"},
			{[]string{"history", dir}, 0, "\n1\t"},
			{[]string{"ls", dir}, 1, "missing commit 2"},
			{[]string{"doctor", "--json", dir}, 1, "missing commit 2"}, // the text report says it on stdout
		} {
			code, out, errOut := runCLI(c.args...)
			if got := map[bool]string{true: out, false: errOut}[c.code == 0]; code != c.code || !strings.Contains(got, c.want) {
				t.Errorf("stray %d: %v: exit %d, stdout %q, stderr %q; want exit %d and %q", stray, c.args, code, out, errOut, c.code, c.want)
			}
		}
	}
}
