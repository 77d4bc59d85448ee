package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type dictStatsAdd struct {
	Path  string `parquet:"path"`
	Size  int64  `parquet:"size"`
	Stats string `parquet:"stats,dict"`
}

type dictStatsRow struct {
	Add *dictStatsAdd `parquet:"add,optional"`
}

type plainStatsAdd struct {
	Path  string `parquet:"path"`
	Size  int64  `parquet:"size"`
	Stats string `parquet:"stats"`
}

type plainStatsRow struct {
	Add *plainStatsAdd `parquet:"add,optional"`
}

// statsJSON is a stats value as Spark writes it for a table of three
// columns, its numbers varied by i.
func statsJSON(i int) string {
	return fmt.Sprintf(`{"numRecords":%d,"minValues":{"id":%d,"name":"a%d","ts":"2024-01-01T00:00:00.000Z"},"maxValues":{"id":%d,"name":"z%d","ts":"2024-12-31T00:00:00.000Z"},"nullCount":{"id":0,"name":%d,"ts":0}}`, 1000+i, i, i, i+999, i, i%7)
}

// BenchmarkReadStats reads the numRecords and null counts of 100,000
// adds (AllDetails): stats distinct in every row, stored plain or
// dictionary-encoded, or 100 distinct values shared through a
// dictionary.
func BenchmarkReadStats(b *testing.B) {
	const n = 100_000
	files := map[string][]byte{}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[plainStatsRow](&buf)
	for i := range n {
		w.Write([]plainStatsRow{{Add: &plainStatsAdd{Path: fmt.Sprintf("part-%08d.parquet", i), Size: 1, Stats: statsJSON(i)}}})
	}
	w.Close()
	files["plain"] = bytes.Clone(buf.Bytes())
	for _, distinct := range []int{n, 100} {
		buf.Reset()
		w := parquet.NewGenericWriter[dictStatsRow](&buf)
		for i := range n {
			w.Write([]dictStatsRow{{Add: &dictStatsAdd{Path: fmt.Sprintf("part-%08d.parquet", i), Size: 1, Stats: statsJSON(i % distinct)}}})
		}
		w.Close()
		files[fmt.Sprintf("dict-%d", distinct)] = bytes.Clone(buf.Bytes())
	}
	for _, name := range []string{"plain", fmt.Sprintf("dict-%d", n), "dict-100"} {
		data := files[name]
		b.Run(name, func(b *testing.B) {
			cp := Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := Read(context.Background(), bytesStorage(data), cp, Options{Root: "file:///t", Details: AllDetails})
				if err != nil || len(res.Files) != n || res.NumRecords[n-1] < 1000 {
					b.Fatal(err)
				}
			}
		})
	}
}
