package layout

import (
	"cmp"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// parallelSortMin is the number of entries from which sorting is split
// over the CPUs: below it one sort is faster than the goroutines.
const parallelSortMin = 1 << 15

// byName orders entries by served name, then stored path.
func byName(a, b Entry) int {
	return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.File.Path, b.File.Path))
}

// sortEntries sorts es by byName.
func sortEntries(es []Entry) { SortFunc(es, byName) }

// SortFunc sorts es by cmp as slices.SortFunc does, on every core for a
// long slice (a version of a million files): runs sorted at once, then
// merged pairwise.
func SortFunc[T any](es []T, cmp func(a, b T) int) {
	parts := min(runtime.GOMAXPROCS(0), len(es)/parallelSortMin)
	if parts < 2 {
		slices.SortFunc(es, cmp)
		return
	}
	bounds := make([]int, parts+1)
	for i := range bounds {
		bounds[i] = len(es) * i / parts
	}
	var wg sync.WaitGroup
	for i := 0; i < parts; i++ {
		wg.Go(func() { slices.SortFunc(es[bounds[i]:bounds[i+1]], cmp) })
	}
	wg.Wait()
	// Merge the sorted runs pairwise, alternating between es and a buffer.
	src, dst := es, make([]T, len(es))
	for len(bounds) > 2 {
		var next []int
		for i := 0; i+1 < len(bounds); i += 2 {
			lo := bounds[i]
			if i+2 >= len(bounds) { // an odd run out: copied as it is
				copy(dst[lo:], src[lo:bounds[i+1]])
				next = append(next, lo)
				continue
			}
			mid, hi := bounds[i+1], bounds[i+2]
			wg.Go(func() { merge(dst[lo:hi], src[lo:mid], src[mid:hi], cmp) })
			next = append(next, lo)
		}
		wg.Wait()
		bounds = append(next, len(es))
		src, dst = dst, src
	}
	if &src[0] != &es[0] {
		copy(es, src)
	}
}

// merge merges the sorted runs a and b into out (len(a)+len(b) long),
// stably.
func merge[T any](out, a, b []T, cmp func(a, b T) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
}
