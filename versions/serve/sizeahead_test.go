package serve

import (
	"context"
	"testing"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// TestSizingTokens: a view that reads only a footer takes one token
// whatever the file's size; one that re-encodes row groups takes one
// per 8 MiB of file, all of them from 128 MiB on.
func TestSizingTokens(t *testing.T) {
	rename := &parquetview.Rename{Columns: []parquetview.Column{{Name: "a", Physical: "col-1"}}}
	widen := &parquetview.Rename{Columns: []parquetview.Column{{Name: "s", Kind: parquetview.StructColumn, Children: []parquetview.Column{
		{Name: "x", Type: &parquetview.LeafType{}},
	}}}}
	dv := &action.DeletionVector{StorageType: "i"}
	for _, c := range []struct {
		name   string
		size   int64
		dv     *action.DeletionVector
		rename *parquetview.Rename
		want   int
	}{
		{"renamed, 1 GiB", 1 << 30, nil, rename, 1},
		{"deletion vector, 1 KiB", 1 << 10, dv, nil, 1},
		{"deletion vector, 40 MiB", 40 << 20, dv, rename, 5},
		{"deletion vector, 1 GiB", 1 << 30, dv, nil, sizeAheadTokens},
		{"widened in a struct, 64 MiB", 64 << 20, nil, widen, 8},
	} {
		if got := sizingTokens(Sized{File: &replay.File{Size: c.size, DV: c.dv}, Rename: c.rename}); got != c.want {
			t.Errorf("%s: %d tokens, want %d", c.name, got, c.want)
		}
	}
}

// TestTakeSizingEndsWithFiles: a taker waiting for tokens gives up when
// the Files close, and returns the part it took.
func TestTakeSizingEndsWithFiles(t *testing.T) {
	files := New(context.Background(), &memStorage{objects: map[string][]byte{}, readAt: map[string]int{}}, Options{})
	if !files.takeSizing(sizeAheadTokens - 2) {
		t.Fatal("free tokens not taken")
	}
	took := make(chan bool)
	go func() { took <- files.takeSizing(4) }()
	files.Close()
	if <-took {
		t.Error("4 tokens taken while 2 were free")
	}
	if n := len(files.sizing); n != sizeAheadTokens-2 {
		t.Errorf("%d tokens held, want the %d taken first", n, sizeAheadTokens-2)
	}
}
