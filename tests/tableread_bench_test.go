package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/tests/servers"
)

// TestTableReadBenchmark: a Delta table of 4 files of a million rows
// (about 28 MiB each) written to S3 (versitygw) by delta-rs, read whole and
// one column of it, each read in a new Python process: by delta-rs
// (deltalake, from the bucket), by pyarrow's own S3 file system (the
// Parquet files under the prefix, no log), and by pyarrow from latest/ of
// a new `deltafs mount` process (bench/table_read.py). Alternated runs;
// medians, and medians of the paired ratios, with the mount's start-up
// (process start to ready) counted and not.
//
//	make build venv
//	DELTAFS_TABLEREAD_BENCH=1 go test ./tests -run TestTableReadBenchmark -v -count=1
//
// DELTAFS_TABLEREAD_FLAGS adds flags to the mount (e.g. --block-size 1MiB);
// DELTAFS_TABLEREAD_FILES and DELTAFS_TABLEREAD_ROWS (per file) change the
// table written (delta-rs cuts a commit into files of about 100 MB,
// with row groups of about a million rows).
func TestTableReadBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_TABLEREAD_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_TABLEREAD_BENCH=1 to run")
	}
	requireFUSE(t)
	bin, python := deltafsBin(t), pythonOrSkip(t)
	srv := servers.Start(t, servers.VersityGW)
	prefix := "tableread/" + t.Name()
	uri := "s3://" + servers.Bucket + "/" + prefix
	env := servers.S3ClientEnv(srv.Addr)
	shape := []string{"--files", strconv.Itoa(envInt("DELTAFS_TABLEREAD_FILES", 4)), "--rows", strconv.Itoa(envInt("DELTAFS_TABLEREAD_ROWS", 1_000_000))}
	if out, err := pyCommand(python, env, append([]string{tableReadScript, "write", uri}, shape...)...).CombinedOutput(); err != nil {
		t.Fatalf("write the table: %v\n%s", err, out)
	}
	const runs = 5
	for _, columns := range []string{"", "value"} {
		var dl, pa, read, whole, vsDL, vsPA, wholeVsDL []float64
		for range runs {
			d := tableRead(t, python, env, "deltalake", uri, columns)
			p := tableRead(t, python, env, "pyarrow-s3", uri, columns)
			mp := t.TempDir()
			start := time.Now()
			proc := startMount(t, bin, srv.Location(prefix), mp, strings.Fields(os.Getenv("DELTAFS_TABLEREAD_FLAGS"))...)
			proc.ready(t)
			ready := time.Since(start).Seconds()
			m := tableRead(t, python, env, "folder", filepath.Join(mp, "latest"), columns)
			proc.stop(t, syscall.SIGTERM)
			if m.Rows != d.Rows || m.Rows != p.Rows || m.Bytes != d.Bytes {
				t.Fatalf("reads differ: deltalake %+v, pyarrow-s3 %+v, mount %+v", d, p, m)
			}
			dl, pa, read, whole = append(dl, d.Seconds), append(pa, p.Seconds), append(read, m.Seconds), append(whole, ready+m.Seconds)
			vsDL, vsPA, wholeVsDL = append(vsDL, m.Seconds/d.Seconds), append(vsPA, m.Seconds/p.Seconds), append(wholeVsDL, (ready+m.Seconds)/d.Seconds)
		}
		for _, s := range [][]float64{dl, pa, read, whole, vsDL, vsPA, wholeVsDL} {
			slices.Sort(s)
		}
		what := "all columns"
		if columns != "" {
			what = "column " + columns
		}
		t.Logf("%s, medians of %d: deltalake %.0f ms, pyarrow-s3 %.0f ms, pyarrow through deltafs %.0f ms (%.0f ms with the mount's start-up); deltafs/deltalake %.2fx (%.2fx with start-up), deltafs/pyarrow-s3 %.2fx",
			what, runs, 1000*dl[runs/2], 1000*pa[runs/2], 1000*read[runs/2], 1000*whole[runs/2], vsDL[runs/2], wholeVsDL[runs/2], vsPA[runs/2])
	}
}

var tableReadScript = filepath.Join("..", "bench", "table_read.py")

// tableReadResult is bench/table_read.py's line.
type tableReadResult struct {
	Seconds float64 `json:"seconds"`
	Rows    int64   `json:"rows"`
	Bytes   int64   `json:"bytes"`
}

// tableRead runs one read of bench/table_read.py in a new process.
func tableRead(t *testing.T, python string, env []string, how, where, columns string) tableReadResult {
	t.Helper()
	args := []string{tableReadScript, how, where}
	if columns != "" {
		args = append(args, "--columns", columns)
	}
	out, err := pyCommand(python, env, args...).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("%s %s: %v\n%s", how, where, err, ee.Stderr)
	} else if err != nil {
		t.Fatalf("%s %s: %v", how, where, err)
	}
	var r tableReadResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: %q: %v", how, out, err)
	}
	return r
}

func pyCommand(python string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(python, args...)
	cmd.Env = env
	return cmd
}
