package parquetview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter"
)

// A file written before fields were added inside its struct column.
type (
	oldInner struct {
		X *int32 `parquet:"x,optional"`
	}
	oldStruct struct {
		A *int64    `parquet:"a,optional"`
		T *oldInner `parquet:"t,optional"`
	}
	beforeFields struct {
		ID int64      `parquet:"id"`
		S  *oldStruct `parquet:"s,optional"`
		R  oldInner   `parquet:"r"`
	}
)

// oldRow is row i: every third struct null, every third with null
// fields, the rest with values.
func oldRow(i int64) beforeFields {
	row := beforeFields{ID: i}
	switch i % 3 {
	case 1:
		row.S = &oldStruct{}
	case 2:
		a, x := i*10, int32(i)
		row.S = &oldStruct{A: &a, T: &oldInner{X: &x}}
		row.R.X = &x
	}
	return row
}

// grownStruct is the table after fields were added: s.b (a long), s.u
// (a struct), s.t.y (a string inside a nested struct), r.z (inside a
// required struct).
func grownStruct() *Rename {
	leaf := func(name string, k LeafKind) Column {
		return Column{Name: name, Physical: name, Fill: &LeafType{Kind: k}}
	}
	return &Rename{Key: "fields", FillMissing: true, Columns: []Column{
		leaf("id", LongType),
		{Name: "s", Physical: "s", Kind: StructColumn, Children: []Column{
			leaf("a", LongType),
			{Name: "t", Physical: "t", Kind: StructColumn, Children: []Column{leaf("x", IntType), leaf("y", StringType)}},
			leaf("b", LongType),
			{Name: "u", Physical: "u", Kind: StructColumn, Children: []Column{leaf("v", IntType)}},
		}},
		{Name: "r", Physical: "r", Kind: StructColumn, Children: []Column{leaf("x", IntType), leaf("z", DoubleType)}},
	}}
}

// grownRow is row i as a Delta reader reads it under grownStruct.
func grownRow(i int64) map[string]any {
	row := map[string]any{"id": float64(i), "s": nil, "r": map[string]any{"x": nil, "z": nil}}
	switch i % 3 {
	case 1:
		row["s"] = map[string]any{"a": nil, "t": nil, "b": nil, "u": nil}
	case 2:
		row["s"] = map[string]any{"a": float64(i * 10), "t": map[string]any{"x": float64(i), "y": nil}, "b": nil, "u": nil}
		row["r"] = map[string]any{"x": float64(i), "z": nil}
	}
	return row
}

// TestFillMissingFields: fields added inside a stored struct are served,
// null, after the struct's stored fields; where the struct itself is null
// it stays null. pyarrow reads every row as a Delta reader would, in
// files of several row groups, with and without deleted rows.
func TestFillMissingFields(t *testing.T) {
	data := writeRowGroups(t, oldRow, []int{7, 5})
	src := &bytesSource{data: data}
	for _, deleted := range [][]uint64{nil, {1, 2, 8}} {
		var rows Rows
		if deleted != nil {
			rows = dvfilter.NewVector(deleted...)
		}
		v, err := Build(context.Background(), src, int64(len(data)), rows, BuildOptions{Rename: grownStruct()})
		if err != nil {
			t.Fatal(err)
		}
		out := materialize(t, v, src)
		want := []map[string]any{}
		var kept []int64
		for i := range int64(12) {
			if !containsRow(deleted, i) {
				want = append(want, grownRow(i))
				kept = append(kept, i)
			}
		}
		checkFieldLevels(t, out, kept)
		got, ok := pyarrowRead(t, out, `
import json, sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
t.validate(full=True)
json.dump({"schema": str(t.schema.field("s").type) + " " + str(t.schema.field("r").type), "rows": t.to_pylist()}, sys.stdout)
`)
		if !ok {
			continue
		}
		var res struct {
			Schema string
			Rows   []map[string]any
		}
		if err := json.Unmarshal(got, &res); err != nil {
			t.Fatal(err)
		}
		if wantSchema := "struct<a: int64, t: struct<x: int32, y: string>, b: int64, u: struct<v: int32>> struct<x: int32, z: double>"; res.Schema != wantSchema {
			t.Errorf("deleted %v: schema %s, want %s", deleted, res.Schema, wantSchema)
		}
		if !reflect.DeepEqual(res.Rows, want) {
			t.Errorf("deleted %v: rows\n%v\nwant\n%v", deleted, res.Rows, want)
		}
	}
}

// checkFieldLevels reads the filled fields' definition levels with
// parquet-go: each says how far down its path the row has values (readers
// that take a struct's nulls from any of its fields need them exact).
func checkFieldLevels(t *testing.T, data []byte, kept []int64) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	leaves := f.Schema().Columns()
	r := parquet.NewReader(f)
	defer r.Close()
	rows := make([]parquet.Row, len(kept))
	if n, err := r.ReadRows(rows); n != len(kept) {
		t.Fatalf("read %d rows, want %d: %v", n, len(kept), err)
	}
	for k, row := range rows {
		i := kept[k]
		s, tt := 0, 0 // levels of s and of s.t when present
		if i%3 != 0 {
			s = 1
		}
		if i%3 == 2 {
			tt = 1
		}
		want := map[string]int{"s.b": s, "s.u.v": s, "s.t.y": s + tt, "r.z": 0}
		for _, val := range row {
			name := strings.Join(leaves[val.Column()], ".")
			if w, ok := want[name]; ok && (val.DefinitionLevel() != w || !val.IsNull()) {
				t.Errorf("row %d: %s at level %d (null %v), want %d", i, name, val.DefinitionLevel(), val.IsNull(), w)
			}
		}
	}
}

