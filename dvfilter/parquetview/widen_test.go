package parquetview

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// narrowRow is a file written before its table widened most columns.
type narrowRow struct {
	ID       int64   `parquet:"id"`
	ByteLong int8    `parquet:"byte_long,optional"` // 0 is written as null
	IntDbl   int32   `parquet:"int_double"`
	FloatDbl float32 `parquet:"float_double"`
	Date     int32   `parquet:"date_ntz,date"`
	Dec      int64   `parquet:"dec,decimal(2:10)"`
	LongDec  int64   `parquet:"long_dec"`
	ShortInt int16   `parquet:"short_int"`
	Ints     []int32 `parquet:"ints,list"`
	Dec2     int32   `parquet:"dec2,decimal(2:5)"`
	Name     string  `parquet:"name"`
}

func mkNarrow(i int64) narrowRow {
	r := narrowRow{
		ID: i, ByteLong: int8(i % 100), IntDbl: int32(i*1000 - 5000), FloatDbl: float32(i) / 4,
		Date: int32(19000 + i), Dec: i*101 - 3000, LongDec: i*1_000_000_000_007 - 3, ShortInt: int16(-i),
		Ints: []int32{int32(i), int32(-i)}, Dec2: int32(i*7 - 100), Name: fmt.Sprint("n", i),
	}
	switch i {
	case 0:
		r.LongDec = math.MinInt64
	case 1:
		r.LongDec = math.MaxInt64
	}
	return r
}

// wideRename serves narrowRow files as the widened table has them.
func wideRename() *Rename {
	leaf := func(name string, t *LeafType) Column {
		return Column{Name: name, Physical: name, Kind: LeafColumn, Type: t}
	}
	return &Rename{Key: "widened", Columns: []Column{
		leaf("id", &LeafType{Kind: LongType}), // already long
		leaf("byte_long", &LeafType{Kind: LongType}),
		leaf("int_double", &LeafType{Kind: DoubleType}),
		leaf("float_double", &LeafType{Kind: DoubleType}),
		leaf("date_ntz", &LeafType{Kind: TimestampNTZType}),
		leaf("dec", &LeafType{Kind: DecimalType, Precision: 20, Scale: 5}),
		leaf("long_dec", &LeafType{Kind: DecimalType, Precision: 21, Scale: 1}),
		leaf("short_int", &LeafType{Kind: IntType}),
		{Name: "ints", Physical: "ints", Kind: ListColumn, Children: []Column{leaf("element", &LeafType{Kind: LongType})}},
		leaf("dec2", &LeafType{Kind: DecimalType, Precision: 12, Scale: 4}),
		leaf("name", &LeafType{Kind: LongType}), // a string is not widened: as stored
	}}
}

// wideTypes are the Arrow types pyarrow must read from a widened file.
var wideTypes = []string{"int64", "int64", "double", "double", "timestamp[us]", "decimal128(20, 5)",
	"decimal128(21, 1)", "int32", "list<element: int64 not null>", "decimal128(12, 4)", "string"}

// decimalString spells unscaled×10^-scale as Python's str(Decimal) does
// for these values.
func decimalString(unscaled *big.Int, scale int) string {
	s := new(big.Int).Abs(unscaled).String()
	for len(s) <= scale {
		s = "0" + s
	}
	out := s[:len(s)-scale] + "." + s[len(s)-scale:]
	if unscaled.Sign() < 0 {
		out = "-" + out
	}
	return out
}

