package parquetview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// int96Row is a file Spark wrote with its default timestamps: INT96,
// stored PLAIN (ts), dictionary-encoded (td), with nulls (tn), in a struct
// and in a list.
type int96Row struct {
	ID int64            `parquet:"id"`
	TS deprecated.Int96 `parquet:"ts"`
	TD deprecated.Int96 `parquet:"td,dict"`
	TN deprecated.Int96 `parquet:"tn,optional"` // zero is written as null
	S  struct {
		T deprecated.Int96 `parquet:"t"`
	} `parquet:"s"`
	L []deprecated.Int96 `parquet:"l,list"`
}

// int96Of stores micros since the epoch as INT96.
func int96Of(micros int64) deprecated.Int96 {
	days, rest := micros/microsPerDay, micros%microsPerDay
	if rest < 0 {
		days, rest = days-1, rest+microsPerDay
	}
	nanos := uint64(rest) * 1000
	return deprecated.Int96{uint32(nanos), uint32(nanos >> 32), uint32(days + julianDayOfUnixEpoch)}
}

// int96Micros of row i: around 2024, before 1970, and 9999-12-31, which
// INT96 read as nanoseconds cannot hold.
func int96RowMicros(i int64) int64 {
	switch i % 3 {
	case 0:
		return 1_704_067_200_000_000 + i*1_000_003
	case 1:
		return -2_208_988_800_000_000 - i*86_400_000_001
	}
	return 253_402_214_400_000_000 - i
}

func mkInt96Row(i int64) int96Row {
	r := int96Row{ID: i, TS: int96Of(int96RowMicros(i)), TD: int96Of(int96RowMicros(i % 4))}
	if i%5 != 0 {
		r.TN = int96Of(int96RowMicros(i + 1))
	}
	r.S.T = int96Of(int96RowMicros(i + 2))
	r.L = []deprecated.Int96{int96Of(int96RowMicros(i)), int96Of(-i)}
	return r
}

// int96Table is the Delta schema of int96Row: every INT96 leaf a timestamp.
func int96Table() *Rename {
	leaf := func(name string, instant bool) Column { return Column{Name: name, Physical: name, Instant: instant} }
	return &Rename{Key: "int96", Columns: []Column{
		leaf("id", false), leaf("ts", true), leaf("td", true), leaf("tn", true),
		{Name: "s", Physical: "s", Kind: StructColumn, Children: []Column{leaf("t", true)}},
		{Name: "l", Physical: "l", Kind: ListColumn, Children: []Column{leaf("element", true)}},
	}}
}

// TestInt96ServedAsMicros: Spark's INT96 timestamps are served as INT64
// microseconds adjusted to UTC, in every codec and page version, at any
// depth, dictionary-encoded or not, with nulls; without deleted rows in
// the stored size, and with some (their row groups re-encoded by
// parquet-go). The values are the stored ones, 9999-12-31 included, which
// pyarrow reads from the stored file as 1816-03-29.
func TestInt96ServedAsMicros(t *testing.T) {
	for _, codec := range []compress.Codec{&parquet.Snappy, &parquet.Zstd, &parquet.Uncompressed, pagecodec.HadoopLZ4{}} {
		for _, version := range []int{1, 2} {
			data := writeRowGroups(t, mkInt96Row, []int{70, 50}, parquet.Compression(codec), parquet.DataPageVersion(version), parquet.PageBufferSize(256))
			for _, deleted := range [][]uint64{nil, {0, 7, 69, 70, 119}} {
				t.Run(fmt.Sprintf("%v/v%d/deleted=%v", codec, version, deleted), func(t *testing.T) {
					src := &bytesSource{data: data}
					v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(deleted...), BuildOptions{Rename: int96Table(), SpillDir: t.TempDir()})
					if err != nil {
						t.Fatal(err)
					}
					if deleted == nil && v.Size() != int64(len(data)) {
						t.Errorf("served in %d bytes, stored in %d", v.Size(), len(data))
					}
					served := materialize(t, v, src)
					got, want := int96FileRows(t, served), int96FileRows(t, data)
					for _, r := range slices.Backward(deleted) {
						want = slices.Delete(want, int(r), int(r)+1)
					}
					if !slices.EqualFunc(got, want, parquet.Row.Equal) {
						t.Fatalf("served rows differ from the stored ones as micros:\n%v\n%v", got[:2], want[:2])
					}
					checkInt96Pyarrow(t, served, deleted)
				})
			}
		}
	}
}

