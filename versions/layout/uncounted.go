package layout

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/deltafs/deltafs/replay"
)

// A column past those a table collects stats for (the first 32 leaves by
// default) is counted by no file's stats, so a file written before it was
// added lacks it with nothing in the log to say so; its footer does. The
// same goes for every column of a file whose stats have no null counts
// (no stats at all, as CONVERT TO DELTA leaves a table's old files). A
// column, once added, is written by every file from then on: the files
// lacking one are the oldest. FindUncounted reads the footer of the
// oldest file and, where it lacks columns, searches the files by age for
// the first that lacks none, reading a few footers at a time: about
// log9(n) rounds of 8. The files older than that one are served through
// Fill (the first stat of each reads its footer; one lacking nothing is
// then served as stored).

// searchWidth is how many footers a round of FindUncounted reads at once.
const searchWidth = 8

// FindUncounted serves through Fill the entries lacking columns that
// their stats cannot tell of (Uncounted, or any column of the Unjudged
// files). lacks reads a file's footer: it says whether the file lacks a
// column Fill fills, and is called from several goroutines at once. Where
// a footer cannot be read (a copy of the log without its data files) it
// returns that error and serves every entry as before: the search would
// stand on a guess.
func (v *Version) FindUncounted(lacks func(*replay.File) (bool, error)) error {
	if !v.StatsUnsure() {
		return nil
	}
	// The files by age, then by name (Entries are sorted by name): their
	// modification times and indices, compact for the sort.
	type aged struct {
		mod int64
		i   int
	}
	older := func(a, b aged) int { return cmp.Or(cmp.Compare(a.mod, b.mod), cmp.Compare(a.i, b.i)) }
	searched := func(e *Entry) bool { return !e.Fill && e.File.Size >= 0 } // a negative size is refused at lookup
	var mu sync.Mutex
	var failed error
	lacking := func(a aged) bool {
		f := v.Entries[a.i].File
		l, err := lacks(f)
		if err != nil {
			mu.Lock()
			failed = cmp.Or(failed, fmt.Errorf("%s: %w", f.Path, err))
			mu.Unlock()
		}
		return l
	}
	// Where the oldest file lacks nothing, as in most tables, the files
	// need no sorting.
	oldest := aged{i: -1}
	for i := range v.Entries {
		if e := &v.Entries[i]; searched(e) && (oldest.i < 0 || e.File.ModTime < oldest.mod) {
			oldest = aged{e.File.ModTime, i}
		}
	}
	if oldest.i < 0 || !lacking(oldest) {
		return failed
	}
	byAge := make([]aged, 0, len(v.Entries))
	for i := range v.Entries {
		if e := &v.Entries[i]; searched(e) {
			byAge = append(byAge, aged{e.File.ModTime, i})
		}
	}
	slices.SortFunc(byAge, older)
	n := firstComplete(len(byAge), func(i int) bool { return lacking(byAge[i]) })
	if failed != nil {
		return failed
	}
	for _, a := range byAge[:n] {
		v.Entries[a.i].Fill = true
	}
	return nil
}

// firstComplete returns the first index in [1, n) at which lacking is
// false (n if none), lacking being true up to some index and false from
// it on, and true at 0. Each round calls lacking at up to searchWidth
// indices spread over what is left, at once.
func firstComplete(n int, lacking func(i int) bool) int {
	lo, hi := 1, n // lacking before lo; not lacking at hi (or hi == n)
	for lo < hi {
		at := make([]int, 0, searchWidth)
		for j := range min(hi-lo, searchWidth) {
			if hi-lo <= searchWidth {
				at = append(at, lo+j) // all that is left
			} else {
				at = append(at, lo+(hi-lo)*(j+1)/(searchWidth+1))
			}
		}
		got := make([]bool, len(at))
		var wg sync.WaitGroup
		for k, i := range at {
			wg.Go(func() { got[k] = lacking(i) })
		}
		wg.Wait()
		k := slices.Index(got, false)
		if k < 0 {
			lo = at[len(at)-1] + 1
			continue
		}
		hi = at[k]
		if k > 0 {
			lo = at[k-1] + 1
		}
	}
	return lo
}

// StatsUnsure says whether the files' stats leave some file's columns
// unknown (FindUncounted reads footers).
func (v *Version) StatsUnsure() bool {
	return v.Fill != nil && (len(v.Uncounted) > 0 || v.Unjudged > 0)
}

// Unsure says, for a message, what the stats leave unknown.
func (v *Version) Unsure() string {
	var what []string
	if len(v.Uncounted) > 0 {
		what = append(what, "the columns no stats count ("+FewNames(v.Uncounted)+")")
	}
	if v.Unjudged > 0 {
		files := "files"
		if v.Unjudged == 1 {
			files = "file"
		}
		what = append(what, fmt.Sprintf("the columns of %d %s without null counts", v.Unjudged, files))
	}
	return strings.Join(what, " and ")
}

// FewNames names columns for a message: the first five, and how many
// more (a wide table may have hundreds no stats count).
func FewNames(names []string) string {
	const shown = 5
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}