// wideJSON is row i as the script below prints it from a widened file.
func wideJSON(i int64) []any {
	r := mkNarrow(i)
	var byteLong any
	if r.ByteLong != 0 {
		byteLong = json.Number(fmt.Sprint(r.ByteLong))
	}
	num := func(v any) json.Number { return json.Number(fmt.Sprint(v)) }
	float := func(f float64) string { // Python's repr of these values
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	scaled := func(v int64, by int64) *big.Int { return new(big.Int).Mul(big.NewInt(v), big.NewInt(by)) }
	return []any{
		num(r.ID), byteLong, float(float64(r.IntDbl)), float(float64(r.FloatDbl)),
		time.Unix(int64(r.Date)*86400, 0).UTC().Format("2006-01-02T15:04:05"),
		decimalString(scaled(r.Dec, 1000), 5), decimalString(scaled(r.LongDec, 10), 1),
		num(r.ShortInt), []any{num(int64(r.Ints[0])), num(int64(r.Ints[1]))},
		decimalString(scaled(int64(r.Dec2), 100), 4), r.Name,
	}
}

const readWideScript = `
import datetime, decimal, json, sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
t.validate(full=True)
def plain(v):
    if isinstance(v, decimal.Decimal): return str(v)
    if isinstance(v, datetime.datetime): return v.isoformat()
    if isinstance(v, float): return repr(v)
    if isinstance(v, list): return [plain(x) for x in v]
    return v
print(json.dumps({"types": [str(f.type) for f in t.schema],
    "rows": [[plain(r[c]) for c in t.column_names] for r in t.to_pylist()]}))
`

// TestWidenedView serves a file of narrow types as its widened table has
// them, with and without deleted rows, and checks what pyarrow reads: in
// Snappy, and in Hadoop's LZ4 (which parquet-go reads from a copy stored
// uncompressed).
func TestWidenedView(t *testing.T) {
	for _, codec := range []compress.Codec{&parquet.Snappy, pagecodec.HadoopLZ4{}} {
		t.Run(codec.String(), func(t *testing.T) {
			checkWidenedView(t, writeRowGroups(t, mkNarrow, []int{60, 45}, parquet.Compression(codec)))
		})
	}
}

// checkWidenedView checks the widened views of data, mkNarrow's rows.
func checkWidenedView(t *testing.T, data []byte) {
	for _, deleted := range [][]uint64{nil, {0, 7, 59, 60, 104}} {
		t.Run(fmt.Sprintf("deleted=%v", deleted), func(t *testing.T) {
			src := &bytesSource{data: data}
			v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(deleted...), BuildOptions{Rename: wideRename()})
			if err != nil {
				t.Fatal(err)
			}
			// Without deleted rows, the widened chunks are converted page by
			// page and the rest copied; with them, parquet-go re-encodes each
			// row group whole (a list column is not spliced).
			copied := 2
			if deleted != nil {
				copied = 0
			}
			if v.Rows != 105-int64(len(deleted)) || v.CopiedRowGroups != copied || v.RewrittenRowGroups != 2-copied {
				t.Errorf("rows %d, copied row groups %d, rewritten %d; want %d, %d, %d", v.Rows, v.CopiedRowGroups, v.RewrittenRowGroups, 105-len(deleted), copied, 2-copied)
			}
			served := materialize(t, v, src)
			if _, err := parquet.OpenFile(bytes.NewReader(served), int64(len(served))); err != nil {
				t.Fatalf("served file does not open: %v", err)
			}
			out, ok := pyarrowRead(t, served, readWideScript)
			if !ok {
				return
			}
			var got struct {
				Types []string
				Rows  [][]any
			}
			dec := json.NewDecoder(bytes.NewReader(out))
			dec.UseNumber()
			if err := dec.Decode(&got); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Types, wideTypes) {
				t.Errorf("types %q\nwant %q", got.Types, wideTypes)
			}
			var want [][]any
			for i := int64(0); i < 105; i++ {
				if !slices.Contains(deleted, uint64(i)) {
					want = append(want, wideJSON(i))
				}
			}
			if fmt.Sprint(got.Rows) != fmt.Sprint(want) {
				for k := range min(len(got.Rows), len(want)) {
					if fmt.Sprint(got.Rows[k]) != fmt.Sprint(want[k]) {
						t.Fatalf("row %d: %v\nwant %v", k, got.Rows[k], want[k])
					}
				}
				t.Fatalf("%d rows, want %d", len(got.Rows), len(want))
			}
		})
	}
}

// flatNarrow has widened columns and no repeated one: its row groups are
// spliced and converted page by page.
type flatNarrow struct {
	ID    int64    `parquet:"id"`
	Cat   int32    `parquet:"cat,dict"`
	Opt   *int32   `parquet:"opt,optional"`
	F     float32  `parquet:"f"`
	Short int16    `parquet:"short"`
	Delta int32    `parquet:"delta,delta"`
	Split *float32 `parquet:"split,optional,split"`
}

// flatWide is flatNarrow as its widened table has it.
type flatWide struct {
	ID    int64    `parquet:"id"`
	Cat   int64    `parquet:"cat"`
	Opt   *float64 `parquet:"opt,optional"`
	F     float64  `parquet:"f"`
	Short int32    `parquet:"short"`
	Delta int64    `parquet:"delta"`
	Split *float64 `parquet:"split,optional"`
}

func mkFlatNarrow(i int64) flatNarrow {
	r := flatNarrow{ID: i, Cat: int32(i%5) - 2, F: float32(i) / 8, Short: int16(-i)}
	if i%3 != 0 {
		v := int32(i * 1000)
		r.Opt = &v
	}
	r.Delta = int32(i*3 - 700)
	if i%4 != 1 {
		f := float32(i) / 16
		r.Split = &f
	}
	return r
}

