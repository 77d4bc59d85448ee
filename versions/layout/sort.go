package layout

import (
	"cmp"
	"slices"
	"strings"
)

// byName orders entries by served name, then stored path, then deletion
// vector (a path may be live under two).
func byName(a, b Entry) int {
	return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.File.Path, b.File.Path),
		strings.Compare(a.File.DV.UniqueID(), b.File.DV.UniqueID()))
}

// sortEntries sorts es by byName: by name with orderOf's radix sort (a
// comparison sort of a million names sharing long prefixes took 0.5 s),
// then the rare runs of one name (files unique renames) by stored path.
func sortEntries(es []Entry) {
	sorted := make([]Entry, len(es))
	for k, i := range orderOf(len(es), func(i int) string { return es[i].Name }) {
		sorted[k] = es[i]
	}
	for lo := 0; lo < len(sorted); {
		hi := lo + 1
		for hi < len(sorted) && sorted[hi].Name == sorted[lo].Name {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(sorted[lo:hi], byName)
		}
		lo = hi
	}
	copy(es, sorted)
}
