package serve

import (
	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
)

// Sized is a file as ServedSize takes it: with the Rename it is served
// with, and whether that keeps its stored size.
type Sized struct {
	File     *replay.File
	Rename   *parquetview.Rename
	SameSize bool
}

// sizeAheadWorkers is how many views SizeAhead builds at once: enough to
// overlap the round trips of a remote store, few enough not to crowd
// the reads a reader waits for.
const sizeAheadWorkers = 16

// SizeAhead learns in the background the served sizes of files about to
// be looked up. A listing (READDIRPLUS, ls -l) stats its files one after
// another; a file served as a view costs a footer read, and a vector's,
// before its size is known, so in order they are that many round trips
// in a row. Built ahead, they overlap. Errors are left for the lookup,
// which builds the view again and reports them.
func (fs *Files) SizeAhead(files []Sized) {
	var todo []Sized
	for _, s := range files {
		if !NeedsView(s.File, s.Rename) || (s.File.DV == nil && s.SameSize) {
			continue
		}
		if _, ok := fs.sizes.Get(viewKey(s.File, s.Rename)); !ok {
			todo = append(todo, s)
		}
	}
	if len(todo) == 0 {
		return
	}
	go func() {
		for _, s := range todo {
			select {
			case fs.sizing <- struct{}{}:
			case <-fs.ctx.Done():
				return
			}
			go func() {
				defer func() { <-fs.sizing }()
				_, _ = fs.ServedSize(fs.ctx, s.File, s.Rename, s.SameSize)
			}()
		}
	}()
}
