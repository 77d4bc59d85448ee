package fs

import (
	"context"
	"os"
	"sync"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"

	"github.com/deltafs/deltafs/versions/serve"
)

// fileHandle is one open of a data file: the reader that serves its bytes
// (serve.Reader: held blocks, read-ahead, the view), and for a plain file
// of a local table the file handed to the kernel (FUSE passthrough).
type fileHandle struct {
	reader *serve.Reader // immutable

	mu       sync.Mutex
	backing  *os.File // GUARDED_BY(mu): the local file of a plain data file, its size checked at open; offered for passthrough
	released bool     // GUARDED_BY(mu)
}

var (
	_ = (fusefs.FileReleaser)((*fileHandle)(nil))
	_ = (fusefs.FilePassthroughFder)((*fileHandle)(nil))
)

// PassthroughFd gives the kernel the local file behind a plain data file,
// opened (under the store's rules) and its size checked at open, which the
// kernel then reads without asking deltafs (FUSE passthrough). go-fuse
// asks at the first open of a file, and keeps the kernel's registration
// while the file stays open anywhere.
func (h *fileHandle) PassthroughFd() (int, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.backing == nil || h.released {
		return 0, false
	}
	return int(h.backing.Fd()), true
}

// Release ends the reader's read-ahead and lets go of its blocks when the
// file is closed.
func (h *fileHandle) Release(ctx context.Context) syscall.Errno {
	h.mu.Lock()
	h.released = true
	if h.backing != nil {
		h.backing.Close() // the kernel holds its own reference to the file
		h.backing = nil
	}
	h.mu.Unlock()
	h.reader.Close()
	return 0
}
