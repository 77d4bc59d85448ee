package parquetview

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/dvfilter"
)

// beforeAdd is a file written before the table gained its other columns.
type beforeAdd struct {
	ID   int64  `parquet:"id"`
	Name string `parquet:"name"`
}

// grownTable is the Rename of the table after columns of every kind were
// added, filling them in files that lack them.
func grownTable() *Rename {
	leaf := func(name string, t LeafType) Column {
		return Column{Name: name, Physical: name, Fill: &t}
	}
	return &Rename{Key: "grown", FillMissing: true, Columns: []Column{
		leaf("id", LeafType{Kind: LongType}),
		leaf("name", LeafType{Kind: StringType}),
		leaf("flag", LeafType{Kind: BooleanType}),
		leaf("tiny", LeafType{Kind: ByteType}),
		leaf("small", LeafType{Kind: ShortType}),
		leaf("n", LeafType{Kind: IntType}),
		leaf("f", LeafType{Kind: FloatType}),
		leaf("d", LeafType{Kind: DoubleType}),
		leaf("bin", LeafType{Kind: BinaryType}),
		leaf("day", LeafType{Kind: DateType}),
		leaf("ts", LeafType{Kind: TimestampType}),
		leaf("ntz", LeafType{Kind: TimestampNTZType}),
		leaf("price", LeafType{Kind: DecimalType, Precision: 9, Scale: 2}),
		leaf("amount", LeafType{Kind: DecimalType, Precision: 18, Scale: 4}),
		leaf("big", LeafType{Kind: DecimalType, Precision: 38, Scale: 10}),
		{Name: "s", Physical: "s", Kind: StructColumn, Children: []Column{
			leaf("x", LeafType{Kind: IntType}),
			{Name: "inner", Physical: "inner", Kind: StructColumn, Children: []Column{leaf("y", LeafType{Kind: StringType})}},
		}},
		{Name: "tags", Physical: "tags", Kind: ListColumn, Children: []Column{leaf("", LeafType{Kind: StringType})}},
		{Name: "attrs", Physical: "attrs", Kind: MapColumn, Children: []Column{
			leaf("", LeafType{Kind: StringType}), leaf("", LeafType{Kind: LongType}),
		}},
		// No type to serve it in (a variant, say): not filled.
		{Name: "unknown", Physical: "unknown"},
	}}
}

// TestFillMissingColumns: a file lacking columns the table added is
// served with them, null in every row, in every row group, after its
// stored columns; rows a deletion vector removes stay removed; a file
// that has them all is served as stored.
func TestFillMissingColumns(t *testing.T) {
	mk := func(i int64) beforeAdd { return beforeAdd{ID: i, Name: fmt.Sprint("n", i)} }
	data := writeRowGroups(t, mk, []int{6, 4})
	src := &bytesSource{data: data}
	for _, deleted := range [][]uint64{nil, {1, 7}} {
		var rows Rows
		if deleted != nil {
			rows = dvfilter.NewVector(deleted...)
		}
		v, err := Build(context.Background(), src, int64(len(data)), rows, BuildOptions{Rename: grownTable()})
		if err != nil {
			t.Fatal(err)
		}
		if v.Unchanged() || v.Size() <= int64(len(data)) {
			t.Errorf("deleted %v: unchanged %v, size %d of %d stored", deleted, v.Unchanged(), v.Size(), len(data))
		}
		out := materialize(t, v, src)
		md := footerOf(t, out)
		if got := strings.Join(schemaNames(md), ","); !strings.HasSuffix(got, "ntz,price,amount,big,s,x,inner,y,tags,list,element,attrs,key_value,key,value") || strings.Contains(got, "unknown") {
			t.Errorf("deleted %v: schema %s", deleted, got)
		}
		f, err := parquet.OpenFile(bytes.NewReader(out), int64(len(out)))
		if err != nil {
			t.Fatal(err)
		}
		want := 10 - int64(len(deleted))
		if f.NumRows() != want {
			t.Errorf("deleted %v: %d rows, want %d", deleted, f.NumRows(), want)
		}
		checkFilledRows(t, f, want)
		checkFilledPyarrow(t, out, want)
	}

	full := &Rename{Key: "kept", FillMissing: true, Columns: grownTable().Columns[:2]}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: full})
	if err != nil || !v.Unchanged() {
		t.Errorf("a file with every column: unchanged %v, %v", v != nil && v.Unchanged(), err)
	}
}

