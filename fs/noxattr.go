package fs

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// noXAttrFS turns extended attributes off (Options.NoXAttrs): every
// request answers ENOSYS, after which the kernel asks no more and answers
// "Operation not supported" itself (`ls -l` stops asking each file for a
// label and an ACL). getfattr prints only that, so the first request that
// looks meant for deltafs's own attributes, a listing (getfattr -d) or a
// user.* name, is told in the log which flag serves them.
type noXAttrFS struct {
	fuse.RawFileSystem
	logf   func(format string, args ...any)
	hinted *atomic.Bool
}

func (fs noXAttrFS) GetXAttr(cancel <-chan struct{}, h *fuse.InHeader, attr string, dest []byte) (uint32, fuse.Status) {
	if strings.HasPrefix(attr, "user.") {
		fs.hint(h, "asked for "+attr)
	}
	return 0, fuse.Status(syscall.ENOSYS)
}

func (fs noXAttrFS) ListXAttr(cancel <-chan struct{}, h *fuse.InHeader, dest []byte) (uint32, fuse.Status) {
	fs.hint(h, "listed extended attributes")
	return 0, fuse.Status(syscall.ENOSYS)
}

func (fs noXAttrFS) SetXAttr(cancel <-chan struct{}, in *fuse.SetXAttrIn, attr string, data []byte) fuse.Status {
	return fuse.Status(syscall.ENOSYS)
}

func (fs noXAttrFS) RemoveXAttr(cancel <-chan struct{}, h *fuse.InHeader, attr string) fuse.Status {
	return fuse.Status(syscall.ENOSYS)
}

// hint logs, once per mount, that --xattrs serves the attributes a
// process (named while it runs) wanted; did says how it asked.
func (fs noXAttrFS) hint(h *fuse.InHeader, did string) {
	if fs.hinted.Swap(true) {
		return
	}
	who := "a process"
	if comm, err := os.ReadFile("/proc/" + strconv.Itoa(int(h.Caller.Pid)) + "/comm"); err == nil {
		who = strings.TrimSpace(string(comm))
	}
	fs.logf(`%s %s, but extended attributes are off ("Operation not supported"): mount with --xattrs to serve user.delta.*`, who, did)
}
