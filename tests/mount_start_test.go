package tests

// The start of a mount as a script meets it: "ready:" means the mount
// answers.

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
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
