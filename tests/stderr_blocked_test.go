package tests

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestReadsDoNotWaitForStderr: `deltafs mount` whose stderr is a pipe
// nothing reads, on a table whose 2,000 data files are missing: each read
// fails with EIO and logs a line, far more than the pipe holds. The reads
// must all fail, none hang (they did, behind the first log line that
// found the pipe full).
func TestReadsDoNotWaitForStderr(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	table := t.TempDir()
	gen := deltagen.New(table)
	const files = 2000
	var adds []action.Action
	for i := range files {
		adds = append(adds, deltagen.AddFile(fmt.Sprintf("missing-file-with-a-rather-long-name-%05d.parquet", i), 1000, 1_700_000_000_000, nil, ""))
	}
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	mustCommit(t, gen, adds...)

	dir := t.TempDir()
	stderrR, stderrW, err := os.Pipe() // never read
	if err != nil {
		t.Fatal(err)
	}
	defer stderrR.Close()
	cmd := exec.Command(bin, "mount", table, dir, "--refresh=-1s")
	cmd.Stderr = stderrW
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderrW.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		_ = syscall.Unmount(dir, syscall.MNT_DETACH)
	})
	if sc := bufio.NewScanner(stdout); !sc.Scan() || !strings.HasPrefix(sc.Text(), "ready") {
		t.Fatalf("no ready line: %q", sc.Text())
	}
	done := make(chan error, 1)
	go func() {
		for i := range files {
			_, err := os.ReadFile(filepath.Join(dir, "latest", fmt.Sprintf("missing-file-with-a-rather-long-name-%05d.parquet", i)))
			if !errors.Is(err, syscall.EIO) {
				done <- fmt.Errorf("file %d: %v, want EIO", i, err)
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(procPatience):
		t.Fatalf("reads of missing files still hanging after %v with stderr not read", procPatience)
	}
}
