package parquetview

import (
	"context"
	"errors"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestColumnChunks: the chunks of every column of every row group, as
// the file's own reader finds them, in file order; a file that is not
// Parquet is an error.
func TestColumnChunks(t *testing.T) {
	data := writeGroups(t, &parquet.Snappy, 100, 250, 7)
	chunks, err := ColumnChunks(context.Background(), &bytesSource{data: data}, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	_, f := readRows(t, data)
	var want []Extent
	for _, rg := range f.Metadata().RowGroups {
		for _, cc := range rg.Columns {
			start := cc.MetaData.DataPageOffset
			if d := cc.MetaData.DictionaryPageOffset; d > 0 && d < start {
				start = d
			}
			want = append(want, Extent{start, start + cc.MetaData.TotalCompressedSize})
		}
	}
	if len(chunks) != len(want) {
		t.Fatalf("%d chunks, want %d", len(chunks), len(want))
	}
	for i := range want {
		if chunks[i] != want[i] || (i > 0 && chunks[i].Start < chunks[i-1].End) {
			t.Errorf("chunk %d: %v, want %v, after %v", i, chunks[i], want[i], chunks[max(i-1, 0)])
		}
	}
	junk := []byte("not a parquet file at all, just bytes")
	if _, err := ColumnChunks(context.Background(), &bytesSource{data: junk}, int64(len(junk))); !errors.Is(err, ErrParquet) {
		t.Errorf("bytes that are not Parquet: %v, want ErrParquet", err)
	}
}

// FuzzColumnChunks: any bytes give column chunks that lie in the file,
// sorted, or an error; never a panic. (The mount reads ahead by them.)
func FuzzColumnChunks(f *testing.F) {
	f.Add(writeGroups(f, &parquet.Snappy, 3, 5))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		chunks, err := ColumnChunks(context.Background(), &bytesSource{data: data}, int64(len(data)))
		if err != nil {
			return
		}
		for i, c := range chunks {
			if c.Start < 4 || c.End <= c.Start || c.End > int64(len(data)) || (i > 0 && c.Start < chunks[i-1].Start) {
				t.Fatalf("chunk %d of %d: %v in a file of %d bytes", i, len(chunks), c, len(data))
			}
		}
	})
}
