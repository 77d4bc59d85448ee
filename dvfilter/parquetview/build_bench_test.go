package parquetview

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

	"github.com/deltafs/deltafs/dvfilter"
)

type benchRow struct {
	ID      int64  `parquet:"id"`
	TS      int64  `parquet:"ts"`
	Name    string `parquet:"name"`
	Payload []byte `parquet:"payload"`
}

// benchFile is a Parquet file of groups row groups of n rows each, about
// 120 bytes a row, mostly incompressible.
func benchFile(b *testing.B, groups, n int) []byte {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[benchRow](&buf, parquet.Compression(&parquet.Snappy))
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]benchRow, n)
	for g := 0; g < groups; g++ {
		for i := range rows {
			p := make([]byte, 64)
			for j := range p {
				p[j] = byte(rng.Uint32())
			}
			rows[i] = benchRow{ID: int64(g*n + i), TS: int64(i), Name: string(p[:32]), Payload: p}
		}
		if _, err := w.Write(rows); err != nil {
			b.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkBuildRewrite measures re-encoding one row group that loses 10
// rows; the bytes per second are those of the source row group.
func BenchmarkBuildRewrite(b *testing.B) {
	data := benchFile(b, 1, 100_000)
	src := &bytesSource{data: data}
	vec := dvfilter.NewVector(1, 5000, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 99_999)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Build(context.Background(), src, int64(len(data)), vec, BuildOptions{SpillThreshold: 1 << 40}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildRewriteSpill is BenchmarkBuildRewrite with the re-encoded
// row group spilled to a file.
func BenchmarkBuildRewriteSpill(b *testing.B) {
	data := benchFile(b, 1, 100_000)
	src := &bytesSource{data: data}
	vec := dvfilter.NewVector(1, 5000, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 99_999)
	b.SetBytes(int64(len(data)))
	dir := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Build(context.Background(), src, int64(len(data)), vec, BuildOptions{SpillDir: dir, SpillThreshold: -1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildInt96 measures converting the INT96 timestamps of a file
// of 1M rows (PLAIN, distinct values, in 4 row groups); the bytes per
// second are the file's.
func BenchmarkBuildInt96(b *testing.B) {
	type row struct {
		ID int64            `parquet:"id"`
		TS deprecated.Int96 `parquet:"ts"`
	}
	data := writeRowGroups(b, func(id int64) row { return row{ID: id, TS: int96Of(1_700_000_000_000_000 + id*1_000_003)} },
		[]int{250_000, 250_000, 250_000, 250_000}, parquet.Compression(&parquet.Snappy))
	src := &bytesSource{data: data}
	rn := &Rename{Columns: []Column{{Name: "id", Physical: "id"}, {Name: "ts", Physical: "ts", Instant: true}}}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: rn}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildRewriteWide re-encodes (a repeated column: no splicing)
// a row group of 3,000 columns and 10 rows: what is asked per column
// chunk must not walk every column.
func BenchmarkBuildRewriteWide(b *testing.B) {
	g := parquet.Group{"tags": parquet.Repeated(parquet.Int(64))}
	for i := range 3000 {
		g[fmt.Sprintf("c%04d", i)] = parquet.Optional(parquet.Int(64))
	}
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, parquet.NewSchema("t", g), parquet.Compression(&parquet.Snappy))
	for r := range 10 {
		row := map[string]any{"tags": []int64{int64(r)}}
		for i := range 3000 {
			row[fmt.Sprintf("c%04d", i)] = int64(r * i)
		}
		if err := w.Write(row); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	src := &bytesSource{data: buf.Bytes()}
	b.ReportAllocs()
	for b.Loop() {
		v, err := Build(context.Background(), src, int64(len(src.data)), dvfilter.NewVector(0), BuildOptions{})
		if err != nil || v.SplicedRowGroups != 0 {
			b.Fatal(err)
		}
	}
}

// dictRow has a list (its row group is re-encoded whole) and strings of
// few distinct values, stored with a dictionary as most writers store them.
type dictRow struct {
	ID      int64    `parquet:"id"`
	Tags    []string `parquet:"tags,list"`
	Country string   `parquet:"country,dict"`
	Status  string   `parquet:"status,dict"`
}

// BenchmarkBuildRewriteDictionary re-encodes a row group of 100,000 rows
// whose strings are dictionary-encoded, losing 10 rows; it reports the
// view's size against the file's.
func BenchmarkBuildRewriteDictionary(b *testing.B) {
	countries := []string{"Norway", "Chile", "Kenya", "Japan", "Canada", "Portugal", "Vietnam", "Ghana"}
	data := writeRowGroups(b, func(i int64) dictRow {
		return dictRow{ID: i, Tags: []string{"t"}, Country: countries[i*7%8], Status: fmt.Sprintf("status-%d", i%5)}
	}, []int{100_000}, parquet.Compression(&parquet.Snappy))
	src := &bytesSource{data: data}
	vec := dvfilter.NewVector(1, 5000, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 99_999)
	b.SetBytes(int64(len(data)))
	var v *View
	for b.Loop() {
		var err error
		if v, err = Build(context.Background(), src, int64(len(data)), vec, BuildOptions{SpillThreshold: 1 << 40}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(v.Size())/float64(len(data)), "view/file")
}

// nullyRow has optional columns of scattered nulls: bit-packed levels.
type nullyRow struct {
	A *int64 `parquet:"a,optional"`
	B *int32 `parquet:"b,optional,dict"`
	C *bool  `parquet:"c,optional"`
}

// BenchmarkBuildRewriteScattered measures cutting a row in every 97 out
// of a row group of a million rows with nulls scattered in every column:
// every page is cut, value by value.
func BenchmarkBuildRewriteScattered(b *testing.B) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[nullyRow](&buf, parquet.Compression(&parquet.Snappy))
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]nullyRow, 1_000_000)
	for i := range rows {
		if rng.IntN(2) == 0 {
			v := int64(i)
			rows[i].A = &v
		}
		if rng.IntN(3) != 0 {
			v := int32(rng.IntN(50))
			rows[i].B = &v
		}
		if rng.IntN(4) != 0 {
			v := rng.IntN(2) == 0
			rows[i].C = &v
		}
	}
	if _, err := w.Write(rows); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	var deleted []uint64
	for r := uint64(3); r < uint64(len(rows)); r += 97 {
		deleted = append(deleted, r)
	}
	vec := dvfilter.NewVector(deleted...)
	src := &bytesSource{data: data}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		v, err := Build(context.Background(), src, int64(len(data)), vec, BuildOptions{SpillThreshold: 1 << 40})
		if err != nil {
			b.Fatal(err)
		}
		if v.SplicedRowGroups != 1 {
			b.Fatal(v.spliceErr)
		}
	}
}

// BenchmarkBuildWidened measures serving a file of a million rows whose
// table widened two of its four columns (int to long, float to double):
// no row deleted.
func BenchmarkBuildWidened(b *testing.B) {
	type narrow struct {
		ID   int64   `parquet:"id"`
		N    int32   `parquet:"n"`
		F    float32 `parquet:"f"`
		Name string  `parquet:"name"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[narrow](&buf, parquet.Compression(&parquet.Snappy))
	rows := make([]narrow, 1_000_000)
	for i := range rows {
		rows[i] = narrow{ID: int64(i), N: int32(i * 7), F: float32(i) / 3, Name: fmt.Sprintf("name-%d", i%1000)}
	}
	if _, err := w.Write(rows); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	leaf := func(name string, k LeafKind) Column {
		return Column{Name: name, Physical: name, Kind: LeafColumn, Type: &LeafType{Kind: k}}
	}
	rn := &Rename{Key: "widened", Columns: []Column{leaf("id", LongType), leaf("n", LongType), leaf("f", DoubleType), leaf("name", StringType)}}
	src := &bytesSource{data: data}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if _, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: rn, SpillThreshold: 1 << 40}); err != nil {
			b.Fatal(err)
		}
	}
}