// checkFilledRows reads every row with parquet-go: id and name as stored,
// every added leaf null.
func checkFilledRows(t *testing.T, f *parquet.File, want int64) {
	t.Helper()
	leaves := f.Schema().Columns()
	r := parquet.NewReader(f)
	defer r.Close()
	rows := make([]parquet.Row, want)
	n, err := r.ReadRows(rows)
	if int64(n) != want {
		t.Fatalf("read %d rows, want %d: %v", n, want, err)
	}
	for _, row := range rows[:n] {
		for _, val := range row {
			name := strings.Join(leaves[val.Column()], ".")
			if (name == "id" || name == "name") == val.IsNull() {
				t.Fatalf("column %s: value %v", name, val)
			}
		}
	}
}

// checkFilledPyarrow has pyarrow read the file: the added columns with
// their Delta types, all null.
func checkFilledPyarrow(t *testing.T, data []byte, rows int64) {
	t.Helper()
	const script = `
import json, sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
t.validate(full=True)
json.dump({"rows": t.num_rows, "types": {f.name: str(f.type) for f in t.schema},
           "nulls": {c: t.column(c).null_count for c in t.column_names}}, sys.stdout)
`
	out, ok := pyarrowRead(t, data, script)
	if !ok {
		return
	}
	var res struct {
		Rows  int64
		Types map[string]string
		Nulls map[string]int64
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	wantTypes := map[string]string{
		"id": "int64", "name": "string", "flag": "bool", "tiny": "int8", "small": "int16", "n": "int32",
		"f": "float", "d": "double", "bin": "binary", "day": "date32[day]", "ts": "timestamp[us, tz=UTC]",
		"ntz": "timestamp[us]", "price": "decimal128(9, 2)", "amount": "decimal128(18, 4)", "big": "decimal128(38, 10)",
		"s": "struct<x: int32, inner: struct<y: string>>", "tags": "list<element: string>",
		"attrs": "map<string, int64 ('attrs')>", // as pyarrow reads its own maps
	}
	if res.Rows != rows || len(res.Types) != len(wantTypes) {
		t.Errorf("pyarrow: %d rows, columns %v", res.Rows, res.Types)
	}
	for name, typ := range wantTypes {
		nulls := rows
		if name == "id" || name == "name" {
			nulls = 0
		}
		if res.Types[name] != typ || res.Nulls[name] != nulls {
			t.Errorf("pyarrow: %s is %s with %d nulls, want %s with %d", name, res.Types[name], res.Nulls[name], typ, nulls)
		}
	}
}

// TestFillMissingColumnsByID: in id mode a filled column carries its field
// id, as the table's writers give every column one.
func TestFillMissingColumnsByID(t *testing.T) {
	type withIDs struct {
		ID   int64  `parquet:"id,id(1)"`
		Name string `parquet:"name,id(2)"`
	}
	data := writeRowGroups(t, func(i int64) withIDs { return withIDs{ID: i} }, []int{3})
	long := LeafType{Kind: LongType}
	rn := &Rename{Key: "ids", ByID: true, FillMissing: true, Columns: []Column{
		{Name: "id", Physical: "id", ID: 1, Fill: &long}, {Name: "name", Physical: "name", ID: 2, Fill: &LeafType{Kind: StringType}},
		{Name: "added", Physical: "col-7", ID: 7, Fill: &long},
	}}
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: rn})
	if err != nil {
		t.Fatal(err)
	}
	md := footerOf(t, materialize(t, v, src))
	last := md.Schema[len(md.Schema)-1]
	if last.Name != "added" || last.FieldID != 7 {
		t.Errorf("filled column %q with field id %d, want added with 7", last.Name, last.FieldID)
	}
}

// TestFillRefusedPastItsMemory: a file of 5,000 one-row groups in a table
// of 300 columns it lacks is refused, not filled: each filled column chunk
// costs about fillChunkBytes (this 1 MB file took 7 GB to fill).
func TestFillRefusedPastItsMemory(t *testing.T) {
	groups := make([]int, 5000)
	for i := range groups {
		groups[i] = 1
	}
	type idOnly struct {
		ID int64 `parquet:"id"`
	}
	data := writeRowGroups(t, func(i int64) idOnly { return idOnly{i} }, groups)
	rn := &Rename{Key: "wide", FillMissing: true, Columns: []Column{{Name: "id", Physical: "id", Fill: &LeafType{Kind: LongType}}}}
	for k := range 300 {
		name := fmt.Sprintf("c%d", k)
		rn.Columns = append(rn.Columns, Column{Name: name, Physical: name, Fill: &LeafType{Kind: LongType}})
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Build(context.Background(), &bytesSource{data: data}, int64(len(data)), nil, BuildOptions{Rename: rn})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrParquet) || !strings.Contains(err.Error(), "filling 300 columns in 5000 row groups") {
		t.Fatalf("err = %v, want the fill refused", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
		t.Errorf("refusing took %d MB", grew>>20)
	}
}
