package fs

import (
	"sync"

	"github.com/deltafs/deltafs/dvfilter"
)

// fileHandle is one open of a data file. It tracks whether the reader
// moves sequentially, to decide read-ahead, and holds the filtered view of
// a file with a deletion vector for as long as the file is open.
type fileHandle struct {
	view *dvfilter.View // nil without a deletion vector; immutable

	mu        sync.Mutex
	next      int64 // GUARDED_BY(mu): where a sequential reader reads next
	run       int   // GUARDED_BY(mu): sequential reads in a row
	scheduled int64 // GUARDED_BY(mu): blocks below this index are already prefetched
}

// advance records a read of [off, end) and returns the range of block
// indexes [from, to) to prefetch now, empty when the reader is not
// sequential or the window is already scheduled. The kernel's own read-ahead
// sends reads slightly out of order, so a read that starts up to one block
// away from where the previous one ended still counts as sequential.
func (h *fileHandle) advance(off, end, blockSize int64, window int) (from, to int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if off >= h.next-blockSize && off <= h.next+blockSize {
		h.run++
		h.next = max(h.next, end)
	} else {
		h.run = 0
		h.next = end
		h.scheduled = 0
		return 0, 0
	}
	last := (end - 1) / blockSize // block the reader is in
	from = max(last+1, h.scheduled)
	to = last + 1 + int64(window)
	if from >= to {
		return 0, 0
	}
	h.scheduled = to
	return from, to
}
