package versions

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
)

// locate finds the tail of the log by probing, then the newest complete
// checkpoint, and returns the log from that checkpoint to the end, and
// whether that is the whole log.
func (t *Table) locate(ctx context.Context) ([]replay.LogFile, bool, error) {
	tail, from, err := findTail(ctx, t.st)
	if err != nil || len(tail) == 0 {
		return nil, false, err
	}
	return fromTail(ctx, t.st, tail, from)
}

// fromTail completes a tail (every log file from version from on) back to
// the newest complete checkpoint: when the tail holds one, it is enough;
// else the checkpoint is searched below it, and the log between them taken
// from the search's pages, listing only what they leave out (in parallel,
// not one page after another). It reports whether the files returned are
// the whole log.
func fromTail(ctx context.Context, st Store, tail []replay.LogFile, from int64) ([]replay.LogFile, bool, error) {
	if from <= 0 {
		return tail, true, nil
	}
	latest := maxVersion(tail)
	if newestCheckpoint(tail, latest) >= 0 {
		return tail, false, nil
	}
	c, pages, err := findCheckpoint(ctx, st, windowStep(tail), from)
	if err != nil {
		return nil, false, err
	}
	head, gaps := fromPages(pages, startKey(max(c, 0)), startKey(from))
	rest, err := listRanges(ctx, st, gaps)
	if err != nil {
		return nil, false, err
	}
	return merge(slices.Concat(head, rest), tail), c <= 0, nil
}

// findCheckpoint returns the version of the newest complete checkpoint
// below version below, and the pages listed to find it, listing one page
// in each of probeWidth windows of step versions at a time, backwards from
// below. -1: there is none. A checkpoint between two windows may be missed
// for an older one, which is still correct: the caller takes everything
// from the one found.
func findCheckpoint(ctx context.Context, st Store, step, below int64) (int64, []page, error) {
	var seen []replay.LogFile
	var all []page
	for end := below; end > 0; end -= step * probeWidth {
		var starts []int64
		for j := int64(1); j <= probeWidth && end-j*step+step > 0; j++ {
			starts = append(starts, max(0, end-j*step))
		}
		pages, err := probePages(ctx, st, starts)
		if err != nil {
			return -1, nil, err
		}
		all = append(all, pages...)
		for _, p := range pages {
			seen = append(seen, p.files...)
		}
		if c := newestCheckpoint(seen, below-1); c >= 0 {
			return c, all, nil
		}
	}
	return -1, all, nil
}

// keyRange is the keys after one key and before another.
type keyRange struct{ after, before string }

// fromPages returns the log files with keys after start and before stop
// that pages hold, and the ranges of those keys no page covers. A page
// holds every key from its start to its last file's, or to the end of the
// log when no more follow it.
func fromPages(pages []page, start, stop string) ([]replay.LogFile, []keyRange) {
	pages = slices.Clone(pages)
	slices.SortFunc(pages, func(a, b page) int { return cmp.Compare(a.start, b.start) })
	var files []replay.LogFile
	var gaps []keyRange
	reach := start // every key after start up to reach is in a page seen
	for _, p := range pages {
		if reach >= stop {
			break
		}
		if from := startKey(p.start); from > reach {
			gaps = append(gaps, keyRange{reach, min(from, stop)})
			reach = from
		}
		if len(p.files) > 0 {
			reach = max(reach, p.files[len(p.files)-1].Key)
		}
		if !p.more {
			reach = max(reach, stop)
		}
		for _, f := range p.files {
			if f.Key > start && f.Key < stop {
				files = append(files, f)
			}
		}
	}
	if reach < stop {
		gaps = append(gaps, keyRange{reach, stop})
	}
	return files, gaps
}

// listRanges lists the log files in each range, probeWidth ranges at a
// time.
func listRanges(ctx context.Context, st Store, ranges []keyRange) ([]replay.LogFile, error) {
	found := make([][]replay.LogFile, len(ranges))
	errs := make([]error, len(ranges))
	slots := make(chan struct{}, probeWidth)
	var wg sync.WaitGroup
	for i, r := range ranges {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			found[i], errs[i] = listBetween(ctx, st, r.after, r.before)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(found...), nil
}

// listBetween lists the log files with keys from start up to (not
// including) stop, stopping at the first page that reaches stop.
func listBetween(ctx context.Context, st Store, start, stop string) ([]replay.LogFile, error) {
	var objs []blobstore.Object
	err := st.List(ctx, replay.LogDir, start, func(o blobstore.Object) bool {
		if strings.Compare(o.Key, stop) >= 0 {
			return false
		}
		objs = append(objs, o)
		return true
	})
	return logFiles(objs), err
}

// windowStep estimates how many versions one listing page covers from a
// contiguous run of the log.
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

// newestCheckpoint is the version of the newest complete checkpoint at or
// below atOrBelow in a listing, or -1.
func newestCheckpoint(files []replay.LogFile, atOrBelow int64) int64 {
	best := int64(-1)
	for _, c := range replay.CompleteCheckpoints(files) {
		if c <= atOrBelow && c > best {
			best = c
		}
	}
	return best
}
