package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestMountPointSafety runs the binary against mount points a mount would
// make a mess of: each is refused with one line saying what to do, and
// nothing is mounted (a folder holding the table, one inside another
// deltafs mount, too). A non-empty directory is accepted with --nonempty;
// a second mount of a live mount point names the first one's pid (and
// leaves it serving); a dead mount after kill -9 says how to clear it.
func TestMountPointSafety(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	table := t.TempDir()
	gen := deltagen.New(table)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	mustCommit(t, gen, mustAdd(t, gen, "part-0.parquet", 10))
	// refusedBy runs a command line mounting at dir (the binary itself,
	// or a wrapper running it).
	refusedBy := func(argv []string, dir, want string) {
		t.Helper()
		before := mountsAt(t, dir)
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if code := exitCode(err); code != 1 || !strings.Contains(string(out), want) || strings.Count(string(out), "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 1 and one line with %q", argv, code, out, want)
		}
		if after := mountsAt(t, dir); after != before {
			t.Errorf("%s: %d mounts before, %d after", dir, before, after)
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	}
	refused := func(dir, want string, extra ...string) {
		t.Helper()
		refusedBy(append([]string{bin, "mount", table, dir}, extra...), dir, want)
	}

	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused(full, "is not empty (1 entry, e.g. keep.txt)")
	refused(filepath.Join(table, "_delta_log"), "lies inside the table")
	refused(filepath.Join(full, "keep.txt"), "is not a directory")
	// A link to a folder inside the table is that folder.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(table, "_delta_log"), link); err != nil {
		t.Fatal(err)
	}
	refused(link, "lies inside the table", "--nonempty")
	refused(filepath.Dir(table), "holds the table", "--nonempty")

	p := startMount(t, bin, table, full, "--nonempty", "--refresh=-1s")
	p.ready(t)
	refused(full, fmt.Sprintf("already mounted by deltafs (pid %d)", p.cmd.Process.Pid))
	refused(filepath.Join(full, "latest"), "lies inside the deltafs mount "+full, "--nonempty")
	if _, err := os.Stat(filepath.Join(full, "latest", "part-0.parquet")); err != nil {
		t.Errorf("the first mount stopped serving: %v", err)
	}
	p.stop(t, syscall.SIGTERM)

	// kill -9 leaves a dead mount: a new mount says how to clear it.
	dead := t.TempDir()
	p = startMount(t, bin, table, dead, "--refresh=-1s")
	p.ready(t)
	_ = p.cmd.Process.Kill()
	p.wait(procPatience)
	refused(dead, "fusermount3 -u "+dead)
	// A wrapper's command line names the mount point too: it is not the
	// process serving it.
	refusedBy([]string{"timeout", "600", bin, "mount", table, dead}, dead, "fusermount3 -u "+dead)
	_ = syscall.Unmount(dead, syscall.MNT_DETACH)
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// mountsAt counts the mounts stacked at dir.
func mountsAt(t *testing.T, dir string) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == dir {
			n++
		}
	}
	return n
}
