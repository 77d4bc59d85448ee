package parquetview

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/dvfilter"
)

// A file written before a field was added to the structs inside its list
// and map columns.
type (
	oldItem struct {
		A *int64 `parquet:"a,optional"`
	}
	beforeListFields struct {
		ID    int64               `parquet:"id"`
		Items []*oldItem          `parquet:"items,optional,list"`
		M     map[string]*oldItem `parquet:"m,optional"`
	}
)

// oldListRow is row i: a null list, an empty one, one with a null
// element, an element with a null field and one with a value, by turns.
func oldListRow(i int64) beforeListFields {
	row := beforeListFields{ID: i}
	a := i * 10
	switch i % 4 {
	case 1:
		row.Items, row.M = []*oldItem{}, map[string]*oldItem{}
	case 2:
		row.Items, row.M = []*oldItem{nil, {}}, map[string]*oldItem{"k": {}}
	case 3:
		row.Items, row.M = []*oldItem{{A: &a}}, map[string]*oldItem{"k": {A: &a}, "l": nil}
	}
	return row
}

// grownLists is the table after b (a string) was added to the structs in
// items and in m's values.
func grownLists() *Rename {
	leaf := func(name string, k LeafKind) Column {
		return Column{Name: name, Physical: name, Fill: &LeafType{Kind: k}}
	}
	item := Column{Name: "element", Physical: "element", Kind: StructColumn, Children: []Column{leaf("a", LongType), leaf("b", StringType)}}
	value := item
	value.Name, value.Physical = "value", "value"
	return &Rename{Key: "lists", FillMissing: true, Columns: []Column{
		leaf("id", LongType),
		{Name: "items", Physical: "items", Kind: ListColumn, Children: []Column{item}},
		{Name: "m", Physical: "m", Kind: MapColumn, Children: []Column{leaf("key", StringType), value}},
	}}
}

// grownListRow is row i as a Delta reader reads it under grownLists
// (pyarrow's JSON of it: a map as a list of key and value pairs).
func grownListRow(i int64) map[string]any {
	row := map[string]any{"id": float64(i), "items": nil, "m": nil}
	null := map[string]any{"a": nil, "b": nil}
	switch i % 4 {
	case 1:
		row["items"], row["m"] = []any{}, []any{}
	case 2:
		row["items"] = []any{nil, null}
		row["m"] = []any{[]any{"k", null}}
	case 3:
		value := map[string]any{"a": float64(i * 10), "b": nil}
		row["items"] = []any{value}
		row["m"] = []any{[]any{"k", value}, []any{"l", nil}}
	}
	return row
}

// TestFillMissingFieldsInLists: a field added to the structs inside a
// list or a map is served, null, in every element the file stores (an
// element null, or a list null or empty, stays so), its repetition levels
// the stored fields'. pyarrow reads every row as a Delta reader would,
// with and without deleted rows, and Lacking names the fields.
func TestFillMissingFieldsInLists(t *testing.T) {
	data := writeRowGroups(t, oldListRow, []int{9, 7})
	src := &bytesSource{data: data}
	got, err := Lacking(context.Background(), src, int64(len(data)), grownLists())
	if err != nil || strings.Join(got, " ") != "items.list.element.b m.key_value.value.b" {
		t.Errorf("lacking %q, %v", got, err)
	}
	for _, deleted := range [][]uint64{nil, {1, 2, 8, 9, 15}} {
		var rows Rows
		if deleted != nil {
			rows = dvfilter.NewVector(deleted...)
		}
		v, err := Build(context.Background(), src, int64(len(data)), rows, BuildOptions{Rename: grownLists()})
		if err != nil {
			t.Fatal(err)
		}
		out := materialize(t, v, src)
		var want []map[string]any
		for i := range int64(16) {
			if !containsRow(deleted, i) {
				want = append(want, grownListRow(i))
			}
		}
		res, ok := pyarrowRead(t, out, `
import json, sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
t.validate(full=True)
json.dump({"schema": str(t.schema.field("items").type) + " " + str(t.schema.field("m").type), "rows": t.to_pylist()}, sys.stdout)
`)
		if !ok {
			continue
		}
		var r struct {
			Schema string
			Rows   []map[string]any
		}
		if err := json.Unmarshal(res, &r); err != nil {
			t.Fatal(err)
		}
		if wantSchema := "list<element: struct<a: int64, b: string>> map<string, struct<a: int64, b: string> ('m')>"; r.Schema != wantSchema {
			t.Errorf("deleted %v: schema %s, want %s", deleted, r.Schema, wantSchema)
		}
		if !reflect.DeepEqual(r.Rows, want) {
			t.Errorf("deleted %v: rows\n%v\nwant\n%v", deleted, r.Rows, want)
		}
	}
}
