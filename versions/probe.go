package versions

import (
	"context"
	"math"
	"sync"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
)

// probeWidth bounds the listings one probing round issues in parallel.
const probeWidth = 16

// maxProbeRounds bounds the probing rounds before the rest is listed.
const maxProbeRounds = 20

// firstProbes are the versions the first probing round lists from: 0 and
// the powers of ten from 100 to 10^8 (the page at 0 nearly always reaches
// past 10). A log that reaches further is still found, by the next rounds,
// which search upwards from the last probe.
var firstProbes = func() []int64 {
	starts := []int64{0}
	for p := int64(100); p <= 1e8; p *= 10 {
		starts = append(starts, p)
	}
	return starts
}()

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

// findTail locates the end of the log without listing it from 0. A first
// round lists one page at 0 and at each power of ten; every later round
// probes the interval the end lies in (above the last full page, below the
// first empty one), with starts spaced from what a full page spans, until a
// page reaches the end. It returns the tail, every log file from version
// from to the end (from is 0 when the tail is the whole log). An empty log
// gives no files.
func findTail(ctx context.Context, st Store) (tail []replay.LogFile, from int64, err error) {
	starts, lo := firstProbes, int64(0)
	for round := 0; round < maxProbeRounds; round++ {
		pages, err := probePages(ctx, st, starts)
		if err != nil {
			return nil, 0, err
		}
		top := -1
		for i, p := range pages {
			if len(p.files) > 0 {
				top = i
			}
		}
		if top < 0 && round == 0 {
			return nil, 0, nil
		}
		if top < 0 {
			break // the log shrank under us: list it
		}
		if !pages[top].more {
			return tailOf(pages, top), pages[tailStart(pages, top)].start, nil
		}
		lo = maxVersion(pages[top].files)
		if lo == pages[top].start {
			break // one version fills a whole page: probing makes no progress
		}
		hi := int64(math.MaxInt64)
		if top+1 < len(pages) {
			hi = pages[top+1].start
		}
		starts = nextProbes(lo, hi, pageSpan(pages[top]))
	}
	// Pathological layouts (thousands of files per version): list the rest.
	tail, err = listFrom(ctx, st, startKey(lo))
	return tail, lo, err
}

// tailStart is the lowest page, at or below top, from which the pages
// chain up to the end: each one ending at or above the next one's start.
func tailStart(pages []page, top int) int {
	first := top
	for i := top - 1; i >= 0; i-- {
		if len(pages[i].files) == 0 || maxVersion(pages[i].files) < pages[first].start {
			break
		}
		first = i
	}
	return first
}

// tailOf joins the pages that chain up to the end (see tailStart).
func tailOf(pages []page, top int) []replay.LogFile {
	var out []replay.LogFile
	for i := tailStart(pages, top); i <= top; i++ {
		out = merge(out, pages[i].files)
	}
	return out
}

// pageSpan is how many versions one full page covers, at least 1.
func pageSpan(p page) int64 {
	lo, hi := p.start, maxVersion(p.files)
	if len(p.files) > 0 {
		lo = p.files[0].Version
	}
	return max(1, hi-lo)
}

// nextProbes places the next round's starts in [lo, hi), where the end of
// the log lies, given span, the versions one page covers. When few enough
// starts at half a span apart cover the interval, the round ends the
// search: one of its pages reaches the end from at least half a page
// below it (so it usually holds the newest checkpoint too). Otherwise the
// round narrows the interval: k evenly spaced starts leave a k-th of it,
// and k near the square root of the starts a direct round would need keeps
// both rounds small.
func nextProbes(lo, hi int64, span int64) []int64 {
	step := max(1, span/2)
	if hi == math.MaxInt64 {
		hi = lo + max(1e9, 1000*span) // beyond the first probes: search upwards
	}
	need := (hi - lo + step - 1) / step
	if need > probeWidth {
		k := min(probeWidth, int64(math.Ceil(math.Sqrt(float64(need)))))
		step = (hi - lo + k - 1) / k
	}
	var out []int64
	for v := lo; v < hi; v += step {
		out = append(out, v)
	}
	return out
}