// TestInt96ChunksReadOnce: a view converting INT96 values reads the
// footer, then each INT96 column chunk in one request, whatever its pages.
func TestInt96ChunksReadOnce(t *testing.T) {
	data := writeRowGroups(t, mkInt96Row, []int{3000, 3000}, parquet.PageBufferSize(4096))
	if len(data) <= FooterTail {
		t.Fatalf("a file of %d bytes is read whole", len(data))
	}
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: int96Table()})
	if err != nil {
		t.Fatal(err)
	}
	if n := src.reads.Load(); n > 1+2*5 || v.Size() != int64(len(data)) {
		t.Errorf("%d reads, size %d of %d; want at most 11 reads (footer, 2 row groups of 5 INT96 chunks), the stored size", n, v.Size(), len(data))
	}
}

// int96FileRows reads a file's rows with parquet-go (from a copy stored
// uncompressed), its INT96 values as the INT64 microseconds they hold;
// every INT64 value must then be a timestamp but id's.
func int96FileRows(t *testing.T, data []byte) []parquet.Row {
	t.Helper()
	md := footerOf(t, data)
	for _, el := range md.Schema[1:] {
		if el.Type.Valid && el.Type.V == format.Int64 && el.Name != "id" {
			ts, ok := el.LogicalType.Value.(*format.TimestampType)
			if !ok || !ts.IsAdjustedToUTC || ts.Unit.Value.String() != "MICROS" {
				t.Fatalf("leaf %s served as %v, want a timestamp in UTC micros", el.Name, el.LogicalType.Value)
			}
		}
	}
	rows := plainRows(t, data)
	for _, row := range rows {
		for k, v := range row {
			if v.Kind() == parquet.Int96 {
				us, _ := int96ValueMicros(v.Int96())
				row[k] = parquet.Int64Value(us).Level(v.RepetitionLevel(), v.DefinitionLevel(), v.Column())
			}
		}
	}
	return rows
}

const readInt96Script = `
import json, sys
import pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
print(json.dumps({"types": [str(f.type) for f in t.schema],
    "ts": [v.isoformat() for v in t.column("ts").to_pylist()],
    "tn": [v and v.isoformat() for v in t.column("tn").to_pylist()]}))
`

// checkInt96Pyarrow checks what pyarrow reads from a served file: types
// in UTC, and the stored values, 9999-12-31 included.
func checkInt96Pyarrow(t *testing.T, served []byte, deleted []uint64) {
	out, ok := pyarrowRead(t, served, readInt96Script)
	if !ok {
		return
	}
	var got struct {
		Types  []string
		TS, TN []*string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.TS) != 120-len(deleted) {
		t.Fatalf("pyarrow reads %d rows, want %d", len(got.TS), 120-len(deleted))
	}
	utc := "timestamp[us, tz=UTC]"
	want := []string{"int64", utc, utc, utc, "struct<t: timestamp[us, tz=UTC] not null>", "list<element: timestamp[us, tz=UTC] not null>"}
	if !slices.Equal(got.Types, want) {
		t.Errorf("pyarrow types %q, want %q", got.Types, want)
	}
	iso := func(us int64) string {
		tm := time.UnixMicro(us).UTC()
		if frac := tm.Nanosecond() / 1000; frac != 0 {
			return tm.Format("2006-01-02T15:04:05") + fmt.Sprintf(".%06d+00:00", frac)
		}
		return tm.Format("2006-01-02T15:04:05") + "+00:00"
	}
	k := 0
	for i := int64(0); i < 120; i++ {
		if slices.Contains(deleted, uint64(i)) {
			continue
		}
		if k >= len(got.TS) || got.TS[k] == nil || *got.TS[k] != iso(int96RowMicros(i)) {
			t.Fatalf("row %d (served row %d of %d): pyarrow reads another ts than %s", i, k, len(got.TS), iso(int96RowMicros(i)))
		}
		if (got.TN[k] == nil) != (i%5 == 0) {
			t.Fatalf("row %d: tn null %v", i, got.TN[k] == nil)
		}
		k++
	}
}

