package main

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions/layout"
	"github.com/deltafs/deltafs/versions/serve"
)

// doctorColumns is what doctor found of the columns of latest's files. A
// mount serves a file lacking columns the table added with them, as
// nulls, where its stats say so, or, for columns no stats count and files
// whose stats have no null counts, where the footers of the oldest files
// do; a file whose stats count a column it lacks is served as stored.
// doctor reads the footers of some files served as stored, most of them
// among those their stats do not vouch for, to see whether they lack
// columns.
type doctorColumns struct {
	Filled        int      `json:"filled"`        // files lacking columns, served with them
	WithoutCounts int      `json:"withoutCounts"` // files whose stats have no null counts, judged by footers
	Uncounted     []string `json:"uncounted"`     // columns no file's stats count (past those the table collects stats for)
	Checked       int      `json:"checked"`       // files served as stored whose footers were read (a sample)
	Lacking       int      `json:"lacking"`       // of those, files lacking columns: served without them
	Columns       []string `json:"columns"`       // the columns they lack
	Examples      []string `json:"examples"`      // a few such files
}

// maxColumnChecks bounds the footers doctor reads of the files served as
// stored that their stats do not vouch for, maxVouchedChecks of the
// others (their stats may be wrong): each spread evenly over the files.
const (
	maxColumnChecks  = 50
	maxVouchedChecks = 10
)

// checkColumns counts latest's files served with columns they lack, and
// reads the footers of a sample of those whose stats do not say. lay is
// latest laid out as a mount serves it, from its details.
func checkColumns(ctx context.Context, st serve.StoreStorage, snap *replay.Snapshot, details *replay.Details, lay *layout.Version) doctorColumns {
	var r doctorColumns
	if lay.Fill == nil {
		return r // no schema to check the files against
	}
	// Each footer is read once: the search's and the sample's may meet.
	type footer struct {
		cols []string
		err  error
	}
	var mu sync.Mutex
	read := map[*replay.File]footer{}
	lackingOf := func(f *replay.File) ([]string, error) {
		mu.Lock()
		got, ok := read[f]
		mu.Unlock()
		if !ok {
			src := parquetview.RangeReaderFunc(func(ctx context.Context, off, n int64) ([]byte, error) {
				return st.ReadRange(ctx, f.Path, off, n)
			})
			got.cols, got.err = parquetview.Lacking(ctx, src, f.Size, lay.Fill)
			mu.Lock()
			read[f] = got
			mu.Unlock()
		}
		return got.cols, got.err
	}
	// A footer that cannot be read is the data files check's to report;
	// the mount then serves the files as stored, as counted here.
	_ = lay.FindUncounted(func(f *replay.File) (bool, error) {
		cols, err := lackingOf(f)
		return len(cols) > 0, err
	})
	r.Uncounted = lay.Uncounted
	filled := map[*replay.File]bool{}
	for _, e := range lay.Entries {
		if e.Fill {
			r.Filled++
			filled[e.File] = true
		}
	}
	// The files served as stored whose stats do not say they have every
	// column: without null counts, or every one where columns are
	// uncounted (FindUncounted judged them by the oldest files' footers);
	// and the others, vouched for by their stats.
	var unknown, vouched []*replay.File
	for i := range snap.Files {
		f := &snap.Files[i]
		served := st.Serves(f.Path) && f.Size >= 0
		if served && details.NullCounted[i] == nil {
			r.WithoutCounts++
		}
		switch {
		case filled[f] || !served:
		case details.NullCounted[i] == nil || len(lay.Uncounted) > 0:
			unknown = append(unknown, f)
		default:
			vouched = append(vouched, f)
		}
	}
	sample := append(spread(unknown, maxColumnChecks), spread(vouched, maxVouchedChecks)...)
	lacking := make([][]string, len(sample))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i, f := range sample {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			// A footer that cannot be read is the data files check's to
			// report.
			lacking[i], _ = lackingOf(f)
		}()
	}
	wg.Wait()
	r.Checked = len(sample)
	for i, cols := range lacking {
		if len(cols) == 0 {
			continue
		}
		r.Lacking++
		if len(r.Examples) < 5 {
			r.Examples = append(r.Examples, sample[i].Path+": "+strings.Join(cols, ", "))
		}
		for _, c := range cols {
			if !slices.Contains(r.Columns, c) {
				r.Columns = append(r.Columns, c)
			}
		}
	}
	return r
}
