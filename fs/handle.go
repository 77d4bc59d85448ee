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

	openLocal func() (*os.File, error) // opens the local file behind a plain data file, offered for passthrough; immutable
	localSize int64                    // its size per the log; immutable

	mu       sync.Mutex
	backing  *os.File // GUARDED_BY(mu): the local file, open while the kernel may still be registering it
	released bool     // GUARDED_BY(mu)
}

var (
	_ = (fusefs.FileReleaser)((*fileHandle)(nil))
	_ = (fusefs.FilePassthroughFder)((*fileHandle)(nil))
)

// PassthroughFd gives the kernel the local file behind a plain data file,
// which it then reads without asking deltafs (FUSE passthrough). go-fuse
// asks at the first open of a file, and keeps the kernel's registration
// while the file stays open anywhere. A file that cannot be opened, or
// whose size is not the log's, is served through the mount instead, which
// reports the problem on read.
func (h *fileHandle) PassthroughFd() (int, bool) {
	if h.openLocal == nil {
		return 0, false
	}
	f, err := h.openLocal()
	if err != nil {
		return 0, false
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() != h.localSize {
		f.Close()
		return 0, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.released {
		f.Close()
		return 0, false
	}
	h.backing = f
	return int(f.Fd()), true
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
