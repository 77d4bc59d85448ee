package fs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"
)

// fuseDevice is the kernel's FUSE device.
const fuseDevice = "/dev/fuse"

// fuseHint says why a mount may have failed, in words a user can act on,
// where the cause is this machine's: go-fuse reports only what mount(2) or
// fusermount said ("fusermount exited with code 256" for a user who may
// not open the device). "" when nothing is amiss.
func fuseHint(dev string) string {
	switch err := unix.Access(dev, unix.R_OK|unix.W_OK); {
	case errors.Is(err, unix.ENOENT):
		return fmt.Sprintf("no %s: load the module (modprobe fuse), or in a container pass the device (--device %s)", dev, dev)
	case err != nil:
		return fmt.Sprintf("%s is not open to this user (%v): mount as root, or join the group that owns it", dev, err)
	}
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("fusermount3"); err != nil {
			if _, err := exec.LookPath("fusermount"); err != nil {
				return "no fusermount3 on PATH, which mounts for users other than root: install fuse3"
			}
		}
	}
	return ""
}

// hinted is a mount error with fuseHint's words after it (go-fuse's own
// message ends in a newline, trimmed).
type hinted struct {
	err  error
	hint string
}

func (h hinted) Error() string { return strings.TrimSpace(h.err.Error()) + " (" + h.hint + ")" }
func (h hinted) Unwrap() error { return h.err }
