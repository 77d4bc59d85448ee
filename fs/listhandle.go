package fs

import (
	"context"
	"syscall"

	fusefs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// listHandle is one open of a directory whose listing is fixed: its
// entries (entries[i].Off == i+1) and a position in them. With list set,
// the entries are its result, asked for at the first Readdirent or
// Seekdir: a kernel that has the listing cached opens the directory but
// reads nothing.
type listHandle struct {
	list    func() []fuse.DirEntry
	entries []fuse.DirEntry
	pos     int // go-fuse serializes calls on a directory handle
}

// load fills entries from list, once.
func (h *listHandle) load() {
	if h.list != nil {
		h.entries, h.list = h.list(), nil
	}
}

var (
	_ = (fusefs.FileReaddirenter)((*listHandle)(nil))
	_ = (fusefs.FileSeekdirer)((*listHandle)(nil))
)

// Readdirent returns the next entry, or nil at the end.
func (h *listHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	h.load()
	if h.pos >= len(h.entries) {
		return nil, 0
	}
	e := h.entries[h.pos]
	h.pos++
	return &e, 0
}

// Seekdir moves to an offset a Readdirent returned (0: the start).
func (h *listHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	h.load()
	h.pos = int(min(off, uint64(len(h.entries))))
	return 0
}
