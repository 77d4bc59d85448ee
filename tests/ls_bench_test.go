package tests

import (
	"bufio"
	"context"
	"io"
	"testing"

	"github.com/deltafs/deltafs/versions/layout"
)

// `deltafs ls` of the 1M-file bench table, past the snapshot: its output in
// path order (BenchmarkLsSorted, what the command prints) against the same
// lines in log order (BenchmarkLsUnsorted), written to io.Discard.
func benchLs(b *testing.B, sorted bool) {
	dir, _ := benchTable(b)
	snap := latestSnapshot(b, context.Background(), dir)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := bufio.NewWriter(io.Discard)
		if sorted {
			if err := layout.WritePaths(w, snap.Files, layout.PathOrder(snap.Files)); err != nil {
				b.Fatal(err)
			}
		} else {
			for k := range snap.Files {
				w.WriteString(snap.Files[k].Path)
				w.WriteByte('\n')
			}
		}
		w.Flush()
	}
}

func BenchmarkLsSorted(b *testing.B)   { benchLs(b, true) }
func BenchmarkLsUnsorted(b *testing.B) { benchLs(b, false) }
