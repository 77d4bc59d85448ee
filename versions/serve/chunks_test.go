package serve

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
)

type chunkRow struct {
	A int64 `parquet:"a"`
	B int64 `parquet:"b"`
	C int64 `parquet:"c"`
}

// chunkedParquet is a Parquet file of rows random rows in row groups of
// perGroup, uncompressed: each column chunk 8 bytes a row.
func chunkedParquet(t *testing.T, rows, perGroup int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[chunkRow](&buf, parquet.MaxRowsPerRowGroup(int64(perGroup)))
	rng := rand.New(rand.NewPCG(1, 2))
	batch := make([]chunkRow, rows)
	for i := range batch {
		batch[i] = chunkRow{int64(rng.Uint64()), int64(rng.Uint64()), int64(rng.Uint64())}
	}
	if _, err := w.Write(batch); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadAheadStopsAtTheColumnChunk: a reader of one column of a row
// group (after the footer, as Parquet readers do) gets the chunk read
// ahead, and nothing past it; one that goes on past the chunk gets read
// ahead again; a copy from the file's start is not held back.
func TestReadAheadStopsAtTheColumnChunk(t *testing.T) {
	data := chunkedParquet(t, 300_000, 150_000) // 2 row groups of 3 chunks of 1.2 MB: 18 test blocks each
	st := &memStorage{objects: map[string][]byte{"f.parquet": data}, readAt: map[string]int{}}
	chunks, err := parquetview.ColumnChunks(context.Background(), parquetview.RangeReaderFunc(func(_ context.Context, off, n int64) ([]byte, error) {
		return data[off:min(off+n, int64(len(data)))], nil
	}), int64(len(data)))
	if err != nil || len(chunks) != 6 {
		t.Fatalf("ColumnChunks: %v, %v", chunks, err)
	}
	size := int64(len(data))
	files := New(context.Background(), st, Options{BlockSize: testBlock, CacheBytes: 64 << 20, ReadAhead: 64})
	defer files.Close()
	read := func(r *Reader, from, to int64) {
		t.Helper()
		buf := make([]byte, 16<<10)
		for off := from; off < to; off += int64(len(buf)) {
			checkRead(t, r, buf[:min(int64(len(buf)), to-off)], off, data)
		}
	}
	settled := func() int64 {
		t.Helper()
		waitUntil(t, "loads to end", func() bool { return files.held.inUse() == 0 })
		return st.bytes.Load()
	}
	blocksOf := func(e parquetview.Extent) int64 { return ((e.End-1)/testBlock - e.Start/testBlock + 1) * testBlock }

	r := files.Open("f.parquet", size, nil)
	read(r, size-64<<10, size) // the footer
	r.Close()
	before := settled()
	col := chunks[1] // column b of the first row group
	r = files.Open("f.parquet", size, nil)
	read(r, col.Start, col.End)
	r.Close()
	if got, want := settled()-before, blocksOf(col); got > want {
		t.Errorf("reading a chunk of %d bytes fetched %d, want at most its %d bytes of blocks", col.End-col.Start, got, want)
	}

	// Going on past the chunk: read-ahead again, well past the next read.
	pastEnd := func(r *Reader, e parquetview.Extent) {
		t.Helper()
		read(r, e.Start, e.End+2*testBlock)
		waitUntil(t, "read-ahead past the chunk", func() bool {
			return files.cached("f.parquet", (e.End+8*testBlock)/testBlock)
		})
		r.Close()
	}
	pastEnd(files.Open("f.parquet", size, nil), chunks[2])
	// A copy, from the start of the file, is read ahead past the first
	// chunk before it gets there.
	r = files.Open("f.parquet", size, nil)
	read(r, 0, chunks[0].End-4*testBlock)
	waitUntil(t, "a copy's read-ahead past the first chunk", func() bool {
		return files.cached("f.parquet", chunks[0].End/testBlock+1)
	})
	r.Close()
}
