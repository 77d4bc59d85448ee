package fs

import (
	"context"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// listHandle is one open of a directory whose listing is fixed: its
// entries (entries[i].Off == i+1) and a position in them.
type listHandle struct {
	entries []fuse.DirEntry
	pos     int // go-fuse serializes calls on a directory handle
}

var (
	_ = (fusefs.FileReaddirenter)((*listHandle)(nil))
	_ = (fusefs.FileSeekdirer)((*listHandle)(nil))
)

// Readdirent returns the next entry, or nil at the end.
func (h *listHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	if h.pos >= len(h.entries) {
		return nil, 0
	}
	e := h.entries[h.pos]
	h.pos++
	return &e, 0
}

// Seekdir moves to an offset a Readdirent returned (0: the start).
func (h *listHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	h.pos = int(min(off, uint64(len(h.entries))))
	return 0
}