// TestInt96RenamedAndDropped: under column mapping an INT96 column is
// converted under its served name, and one the table dropped is left out
// with the columns after it in place.
func TestInt96RenamedAndDropped(t *testing.T) {
	data := writeRowGroups(t, mkInt96Row, []int{70, 50}, parquet.PageBufferSize(256))
	rn := int96Table()
	rn.Columns[1].Name = "when"                            // ts
	rn.Columns = append(rn.Columns[:2], rn.Columns[3:]...) // td dropped
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: rn})
	if err != nil {
		t.Fatal(err)
	}
	served := materialize(t, v, src)
	pf, err := parquet.OpenFile(bytes.NewReader(served), int64(len(served)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range pf.Schema().Fields() {
		names = append(names, f.Name())
	}
	if !slices.Equal(names, []string{"id", "when", "tn", "s", "l"}) || v.Size() != int64(len(data)) {
		t.Fatalf("served columns %q in %d bytes (stored %d)", names, v.Size(), len(data))
	}
	var row int64
	for _, rg := range pf.RowGroups() {
		r := rg.ColumnChunks()[1].Pages()
		for {
			p, err := r.ReadPage()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			vals := make([]parquet.Value, p.NumValues())
			n, _ := p.Values().ReadValues(vals)
			for _, val := range vals[:n] {
				if val.Kind() != parquet.Int64 || val.Int64() != int96RowMicros(row) {
					t.Fatalf("row %d: when is %v, want %d", row, val, int96RowMicros(row))
				}
				row++
			}
			parquet.Release(p)
		}
		r.Close()
	}
	if row != 120 {
		t.Errorf("%d values of when, want 120", row)
	}
}

// flatInt96Row is int96Row without its list, whose row groups splicing
// rebuilds page by page.
type flatInt96Row struct {
	ID int64            `parquet:"id"`
	TS deprecated.Int96 `parquet:"ts"`
	TD deprecated.Int96 `parquet:"td,dict"`
	TN deprecated.Int96 `parquet:"tn,optional"`
}

// TestInt96Spliced: in a file with a deletion vector, the row groups that
// lose rows are spliced page by page, their INT96 chunks then converted.
func TestInt96Spliced(t *testing.T) {
	mk := func(i int64) flatInt96Row {
		r := mkInt96Row(i)
		return flatInt96Row{ID: r.ID, TS: r.TS, TD: r.TD, TN: r.TN}
	}
	for _, codec := range []compress.Codec{&parquet.Snappy, pagecodec.HadoopLZ4{}} {
		for _, version := range []int{1, 2} {
			data := writeRowGroups(t, mk, []int{70, 50}, parquet.Compression(codec), parquet.DataPageVersion(version), parquet.PageBufferSize(256))
			deleted := []uint64{0, 7, 69, 119}
			src := &bytesSource{data: data}
			v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(deleted...), BuildOptions{Rename: int96Table()})
			if err != nil {
				t.Fatal(err)
			}
			if v.SplicedRowGroups != 2 {
				t.Errorf("%v v%d: %d row groups spliced, want 2 (%v)", codec, version, v.SplicedRowGroups, v.spliceErr)
			}
			got, want := int96FileRows(t, materialize(t, v, src)), int96FileRows(t, data)
			for _, r := range slices.Backward(deleted) {
				want = slices.Delete(want, int(r), int(r)+1)
			}
			if !slices.EqualFunc(got, want, parquet.Row.Equal) {
				t.Errorf("%v v%d: served rows differ from the stored ones as micros", codec, version)
			}
		}
	}
}

