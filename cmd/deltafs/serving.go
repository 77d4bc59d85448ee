package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// servingPatience bounds the wait for a new mount to answer: it takes
// milliseconds; only a wedged kernel or a mount lost in another namespace
// takes longer.
const servingPatience = 30 * time.Second

// awaitServing returns once the mount at dir is attached and answering, as
// a user sees it: /proc/self/mountinfo lists a deltafs mount there and a
// lookup of latest through it succeeds. "ready:" is printed only then: a
// script that waits for it runs `ls dir/latest/` at once, and must not
// meet the empty directory underneath (a newcomer's loop did, 8 times in
// 80, with no entry yet in /proc/mounts). ctx ending (a signal) stops the
// wait.
func awaitServing(ctx context.Context, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	deadline := time.Now().Add(servingPatience)
	for {
		fstype, mounted := mountedAt(abs)
		_, err = os.Lstat(filepath.Join(abs, "latest"))
		if mounted && strings.Contains(fstype, "deltafs") && err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("mount at %s: not answering after %v (mounted: %v, latest: %v)", dir, servingPatience, mounted, err)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
