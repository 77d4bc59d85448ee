package thriftcheck

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// footerOf is the thrift footer of a small Parquet file parquet-go writes:
// nested columns, statistics, several row groups.
func footerOf(t testing.TB) []byte {
	type row struct {
		ID   int64             `parquet:"id"`
		Name string            `parquet:"name,optional,dict"`
		Tags []string          `parquet:"tags,list"`
		Attr map[string]string `parquet:"attr"`
		On   bool              `parquet:"on"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, parquet.MaxRowsPerRowGroup(3))
	for i := range 10 {
		if _, err := w.Write([]row{{ID: int64(i), Name: strings.Repeat("n", i), Tags: []string{"a", "b"}, Attr: map[string]string{"k": "v"}, On: i%2 == 0}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), f.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	return footer
}

// TestStructWalksWhatParquetGoWrites: a footer and a page header
// parquet-go encodes are walked to their end, with room for what they
// decode into.
func TestStructWalksWhatParquetGoWrites(t *testing.T) {
	footer := footerOf(t)
	header, err := thrift.Marshal(new(thrift.CompactProtocol), &format.PageHeader{
		Type: format.DataPage, UncompressedPageSize: 10, CompressedPageSize: 10,
		DataPageHeader: thrift.New(format.DataPageHeader{NumValues: 3, Statistics: format.Statistics{MinValue: []byte("a"), MaxValue: []byte("z")}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"footer": footer, "page header": header} {
		n, alloc, err := Struct(append(b, 0xff, 0xff)) // what follows is not its business
		if err != nil || n != len(b) || alloc < int64(len(b)) {
			t.Errorf("%s of %d bytes: %d bytes walked, %d to allocate, %v", name, len(b), n, alloc, err)
		}
	}
}

// TestStructRefuses: sizes that no bytes back, nesting without end,
// unknown types and structs cut short are refused before any decoding.
func TestStructRefuses(t *testing.T) {
	deep := append([]byte{0x15, 0x02, 0xfc}, bytes.Repeat([]byte{0x1c}, 1_000)...)
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"a list of 2^31-1 structs in 9 bytes", []byte{0x15, 0x02, 0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07}, "claims 2147483647 elements"},
		{"a short list with more elements than bytes", []byte{0x19, 0xe5, 0x02, 0x00}, "claims 14 elements"},
		{"a map of more entries than bytes", []byte{0x1b, 0x80, 0x01, 0x55, 0x00}, "claims 128 elements"},
		{"structs nested 1,000 deep", deep, "nest more than 64 deep"},
		{"an unknown type", []byte{0x1e, 0x00}, "unknown thrift type 14"},
		{"a field of type stop", []byte{0x10}, "field of no type"},
		{"a varint without end", append([]byte{0x16}, bytes.Repeat([]byte{0x80}, 11)...), "varint longer than 10 bytes"},
		{"a string past the end", []byte{0x18, 0x05, 'a'}, ErrTruncated.Error()},
		{"no stop", []byte{0x15, 0x02}, ErrTruncated.Error()},
		{"nothing", nil, ErrTruncated.Error()},
	} {
		_, _, err := Struct(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, err := Struct([]byte{0x15, 0x02}); !errors.Is(err, ErrTruncated) {
		t.Errorf("truncated: %v is not ErrTruncated", err)
	}
}

// TestAllocBoundsDecoding: what parquet-go allocates decoding a footer
// of many column chunks that hold nothing but their offset (about the most memory a byte can claim) stays
// within the bound Struct gives.
func TestAllocBoundsDecoding(t *testing.T) {
	const chunks = 100_000
	// FileMetaData{version 1, schema [], num_rows 0, row_groups:
	// [RowGroup{columns: chunks x {file_offset 0}, total_byte_size 0, num_rows 0}]}
	b := []byte{0x15, 0x02, 0x19, 0x0c, 0x16, 0x00, 0x19, 0x1c, 0x19, 0xfc}
	for n := uint64(chunks); ; n >>= 7 {
		if n < 0x80 {
			b = append(b, byte(n))
			break
		}
		b = append(b, byte(n)|0x80)
	}
	b = append(b, bytes.Repeat([]byte{0x26, 0x00, 0x00}, chunks)...)
	b = append(b, 0x16, 0x00, 0x16, 0x00, 0x00, 0x00) // the row group's counts, its end, the footer's
	n, alloc, err := Struct(b)
	if err != nil || n != len(b) {
		t.Fatalf("%d of %d bytes walked: %v", n, len(b), err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	md := new(format.FileMetaData)
	err = thrift.Unmarshal(new(thrift.CompactProtocol), b, md)
	runtime.ReadMemStats(&after)
	if err != nil || len(md.RowGroups) != 1 || len(md.RowGroups[0].Columns) != chunks {
		t.Fatalf("decoded: %v", err)
	}
	if used := int64(after.TotalAlloc - before.TotalAlloc); used > alloc {
		t.Errorf("decoding %d bytes allocated %d, more than the bound %d", len(b), used, alloc)
	}
}

// FuzzStruct: Struct never panics nor walks past its input, and what it
// accepts parquet-go decodes without a crash, as a footer and as a page
// header.
func FuzzStruct(f *testing.F) {
	f.Add(footerOf(f))
	f.Add([]byte{0x15, 0x02, 0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07})
	f.Add([]byte{0x1b, 0x02, 0x88, 0x01, 'a', 0x01, 'b', 0x01, 'c', 0x01, 'd', 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, _, err := Struct(b)
		if err != nil {
			return
		}
		if n > len(b) {
			t.Fatalf("walked %d of %d bytes", n, len(b))
		}
		_ = thrift.Unmarshal(new(thrift.CompactProtocol), b, new(format.FileMetaData))
		_ = thrift.Unmarshal(new(thrift.CompactProtocol), b, new(format.PageHeader))
	})
}

// BenchmarkStructAgainstDecoding: the walk of a wide footer (1,000
// columns by 100 row groups) against parquet-go's decoding of it.
func BenchmarkStructAgainstDecoding(b *testing.B) {
	md := &format.FileMetaData{Version: 1, NumRows: 100}
	for g := range 100 {
		rg := format.RowGroup{NumRows: 1, TotalByteSize: 1}
		for c := range 1000 {
			rg.Columns = append(rg.Columns, format.ColumnChunk{FileOffset: int64(g*1000 + c), MetaData: format.ColumnMetaData{
				Type: format.Int64, Encoding: []format.Encoding{format.Plain, format.RLE}, PathInSchema: []string{"column_" + strings.Repeat("x", c%20)},
				Codec: format.Snappy, NumValues: 1, TotalUncompressedSize: 100, TotalCompressedSize: 90, DataPageOffset: 4,
				Statistics:    format.Statistics{MinValue: []byte("12345678"), MaxValue: []byte("87654321"), NullCount: 0},
				EncodingStats: []format.PageEncodingStats{{PageType: format.DataPage, Encoding: format.Plain, Count: 1}},
			}})
		}
		md.RowGroups = append(md.RowGroups, rg)
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), md)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("walk", func(b *testing.B) {
		b.SetBytes(int64(len(footer)))
		var alloc int64
		for b.Loop() {
			if _, alloc, err = Struct(footer); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(alloc), "bound-B")
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(footer)))
		for b.Loop() {
			if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, new(format.FileMetaData)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
