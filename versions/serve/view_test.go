package serve

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
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

// TestViewForReadingReadsFooterBlocks: with FooterBlocks, a view built
// for reading reads the file's footer as the blocks it lies in, where
// the reader's own read of the footer then finds them; a stat's build
// (ServedSize) still reads the footer alone. Block sizes put the footer
// read inside one block and across two.
func TestViewForReadingReadsFooterBlocks(t *testing.T) {
	type row struct {
		ID   int64  `parquet:"id"`
		Text string `parquet:"text"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	for i := range 20000 {
		if _, err := w.Write([]row{{int64(i), fmt.Sprintf("%x-%d", i*7919, i*i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	size := int64(len(data))
	tail := int64(parquetview.FooterTail)
	rn := &parquetview.Rename{Key: "same", Columns: []parquetview.Column{{Name: "id", Physical: "id"}, {Name: "text", Physical: "text"}}}
	// Block sizes whose last block holds the footer read, and whose last
	// two do.
	sizes := map[int64]int64{}
	for bs := int64(96 << 10); bs < size/2 && len(sizes) < 2; bs += 4 << 10 {
		if n := map[bool]int64{true: 1, false: 2}[size%bs >= tail]; !slices.Contains(slices.Collect(maps.Values(sizes)), n) && size%bs > 0 {
			sizes[bs] = n
		}
	}
	if len(sizes) != 2 {
		t.Fatalf("no block sizes for a file of %d bytes", size)
	}
	for bs, blocks := range sizes {
		f := &replay.File{Path: "f.parquet", Size: size}
		st := &memStorage{objects: map[string][]byte{"f.parquet": data}, readAt: map[string]int{}}
		files := New(context.Background(), st, Options{BlockSize: bs, FooterBlocks: true})
		if _, err := files.ServedSize(context.Background(), Sized{File: f, Rename: rn}); err != nil || st.reads.Load() != 1 || st.bytes.Load() != tail {
			t.Errorf("block size %d: a stat's build read %d times, %d bytes (%v); want the footer's %d bytes", bs, st.reads.Load(), st.bytes.Load(), err, tail)
		}
		files.Close()

		st = &memStorage{objects: map[string][]byte{"f.parquet": data}, readAt: map[string]int{}}
		files = New(context.Background(), st, Options{BlockSize: bs, FooterBlocks: true})
		v, err := files.View(context.Background(), f, rn)
		if err != nil || !v.Unchanged() || st.reads.Load() != blocks {
			t.Errorf("block size %d: the view read %d times (%v), want the %d blocks of the footer", bs, st.reads.Load(), err, blocks)
		}
		r := files.Open(f.Path, f.Size, nil)
		for off := size - tail; off < size; {
			b, lease, err := r.Read(context.Background(), make([]byte, size-off), off)
			if err != nil || !bytes.Equal(b, data[off:off+int64(len(b))]) {
				t.Fatalf("block size %d: read at %d: %v", bs, off, err)
			}
			off += int64(len(b))
			lease.Release()
		}
		r.Close()
		if st.reads.Load() != blocks {
			t.Errorf("block size %d: the reader's footer read read again: %d reads in all", bs, st.reads.Load())
		}
		files.Close()
	}
}

// TestViewOfATruncatedFile: a stored file shorter than its add action
// says fails its view with a short read, its footer read as blocks too.
func TestViewOfATruncatedFile(t *testing.T) {
	st := newMemStorage(map[string]int{"f.parquet": 300 << 10})
	for _, footerBlocks := range []bool{false, true} {
		files := New(context.Background(), st, Options{BlockSize: 128 << 10, FooterBlocks: footerBlocks})
		f := &replay.File{Path: "f.parquet", Size: 500 << 10}
		_, err := files.View(context.Background(), f, &parquetview.Rename{Key: "k"})
		if err == nil || !strings.Contains(err.Error(), "short read") {
			t.Errorf("footer blocks %v: %v, want a short read", footerBlocks, err)
		}
		files.Close()
	}
}
