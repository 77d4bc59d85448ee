package serve

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
)

// TestViewReadsOfSmallAndLargeFiles: building the view of a file that the
// build's first read takes whole goes through the block cache, so the
// read of the file that follows asks storage for nothing more; a larger
// file's view reads its footer with a ranged read, not a block (a stat
// may build a view). Both views change nothing here: Unchanged.
func TestViewReadsOfSmallAndLargeFiles(t *testing.T) {
	type row struct {
		ID   int64  `parquet:"id"`
		Text string `parquet:"text"`
	}
	file := func(rows int) []byte {
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[row](&buf)
		for i := range rows {
			if _, err := w.Write([]row{{int64(i), fmt.Sprintf("%x-%d", i*7919, i*i)}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	st := &memStorage{objects: map[string][]byte{"small.parquet": file(100), "large.parquet": file(20000)}, readAt: map[string]int{}}
	if n := len(st.objects["large.parquet"]); n <= parquetview.FooterTail || n <= 2*testBlock {
		t.Fatalf("large.parquet is only %d bytes", n)
	}
	files := New(context.Background(), st, Options{BlockSize: 1 << 20})
	defer files.Close()
	rn := &parquetview.Rename{Key: "same", Columns: []parquetview.Column{{Name: "id", Physical: "id"}, {Name: "text", Physical: "text"}}}
	for _, c := range []struct {
		path                  string
		viewReads, totalReads int64
	}{{"small.parquet", 1, 1}, {"large.parquet", 1, 2}} {
		data := st.objects[c.path]
		f := &replay.File{Path: c.path, Size: int64(len(data))}
		st.reads.Store(0)
		st.bytes.Store(0)
		v, err := files.View(context.Background(), f, rn)
		if err != nil {
			t.Fatal(err)
		}
		if !v.Unchanged() || st.reads.Load() != c.viewReads || (c.path == "large.parquet" && st.bytes.Load() > parquetview.FooterTail) {
			t.Errorf("%s: unchanged %v, the view read %d times (%d bytes), want %d", c.path, v.Unchanged(), st.reads.Load(), st.bytes.Load(), c.viewReads)
		}
		r := files.Open(f.Path, f.Size, nil)
		got := make([]byte, len(data))
		for off := 0; off < len(data); {
			b, lease, err := r.Read(context.Background(), got[off:], int64(off))
			if err != nil || len(b) == 0 {
				t.Fatalf("%s: read at %d: %v", c.path, off, err)
			}
			copy(got[off:], b)
			off += len(b)
			if lease != nil {
				lease.Release()
			}
		}
		r.Close()
		if !bytes.Equal(got, data) || st.reads.Load() != c.totalReads {
			t.Errorf("%s: %d reads in all, want %d", c.path, st.reads.Load(), c.totalReads)
		}
	}
}
