package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// A stats string that many rows share through a dictionary is parsed
// once: each row copied and parsed it, and 20,000 rows sharing a 1 MB
// string (a 1 MB file) allocated 20 GB in 7 s. Here 5,000 rows share
// 256 KB.
func TestSharedStatsParsedOnce(t *testing.T) {
	stats := `{"numRecords":5,"minValues":{"a":"` + strings.Repeat("x", 256<<10) + `"},"nullCount":{"a":0}}`
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[dictStatsRow](&buf)
	for i := range 5000 {
		w.Write([]dictStatsRow{{Add: &dictStatsAdd{Path: fmt.Sprintf("p%d.parquet", i), Size: 1, Stats: stats}}})
	}
	w.Close()
	data := buf.Bytes()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Read(context.Background(), bytesStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t", Details: AllDetails})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 5000 || res.NumRecords[4999] != 5 || !res.NullCounted[4999].Has("a") {
		t.Errorf("%d files, the last of %d records counting nulls of %v", len(res.Files), res.NumRecords[len(res.NumRecords)-1], res.NullCounted[len(res.NullCounted)-1])
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("reading a %d-byte file allocated %d MB", len(data), grew>>20)
	}
}
