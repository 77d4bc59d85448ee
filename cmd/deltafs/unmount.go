package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
)

// lazyUnmount detaches the mount at dir even while it is busy (an open
// file, a shell whose working directory is inside): the mount leaves the
// namespace at once and the kernel drops it when the last user lets go. It
// is the fallback when a plain unmount fails, so that stopping deltafs never
// leaves a dead mount ("Transport endpoint is not connected") behind.
func lazyUnmount(dir string) error {
	if err := syscall.Unmount(dir, syscall.MNT_DETACH); err == nil {
		return nil // root, or CAP_SYS_ADMIN
	}
	var errs []string
	for _, bin := range []string{"fusermount3", "fusermount"} {
		path, err := exec.LookPath(bin)
		if err != nil {
			continue
		}
		var stderr bytes.Buffer
		cmd := exec.Command(path, "-u", "-z", dir)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v: %s", bin, err, strings.TrimSpace(stderr.String())))
			continue
		}
		return nil
	}
	if len(errs) == 0 {
		return fmt.Errorf("lazy unmount of %s: no fusermount3 or fusermount found", dir)
	}
	return fmt.Errorf("lazy unmount of %s: %s", dir, strings.Join(errs, "; "))
}
