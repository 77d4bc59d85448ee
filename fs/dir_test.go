package fs

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/deltafs/deltafs/versions/layout"
)

// fileIndex finds what a binary search finds, whatever the hint left by
// the lookups before: in listing order (READDIRPLUS), backwards, at
// random, names that are missing or are subdirectories.
func TestFileIndexAgreesWithSearch(t *testing.T) {
	names := []string{"d/", "d/a.parquet", "d/b.parquet", "d/c/x.parquet", "d/d.parquet", "d/e.parquet", "e.parquet"}
	es := make([]layout.Entry, len(names))
	for i, n := range names {
		es[i].Name = n
	}
	d := &dirNode{files: es, prefix: "d/", lo: 1, hi: 6}
	queries := []string{"a.parquet", "b.parquet", "c", "d.parquet", "e.parquet", "e.parquet", "d.parquet", "b.parquet",
		"a.parquet", "aa.parquet", "c", "z", "", "a"}
	for range 200 {
		queries = append(queries, queries[rand.IntN(len(queries))])
	}
	for _, q := range queries {
		want := 1 + sort.Search(5, func(i int) bool { return names[1+i] >= "d/"+q })
		got := d.fileIndex(q)
		if got != want {
			t.Fatalf("fileIndex(%q) = %d, want %d (hint %d)", q, got, want, d.next.Load())
		}
		if got < d.hi && names[got] == "d/"+q {
			d.next.Store(int64(got + 1)) // as Lookup does on a hit
		}
	}
}
