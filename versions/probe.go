package versions

import (
	"context"
	"sync"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
)

// probeWidth is how many listings one probing round issues in parallel.
const probeWidth = 16

// page is the first listing page after one start key.
type page struct {
	start int64 // first version the listing could return
	files []replay.LogFile
	more  bool
}

// probePages lists the first page after each start version, all at once.
func probePages(ctx context.Context, st Store, starts []int64) ([]page, error) {
	pages := make([]page, len(starts))
	errs := make([]error, len(starts))
	var wg sync.WaitGroup
	for i, v := range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var objs []blobstore.Object
			objs, pages[i].more, errs[i] = st.ListPage(ctx, replay.LogDir, startKey(v))
			pages[i].start, pages[i].files = v, logFiles(objs)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return pages, nil
}

// findTail locates the end of the log without listing it from 0: a round of
// listings at powers of ten, then rounds that split the last non-empty
// interval, until one page reaches the end. It returns every file seen.
func findTail(ctx context.Context, st Store) ([]replay.LogFile, error) {
	starts := []int64{0}
	for p := int64(10); p <= 1e15; p *= 10 {
		starts = append(starts, p)
	}
	var seen []replay.LogFile
	for round := 0; round < 20; round++ {
		pages, err := probePages(ctx, st, starts)
		if err != nil {
			return nil, err
		}
		top := -1
		for i, p := range pages {
			seen = append(seen, p.files...)
			if len(p.files) > 0 {
				top = i
			}
		}
		if top < 0 || !pages[top].more {
			return seen, nil
		}
		lo := maxVersion(pages[top].files)
		hi := lo + 1e15
		if top+1 < len(pages) {
			hi = pages[top+1].start
		}
		starts = split(lo, hi)
	}
	// Pathological layouts (thousands of files per version): list the rest.
	rest, err := listFrom(ctx, st, startKey(maxVersion(seen)))
	return append(seen, rest...), err
}

// split returns up to probeWidth distinct starts in (lo, hi).
func split(lo, hi int64) []int64 {
	var out []int64
	for j := int64(0); j < probeWidth; j++ {
		v := lo + (hi-lo)*j/probeWidth
		if j == 0 {
			v = lo
		}
		if len(out) == 0 || v > out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// findCheckpoint returns the version of the newest complete checkpoint at or
// below latest, looking first in the files already seen, then in windows
// listed backwards from the end, probeWidth at a time. -1: there is none.
func findCheckpoint(ctx context.Context, st Store, seen []replay.LogFile, latest int64) (int64, error) {
	if c := newestCheckpoint(seen, latest); c >= 0 {
		return c, nil
	}
	step := windowStep(seen)
	for end := latest; end > 0; end -= step * probeWidth {
		var starts []int64
		for j := int64(1); j <= probeWidth && end-j*step+step > 0; j++ {
			starts = append(starts, max(0, end-j*step))
		}
		pages, err := probePages(ctx, st, starts)
		if err != nil {
			return -1, err
		}
		for _, p := range pages {
			seen = append(seen, p.files...)
		}
		if c := newestCheckpoint(seen, latest); c >= 0 {
			return c, nil
		}
	}
	return -1, nil
}

// windowStep estimates how many versions one listing page covers.
func windowStep(files []replay.LogFile) int64 {
	lo, hi := int64(-1), int64(-1)
	for _, f := range files {
		if lo < 0 || f.Version < lo {
			lo = f.Version
		}
		hi = max(hi, f.Version)
	}
	step := int64(300) // Spark writes about three files per version
	if n := int64(len(files)); hi > lo && n > 0 {
		step = max(1, 1000*(hi-lo+1)/n*9/10)
	}
	return step
}

func newestCheckpoint(files []replay.LogFile, atOrBelow int64) int64 {
	best := int64(-1)
	for _, c := range replay.CompleteCheckpoints(files) {
		if c <= atOrBelow && c > best {
			best = c
		}
	}
	return best
}