func containsRow(rows []uint64, i int64) bool {
	for _, r := range rows {
		if r == uint64(i) {
			return true
		}
	}
	return false
}

// TestFillMissingFieldsSize: the size a view states is the size it
// serves, and a file storing every field is served as stored.
func TestFillMissingFieldsSize(t *testing.T) {
	data := writeRowGroups(t, oldRow, []int{3, 3, 3})
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: grownStruct()})
	if err != nil {
		t.Fatal(err)
	}
	if out := materialize(t, v, src); int64(len(out)) != v.Size() || v.Unchanged() {
		t.Errorf("size %d, served %d, unchanged %v", v.Size(), len(out), v.Unchanged())
	}
	stored := &Rename{Key: "stored", FillMissing: true, Columns: []Column{
		{Name: "id", Physical: "id"},
		{Name: "s", Physical: "s", Kind: StructColumn, Children: []Column{
			{Name: "a", Physical: "a"},
			{Name: "t", Physical: "t", Kind: StructColumn, Children: []Column{{Name: "x", Physical: "x"}}},
		}},
		{Name: "r", Physical: "r", Kind: StructColumn, Children: []Column{{Name: "x", Physical: "x"}}},
	}}
	v, err = Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: stored})
	if err != nil || !v.Unchanged() {
		t.Errorf("every field stored: unchanged %v, %v", v != nil && v.Unchanged(), fmt.Sprint(err))
	}
}

// TestFillMissingFieldsPageByPage: a sibling chunk too large to read in
// one request is read page by page, to the same view.
func TestFillMissingFieldsPageByPage(t *testing.T) {
	data := writeRowGroups(t, oldRow, []int{700, 500}, parquet.PageBufferSize(256))
	src := &bytesSource{data: data}
	build := func() []byte {
		v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(3, 701), BuildOptions{Rename: grownStruct()})
		if err != nil {
			t.Fatal(err)
		}
		return materialize(t, v, src)
	}
	whole := build()
	defer func(n int64) { wholeChunkRead = n }(wholeChunkRead)
	wholeChunkRead = 0
	if paged := build(); !bytes.Equal(paged, whole) {
		t.Errorf("read page by page: %d bytes, differing from the %d read whole", len(paged), len(whole))
	}
	var kept []int64
	for i := range int64(1200) {
		if i != 3 && i != 701 {
			kept = append(kept, i)
		}
	}
	checkFieldLevels(t, whole, kept)
}

// TestFillMissingFieldsByID: in id mode a field filled inside a struct
// carries its field id, and the struct's stored fields are found by
// theirs.
func TestFillMissingFieldsByID(t *testing.T) {
	data := writeRowGroups(t, oldRow, []int{4})
	md := footerOf(t, data)
	for i := range md.Schema {
		md.Schema[i].FieldID = int32(i) // id, s (2), a (3), ...
	}
	long := LeafType{Kind: LongType}
	rn := &Rename{Key: "ids", ByID: true, FillMissing: true, Columns: []Column{
		{Name: "id", Physical: "col-1", ID: 1, Fill: &long},
		{Name: "s", Physical: "col-2", ID: 2, Kind: StructColumn, Children: []Column{
			{Name: "a", Physical: "col-3", ID: 3, Fill: &long},
			{Name: "b", Physical: "col-9", ID: 9, Fill: &long},
		}},
	}}
	data = withSchema(t, data, md)
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: rn})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, el := range footerOf(t, materialize(t, v, src)).Schema[1:] {
		got = append(got, fmt.Sprintf("%s:%d", el.Name, el.FieldID))
	}
	if want := "id:1 s:2 a:3 b:9"; strings.Join(got, " ") != want {
		t.Errorf("served schema %s, want %s", strings.Join(got, " "), want)
	}
}

// withSchema returns the Parquet file data with its footer's schema
// replaced by md's.
func withSchema(t testing.TB, data []byte, md *format.FileMetaData) []byte {
	t.Helper()
	_, dataEnd, err := readFooter(context.Background(), &bytesSource{data: data}, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	tail, err := encodeFooter(md)
	if err != nil {
		t.Fatal(err)
	}
	return append(slices.Clip(data[:dataEnd]), tail...)
}

// TestLacking: the columns and fields a file lacks, from its footer.
func TestLacking(t *testing.T) {
	data := writeRowGroups(t, oldRow, []int{3})
	got, err := Lacking(context.Background(), &bytesSource{data: data}, int64(len(data)), grownStruct())
	if err != nil {
		t.Fatal(err)
	}
	if want := "s.t.y s.b s.u r.z"; strings.Join(got, " ") != want {
		t.Errorf("lacking %q, want %s", got, want)
	}
	rn := grownTable()
	data = writeRowGroups(t, func(i int64) beforeAdd { return beforeAdd{ID: i} }, []int{2})
	if got, err := Lacking(context.Background(), &bytesSource{data: data}, int64(len(data)), rn); err != nil || len(got) != len(rn.Columns)-3 || got[0] != "flag" {
		t.Errorf("lacking %q, %v; want the %d columns after id and name that can be filled", got, err, len(rn.Columns)-3)
	}
}
