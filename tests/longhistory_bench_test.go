package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestLongHistoryBenchmark: `ls -l` of v/, changes/ and at/ of a table of
// DELTAFS_LONG_COMMITS JSON commits (20,000 unless set; one file added by
// each, every second one removing the one before, no checkpoint), through
// a new in-process mount with `deltafs mount`'s defaults, against `ls -l`
// of its _delta_log on disk;
// medians of 5 passes, each on a new mount.
//
//	DELTAFS_LONG_BENCH=1 go test ./tests -run TestLongHistoryBenchmark -v -count=1
func TestLongHistoryBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_LONG_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_LONG_BENCH=1 to run")
	}
	requireFUSE(t)
	commits := 20000
	if s := os.Getenv("DELTAFS_LONG_COMMITS"); s != "" {
		var err error
		if commits, err = strconv.Atoi(s); err != nil || commits < 2 {
			t.Fatalf("DELTAFS_LONG_COMMITS=%q", s)
		}
	}
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	const start = 1_700_000_000_000
	for v := 1; v < commits; v++ {
		acts := []action.Action{deltagen.AddFile(fmt.Sprintf("part-%06d.parquet", v), 100, start+int64(v)*1000, nil, `{"numRecords":1}`)}
		if v%2 == 0 {
			acts = append(acts, deltagen.Remove(fmt.Sprintf("part-%06d.parquet", v-1), start+int64(v)*1000))
		}
		mustCommit(t, gen, acts...)
		if v%5000 == 0 {
			t.Logf("%d commits written", v)
		}
	}
	lsL := func(path string) time.Duration {
		begin := time.Now()
		out, err := exec.Command("ls", "-l", path).Output()
		took := time.Since(begin)
		if err != nil {
			t.Fatalf("ls -l %s: %v", path, err)
		}
		if lines := strings.Count(string(out), "\n"); lines < commits {
			t.Fatalf("ls -l %s: %d lines, want %d or more", path, lines, commits)
		}
		return took
	}
	var versions, changes, instants, disk []float64
	for range 5 {
		m := mountLayout(t, dir, fs.Options{RefreshInterval: -1, NoXAttrs: true}) // as deltafs mount's defaults
		versions = append(versions, lsL(filepath.Join(m.dir, "v")).Seconds()*1000)
		changes = append(changes, lsL(filepath.Join(m.dir, "changes")).Seconds()*1000)
		instants = append(instants, lsL(filepath.Join(m.dir, "at")).Seconds()*1000)
		m.unmount()
		disk = append(disk, lsL(filepath.Join(dir, "_delta_log")).Seconds()*1000)
	}
	for _, s := range [][]float64{versions, changes, instants, disk} {
		slices.Sort(s)
	}
	t.Logf("%d commits, medians of 5: ls -l v/ %.0f ms, ls -l changes/ %.0f ms, ls -l at/ %.0f ms; ls -l _delta_log on disk %.0f ms",
		commits, versions[2], changes[2], instants[2], disk[2])
}
