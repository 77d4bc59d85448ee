package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestStopSignalCaughtFirst runs this test binary (which imports what
// deltafs imports) with GODEBUG=inittrace=1: stopsignal must start catching
// SIGINT among the first packages initialized, before the heavy ones
// (gRPC, AWS, GCS: about 16 ms). A SIGINT sent to a background job in
// that window was dropped, and the mount went on serving (5 runs in 60 of
// a loop signalling 0-500 ms after start; 41 in 80 at 0-30 ms).
func TestStopSignalCaughtFirst(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var inits []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			inits = append(inits, f[1])
		}
	}
	at := -1
	for i, pkg := range inits {
		if strings.HasSuffix(pkg, "/cmd/deltafs/internal/stopsignal") {
			at = i
			break
		}
	}
	if at < 0 || at > len(inits)/10 {
		t.Fatalf("stopsignal initialized %dth of %d packages, want among the first tenth; before it:\n%s",
			at+1, len(inits), strings.Join(inits[:max(at, 0)], "\n"))
	}
}

// TestGoroutineDump: what SIGQUIT writes before deltafs stops holds every
// goroutine's stack, this test's among them, as Go's own dump does.
func TestGoroutineDump(t *testing.T) {
	var b strings.Builder
	dumpGoroutines(&b)
	if out := b.String(); !strings.HasPrefix(out, "SIGQUIT: goroutine dump") || !strings.Contains(out, "\ngoroutine 1 [") || !strings.Contains(out, "TestGoroutineDump") {
		t.Errorf("dump:\n%.2000s", out)
	}
}