// TestInt96SequentialFits: timestamps a step apart, which Snappy packs
// tighter as INT96 than as INT64 (the nanoseconds of the day repeat their
// pattern), are served in the stored size as DELTA_BINARY_PACKED, which
// pyarrow reads.
func TestInt96SequentialFits(t *testing.T) {
	type row struct {
		ID int64            `parquet:"id"`
		TS deprecated.Int96 `parquet:"ts"`
	}
	data := writeRowGroups(t, func(i int64) row { return row{ID: i, TS: int96Of(1_700_000_000_000_000 + i*1_000_003)} },
		[]int{20_000}, parquet.Compression(&parquet.Snappy))
	src := &bytesSource{data: data}
	rn := &Rename{Columns: []Column{{Name: "id", Physical: "id"}, {Name: "ts", Physical: "ts", Instant: true}}}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: rn})
	if err != nil {
		t.Fatal(err)
	}
	served := materialize(t, v, src)
	md := footerOf(t, served)
	if v.Size() != int64(len(data)) || md.Schema[2].Type.V != format.Int64 || !slices.Contains(md.RowGroups[0].Columns[1].MetaData.Encoding, format.DeltaBinaryPacked) {
		t.Fatalf("size %d of %d, ts stored %v, encodings %v: want converted, delta-encoded, in the stored size",
			v.Size(), len(data), md.Schema[2].Type.V, md.RowGroups[0].Columns[1].MetaData.Encoding)
	}
	out, ok := pyarrowRead(t, served, `
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
print(t.schema.field("ts").type, t.column("ts")[19999].value)`)
	if ok && strings.TrimSpace(string(out)) != fmt.Sprintf("timestamp[us, tz=UTC] %d", 1_700_000_000_000_000+19_999*1_000_003) {
		t.Errorf("pyarrow reads %q", out)
	}
}

// TestInt96OutOfRangeKept: a file holding an INT96 value past the range of
// INT64 microseconds is served as stored, and Kept says why.
func TestInt96OutOfRangeKept(t *testing.T) {
	type row struct {
		ID int64            `parquet:"id"`
		TS deprecated.Int96 `parquet:"ts"`
	}
	data := writeRowGroups(t, func(i int64) row {
		if i == 3 {
			return row{ID: i, TS: deprecated.Int96{0, 0, 0xffffffff}} // Julian day 4,294,967,295
		}
		return row{ID: i, TS: int96Of(i)}
	}, []int{10})
	src := &bytesSource{data: data}
	rn := &Rename{Columns: []Column{{Name: "id", Physical: "id"}, {Name: "ts", Physical: "ts", Instant: true}}}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: rn})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Unchanged() || !bytes.Equal(materialize(t, v, src), data) || v.Kept == nil || !strings.Contains(v.Kept.Error(), "out of the range") {
		t.Errorf("unchanged %v, kept %v: want the stored file, and why", v.Unchanged(), v.Kept)
	}
}

// TestInt96Spilled: converted chunks holding more than the spill threshold
// are served from the spill file.
func TestInt96Spilled(t *testing.T) {
	data := writeRowGroups(t, mkInt96Row, []int{70, 50}, parquet.PageBufferSize(256))
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: int96Table(), SpillDir: t.TempDir(), SpillThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	if v.spill == nil || v.Size() != int64(len(data)) {
		t.Fatalf("spill %v, size %d of %d", v.spill, v.Size(), len(data))
	}
	if got, want := int96FileRows(t, materialize(t, v, src)), int96FileRows(t, data); !slices.EqualFunc(got, want, parquet.Row.Equal) {
		t.Error("served rows differ from the stored ones as micros")
	}
}
