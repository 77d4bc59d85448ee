package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFindBenchmark: a cold `find -type f` over the latest version of the
// 1M-file bench table, each pass in a new `deltafs mount` process, under
// three memory limits: the mount's own (the default), a fixed one of
// 700 MiB (what the mount set before its limit followed the live heap: the
// local data bound of 328 MiB, twice the 124 MB snapshot and 128 MiB), and
// none. It reports wall time, the mount's CPU time and its peak RSS
// (medians of 3 alternated rounds).
//
//	make build
//	DELTAFS_FIND_BENCH=1 go test ./tests -run TestFindBenchmark -v -count=1 -timeout 30m
func TestFindBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_FIND_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_FIND_BENCH=1 to run")
	}
	requireFUSE(t)
	bin := deltafsBin(t)
	table, _ := benchTable(t)
	limits := []string{"", "700MiB", "off"}
	walls, cpus, peaks := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for round := range 3 {
		for _, limit := range limits {
			t.Setenv("GOMEMLIMIT", limit) // empty: the mount sets its own
			mp := t.TempDir()
			p := startMount(t, bin, table, mp)
			p.ready(t)
			start := time.Now()
			out, err := exec.Command("find", filepath.Join(mp, "latest")+"/", "-type", "f").Output()
			wall := time.Since(start)
			if err != nil || strings.Count(string(out), "\n") != benchFiles {
				t.Fatalf("find: %d lines, %v", strings.Count(string(out), "\n"), err)
			}
			pid := p.cmd.Process.Pid
			walls[limit] = append(walls[limit], wall.Seconds())
			cpus[limit] = append(cpus[limit], processCPU(t, pid))
			peaks[limit] = append(peaks[limit], float64(vmHWM(t, pid)>>20))
			p.stop(t, syscall.SIGTERM)
			t.Logf("round %d, GOMEMLIMIT=%q: find %.1f s", round, limit, wall.Seconds())
		}
	}
	for _, limit := range limits {
		name := "the mount's own limit"
		if limit != "" {
			name = "GOMEMLIMIT=" + limit
		}
		t.Logf("%s: find %.1f s, mount CPU %.1f s, peak RSS %.0f MiB", name, median(walls[limit]), median(cpus[limit]), median(peaks[limit]))
	}
}

// processCPU is the user and system CPU time of a running process, in
// seconds.
func processCPU(t *testing.T, pid int) float64 {
	t.Helper()
	fields := procStat(t, pid)
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100
}

// minorFaults is the number of minor page faults of a running process.
func minorFaults(t *testing.T, pid int) int64 {
	t.Helper()
	n, _ := strconv.ParseInt(procStat(t, pid)[7], 10, 64)
	return n
}

// procStat is /proc/<pid>/stat's fields after the command name, which
// ends at the last ')': state is the first (field 3 of proc(5)), minflt
// the eighth (10), utime and stime the twelfth and thirteenth (14, 15;
// in clock ticks, 100/s).
func procStat(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
}
