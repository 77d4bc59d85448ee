package tests

// The start of a mount as a script meets it: "ready:" means the mount
// answers, and a signal at any moment of the start stops it cleanly.

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMountBinaryReadyMeansServing mounts through the binary 20 times and
// lists latest the moment "ready:" is read: a ready line printed before the
// kernel had the mount attached let `ls mp/latest/` meet the empty
// directory underneath (ENOENT, 8 runs in 80).
func TestMountBinaryReadyMeansServing(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	table := filepath.Join(TestdataDir(t), "dat/reader_tests/generated/basic_partitioned/delta")
	for i := range 20 {
		dir := t.TempDir()
		p := startMount(t, bin, table, dir)
		p.ready(t)
		ents, err := os.ReadDir(filepath.Join(dir, "latest"))
		if err != nil || len(ents) == 0 {
			t.Errorf("run %d: ls latest/ right after ready: %d entries, %v (in /proc/mounts: %v)", i, len(ents), err, isMounted(t, dir))
		}
		p.stop(t, syscall.SIGINT)
	}
}

// TestMountBinarySIGINTDuringStart sends SIGINT at a random moment after
// the process catches it (0 to 20 ms: while the mount starts, which takes
// about 10; or 0 to 500 ms), 20 times, with SIGINT ignored when
// deltafs starts, as a shell starts a background job (`deltafs mount T mp &`).
// Each run must end (none left serving), with nothing mounted: exit 0
// after "ready:" and "unmounted", or, stopped before ready, 130 and a line
// saying so. The window before the handler is caught is checked by
// TestStopSignalCaughtFirst (cmd/deltafs).
func TestMountBinarySIGINTDuringStart(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	table := filepath.Join(TestdataDir(t), "dat/reader_tests/generated/basic_partitioned/delta")
	var stoppedEarly, stoppedServing int
	for i := range 20 {
		dir := t.TempDir()
		// exec keeps the ignored disposition, as a shell's & does.
		p := startProc(t, "/bin/sh", dir, "-c", `trap "" INT; exec "$0" "$@"`, bin, "mount", table, dir)
		pid := p.cmd.Process.Pid
		// Asked often: a mount starts in about 10 ms.
		if !pollFor(procPatience, 100*time.Microsecond, func() bool { return catches(pid, bin, syscall.SIGINT) }) {
			t.Fatalf("run %d: SIGINT never caught; stderr:\n%s", i, p.stderr)
		}
		delay := rand.N(20 * time.Millisecond)
		if i%2 == 1 {
			delay = rand.N(500 * time.Millisecond)
		}
		time.Sleep(delay)
		if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		code, timedOut := p.wait(procPatience)
		out, errs := p.stdout(), p.stderr.String()
		ready := strings.Contains(out, "ready:")
		switch {
		case timedOut:
			t.Errorf("run %d (SIGINT %v after caught): still running %v later; stdout:\n%s\nstderr:\n%s", i, delay, procPatience, out, errs)
		case ready && (code != 0 || !strings.Contains(out, "unmounted")):
			t.Errorf("run %d (SIGINT %v after caught): exit %d after ready, want 0 and unmounted; stdout:\n%s\nstderr:\n%s", i, delay, code, out, errs)
		case !ready && (code != 130 || !strings.Contains(errs, "stopped by SIGINT")):
			t.Errorf("run %d (SIGINT %v after caught): exit %d before ready, want 130 and a line saying so; stderr:\n%s", i, delay, code, errs)
		case ready:
			stoppedServing++
		default:
			stoppedEarly++
		}
		if isMounted(t, dir) {
			t.Errorf("run %d: %s still mounted after deltafs exited", i, dir)
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	}
	t.Logf("stopped before ready: %d, after: %d", stoppedEarly, stoppedServing)
}

// catches reports whether process pid runs bin and has a handler for sig
// (SigCgt in /proc/PID/status). The shell before the exec catches SIGINT
// too, until its trap ignores it: a SIGINT it takes then is swallowed, and
// the mount it execs never sees one (1 run in about 400 hung so).
func catches(pid int, bin string, sig syscall.Signal) bool {
	exe, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/exe")
	want, werr := os.Stat(bin)
	if err != nil || werr != nil || !os.SameFile(exe, want) {
		return false
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if mask, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			bits, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
			return err == nil && bits&(1<<(sig-1)) != 0
		}
	}
	return false
}
