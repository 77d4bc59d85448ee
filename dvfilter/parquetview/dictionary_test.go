package parquetview

import (
	"bytes"
	"context"
	"errors"
	"os"
	"runtime"
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
	t.Run("as written", func(t *testing.T) { checkDictionaryKept(t, data, blob) })
	// The footer's encodings are not what says: the pages are.
	md := footerOf(t, data)
	for j := range md.RowGroups[0].Columns {
		cm := &md.RowGroups[0].Columns[j].MetaData
		cm.Encoding, cm.EncodingStats = []format.Encoding{format.Plain, format.RLE}, nil
	}
	t.Run("footer saying PLAIN", func(t *testing.T) { checkDictionaryKept(t, withSchema(t, data, md), blob) })
}

// checkDictionaryKept builds the view of data without its first row and
// checks that its blob column has a dictionary and the rows are kept.
func checkDictionaryKept(t *testing.T, data []byte, blob string) {
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

// TestFallbackDictionaryBounded: a chunk of dictionary indexes and PLAIN
// values (a writer falling back past its dictionary's limit) is written in
// full, within the row group's budget. The file (pyarrow, 22 KB: 2,990
// rows naming one 100 KB string, then 10 past a dictionary limit of 100 KB)
// would be 300 MB so: it is refused, not held. Its pages: a dictionary,
// a page of 2,990 indexes, a PLAIN page. Written by pyarrow 26:
//
//	blob, rng = "0123456789" * 10_000, random.Random(1)
//	vals = [blob] * 2990 + ["v%d-%s" % (i, rng.random()) for i in range(10)]
//	t = pa.table({"id": range(3000), "tags": [["t"]] * 3000, "blob": vals})
//	pq.write_table(t, path, compression="snappy", dictionary_pagesize_limit=50_000, write_batch_size=2990)
func TestFallbackDictionaryBounded(t *testing.T) {
	data, err := os.ReadFile("testdata/fallback-dictionary.parquet")
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Build(context.Background(), &bytesSource{data: data}, int64(len(data)), dvfilter.NewVector(0), BuildOptions{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrParquet) || !strings.Contains(err.Error(), "written in full") {
		t.Fatalf("err = %v, want the row group refused", err)
	}
	// Written in full, its values alone are 300 MB, and the writer copies
	// them; refused at the budget (65 MB of values), the build allocated
	// 130-250 MB (the most under -race on a loaded machine).
	if got := after.TotalAlloc - before.TotalAlloc; got > 400<<20 {
		t.Errorf("allocated %d MB refusing a %d-byte file", got>>20, len(data))
	}
}

// plainBlobRow is sharedBlobRow without a dictionary.
type plainBlobRow struct {
	ID   int64    `parquet:"id"`
	Tags []string `parquet:"tags,list"`
	Blob string   `parquet:"blob"`
}

// TestStoredValuesNotBudgeted: values stored in full are re-encoded
// whatever they take decoded: they are written as compactly as they were
// read (here 1,000 copies of a 100 KB string, 100 MB decoded, in zstd).
func TestStoredValuesNotBudgeted(t *testing.T) {
	blob := strings.Repeat("0123456789", 10_000)
	data := writeRowGroups(t, func(i int64) plainBlobRow { return plainBlobRow{ID: i, Tags: []string{"a"}, Blob: blob} }, []int{1000},
		parquet.Compression(&parquet.Zstd))
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(0), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Size() > 2*int64(len(data)) || v.Rows != 999 {
		t.Fatalf("a view of %d rows, %d bytes, from a file of %d", v.Rows, v.Size(), len(data))
	}
}