// TestWidenedPages: a file without repeated columns is served widened
// page by page, rows deleted or not (its dictionary page converted, its
// pages of indexes copied, DELTA_BINARY_PACKED and BYTE_STREAM_SPLIT
// pages decoded), in both page versions.
func TestWidenedPages(t *testing.T) {
	leaf := func(name string, k LeafKind) Column {
		return Column{Name: name, Physical: name, Kind: LeafColumn, Type: &LeafType{Kind: k}}
	}
	rn := &Rename{Key: "flat", Columns: []Column{leaf("id", LongType), leaf("cat", LongType), leaf("opt", DoubleType), leaf("f", DoubleType), leaf("short", IntType), leaf("delta", LongType), leaf("split", DoubleType)}}
	for _, version := range []int{1, 2} {
		data := writeRowGroups(t, mkFlatNarrow, []int{600, 450}, parquet.Compression(&parquet.Zstd), parquet.PageBufferSize(256), parquet.DataPageVersion(version))
		for _, deleted := range [][]uint64{nil, {0, 7, 599, 600, 1049}, rangeRows(100, 200)} {
			src := &bytesSource{data: data}
			v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(deleted...), BuildOptions{Rename: rn})
			if err != nil {
				t.Fatal(err)
			}
			if v.CopiedRowGroups+v.SplicedRowGroups != 2 {
				t.Fatalf("v%d, deleted %v: %d row groups copied, %d spliced: %v", version, deleted, v.CopiedRowGroups, v.SplicedRowGroups, v.spliceErr)
			}
			served := materialize(t, v, src)
			got, err := parquet.Read[flatWide](bytes.NewReader(served), int64(len(served)))
			if err != nil {
				t.Fatalf("v%d, deleted %v: %v", version, deleted, err)
			}
			var want []flatWide
			for i := range int64(1050) {
				if slices.Contains(deleted, uint64(i)) {
					continue
				}
				n := mkFlatNarrow(i)
				w := flatWide{ID: n.ID, Cat: int64(n.Cat), F: float64(n.F), Short: int32(n.Short)}
				if n.Opt != nil {
					d := float64(*n.Opt)
					w.Opt = &d
				}
				w.Delta = int64(n.Delta)
				if n.Split != nil {
					f := float64(*n.Split)
					w.Split = &f
				}
				want = append(want, w)
			}
			if len(got) != len(want) {
				t.Fatalf("v%d, deleted %v: %d rows, want %d", version, deleted, len(got), len(want))
			}
			for k := range want {
				g, w := got[k], want[k]
				if g.ID != w.ID || g.Cat != w.Cat || g.F != w.F || g.Short != w.Short || !equalPtr(g.Opt, w.Opt) || g.Delta != w.Delta || !equalPtr(g.Split, w.Split) {
					t.Fatalf("v%d, deleted %v: row %d = %+v, want %+v", version, deleted, k, g, w)
				}
			}
			checkChunks(t, served)
		}
	}
}

func equalPtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// TestWideningLeavesWideFilesAlone: a file already in the table's types
// is served as stored.
func TestWideningLeavesWideFilesAlone(t *testing.T) {
	type wide struct {
		ID  int64   `parquet:"byte_long"`
		Dbl float64 `parquet:"int_double"`
	}
	data := writeRowGroups(t, func(i int64) wide { return wide{i, float64(i)} }, []int{10})
	rn := &Rename{Columns: []Column{
		{Name: "byte_long", Physical: "byte_long", Type: &LeafType{Kind: LongType}},
		{Name: "int_double", Physical: "int_double", Type: &LeafType{Kind: DoubleType}},
	}}
	v, err := Build(context.Background(), &bytesSource{data: data}, int64(len(data)), nil, BuildOptions{Rename: rn})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Unchanged() || v.Size() != int64(len(data)) || v.RewrittenRowGroups != 0 {
		t.Errorf("unchanged %v, size %d of %d, %d row groups rewritten: want the stored file", v.Unchanged(), v.Size(), len(data), v.RewrittenRowGroups)
	}
}

// TestScaledIntsAtTheirLimit: a decimal widened within 18 digits converts
// values up to its precision, and refuses one past it (a file storing
// more digits than it declares).
func TestScaledIntsAtTheirLimit(t *testing.T) {
	f := scaledInts(4, 8, 100, 10_000_000, LeafType{Kind: DecimalType, Precision: 7, Scale: 4})
	neg := int32(-99_999)
	in := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 99_999), uint32(neg))
	out, err := f(in)
	if err != nil || int64(binary.LittleEndian.Uint64(out)) != 9_999_900 || int64(binary.LittleEndian.Uint64(out[8:])) != -9_999_900 {
		t.Fatalf("converted %x, %v", out, err)
	}
	for _, v := range []int32{100_000, -100_000, math.MaxInt32, math.MinInt32} {
		if _, err := f(binary.LittleEndian.AppendUint32(nil, uint32(v))); err == nil || !strings.Contains(err.Error(), "does not fit decimal(7,4)") {
			t.Errorf("%d: %v, want refused", v, err)
		}
	}
}
