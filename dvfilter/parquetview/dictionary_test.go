package parquetview

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter"
)

// sharedBlobRow has a list (its row group is re-encoded whole) and a
// dictionary-encoded string every row shares.
type sharedBlobRow struct {
	ID   int64    `parquet:"id"`
	Tags []string `parquet:"tags,list"`
	Blob string   `parquet:"blob,dict"`
}

// TestDictionaryColumnsStayDictionaries: a re-encoded row group writes a
// column stored with a dictionary with one, not PLAIN: 1,000 rows naming
// one 100 KB string are a file of about 100 KB, and were a view of 100 MB
// (30,000 of them, a 1 MB file, ran a process out of memory).
func TestDictionaryColumnsStayDictionaries(t *testing.T) {
	blob := strings.Repeat("0123456789", 10_000)
	data := writeRowGroups(t, func(i int64) sharedBlobRow { return sharedBlobRow{ID: i, Tags: []string{"a"}, Blob: blob} }, []int{1000},
		parquet.Compression(&parquet.Snappy))
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(0), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Size() > 2*int64(len(data)) {
		t.Fatalf("a view of %d bytes from a file of %d", v.Size(), len(data))
	}
	out := materialize(t, v, src)
	blobs := footerOf(t, out).RowGroups[0].Columns[2].MetaData.Encoding
	if !slices.Contains(blobs, format.RLEDictionary) {
		t.Errorf("blob column encoded %v, want a dictionary", blobs)
	}
	want := allRows(t, data)[1:]
	got := allRows(t, out)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if !got[i].Equal(want[i]) {
			t.Fatalf("row %d differs", i)
		}
	}
	if len(got) > 0 && !bytes.Equal(got[0][2].ByteArray(), []byte(blob)) {
		t.Fatalf("blob of row 0 is %d bytes", len(got[0][2].ByteArray()))
	}
}

// TestDictionaryLeaves: a chunk is re-encoded with a dictionary when it
// was written with one throughout, as far as its page stats tell.
func TestDictionaryLeaves(t *testing.T) {
	chunk := func(encodings []format.Encoding, stats ...format.PageEncodingStats) format.ColumnChunk {
		return format.ColumnChunk{MetaData: format.ColumnMetaData{Encoding: encodings, EncodingStats: stats}}
	}
	dictPage := format.PageEncodingStats{PageType: format.DictionaryPage, Encoding: format.Plain, Count: 1}
	rg := &format.RowGroup{Columns: []format.ColumnChunk{
		chunk([]format.Encoding{format.RLEDictionary, format.Plain, format.RLE}), // no stats: its encodings tell
		chunk([]format.Encoding{format.PlainDictionary, format.Plain, format.RLE}, dictPage,
			format.PageEncodingStats{PageType: format.DataPage, Encoding: format.PlainDictionary, Count: 7}),
		chunk([]format.Encoding{format.RLEDictionary, format.Plain, format.RLE}, dictPage, // fell back (pyarrow past 1 MiB)
			format.PageEncodingStats{PageType: format.DataPage, Encoding: format.RLEDictionary, Count: 3},
			format.PageEncodingStats{PageType: format.DataPage, Encoding: format.Plain, Count: 5}),
		chunk([]format.Encoding{format.Plain, format.RLE}),
		chunk([]format.Encoding{format.DeltaByteArray, format.RLE}),
	}}
	if got, want := dictionaryLeaves(rg), []bool{true, true, false, false, false}; !slices.Equal(got, want) {
		t.Errorf("dictionaryLeaves = %v, want %v", got, want)
	}
}
