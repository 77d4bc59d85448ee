package parquetview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter"
)

// A file Spark rewrote under row tracking: the table's columns and the
// two materialized ones, which a Delta reader hides.
type rowTracked struct {
	ID      int64  `parquet:"id"`
	Name    string `parquet:"name"`
	RowID   int64  `parquet:"_row-id-col-1"`
	Version int64  `parquet:"_row-commit-version-col-2"`
	Nested  struct {
		X int32 `parquet:"x"`
	} `parquet:"nested"`
}

type schemaOnly struct {
	ID     int64  `parquet:"id"`
	Name   string `parquet:"name"`
	Nested struct {
		X int32 `parquet:"x"`
	} `parquet:"nested"`
}

// tableColumns is the Rename of the table's schema without column
// mapping: every name its own physical name.
var tableColumns = &Rename{Key: "schema", Columns: []Column{
	{Name: "id", Physical: "id"},
	{Name: "name", Physical: "name"},
	{Name: "nested", Physical: "nested", Kind: StructColumn, Children: []Column{{Name: "x", Physical: "x"}}},
}}

// TestRenameKeepingEveryColumnChangesNothing: a file that already has
// exactly the columns a Rename serves, under their stored names, is
// served as stored (Unchanged, byte for byte, schema caches kept), so
// that it can be served as a plain file; with rows deleted it is not.
func TestRenameKeepingEveryColumnChangesNothing(t *testing.T) {
	mk := func(i int64) schemaOnly {
		r := schemaOnly{ID: i, Name: fmt.Sprint("n", i)}
		r.Nested.X = int32(-i)
		return r
	}
	data := writeRowGroups(t, mk, []int{6, 4}, parquet.KeyValueMetadata("ARROW:schema", "cache"))
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: tableColumns})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Unchanged() || v.Rows != 10 || !bytes.Equal(materialize(t, v, src), data) {
		t.Errorf("unchanged %v, %d rows: want the stored file, 10 rows", v.Unchanged(), v.Rows)
	}
	v, err = Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(2), BuildOptions{Rename: tableColumns})
	if err != nil {
		t.Fatal(err)
	}
	if v.Unchanged() || v.Rows != 9 {
		t.Errorf("with a row deleted: unchanged %v, %d rows", v.Unchanged(), v.Rows)
	}
	if md := footerOf(t, materialize(t, v, src)); !hasKey(md, "ARROW:schema") {
		t.Error("the schema cache of a file whose columns are all kept was dropped")
	}
}

// TestRenameHidesColumnsOutsideTheSchema: row tracking's materialized
// columns are left out of the served file, which keeps its stored size
// and every other value; the schema caches, which name them, go too.
func TestRenameHidesColumnsOutsideTheSchema(t *testing.T) {
	mk := func(i int64) rowTracked {
		r := rowTracked{ID: i, Name: fmt.Sprint("n", i), RowID: 1000 + i, Version: 7}
		r.Nested.X = int32(-i)
		return r
	}
	data := writeRowGroups(t, mk, []int{5, 5}, parquet.KeyValueMetadata("ARROW:schema", "cache"))
	src := &bytesSource{data: data}
	for _, del := range [][]uint64{nil, {0, 7}} {
		v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(del...), BuildOptions{Rename: tableColumns})
		if err != nil {
			t.Fatal(err)
		}
		view := materialize(t, v, src)
		if v.Unchanged() || (del == nil && v.Size() != int64(len(data))) {
			t.Errorf("deleted %v: unchanged %v, size %d of %d", del, v.Unchanged(), v.Size(), len(data))
		}
		md := footerOf(t, view)
		if hasKey(md, "ARROW:schema") {
			t.Errorf("deleted %v: the schema cache naming the hidden columns is served", del)
		}
		if names := schemaNames(md); fmt.Sprint(names) != "[id name nested x]" {
			t.Errorf("deleted %v: served schema %v", del, names)
		}
		rows, err := parquet.Read[schemaOnly](bytes.NewReader(view), int64(len(view)))
		if err != nil {
			t.Fatal(err)
		}
		var want []schemaOnly
		for i := range int64(10) {
			if i != 0 && i != 7 || del == nil {
				r := mk(i)
				want = append(want, schemaOnly{ID: r.ID, Name: r.Name, Nested: r.Nested})
			}
		}
		if fmt.Sprint(rows) != fmt.Sprint(want) {
			t.Errorf("deleted %v: rows %v\nwant %v", del, rows, want)
		}
	}
}

func footerOf(t testing.TB, data []byte) *format.FileMetaData {
	t.Helper()
	md, _, err := readFooter(context.Background(), &bytesSource{data: data}, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// schemaNames lists the names of md's schema elements below the root.
func schemaNames(md *format.FileMetaData) []string {
	var names []string
	for _, el := range md.Schema[1:] {
		names = append(names, el.Name)
	}
	return names
}

func hasKey(md *format.FileMetaData, key string) bool {
	return slices.ContainsFunc(md.KeyValueMetadata, func(kv format.KeyValue) bool { return kv.Key == key })
}

// TestRenameByIDFindsColumnsWithoutIDByName: a change data file of an
// id-mapped table holds _change_type without a field id; a Column
// without an id finds it by name, and the others are found by id.
func TestRenameByIDFindsColumnsWithoutIDByName(t *testing.T) {
	type changeRow struct {
		ID   int64  `parquet:"col-a,id(1)"`
		Kind string `parquet:"_change_type"`
	}
	data := writeRowGroups(t, func(i int64) changeRow { return changeRow{i, "insert"} }, []int{3})
	rn := &Rename{ByID: true, Columns: []Column{{Name: "id", Physical: "col-other", ID: 1}, {Name: "_change_type", Physical: "_change_type"}}}
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: rn})
	if err != nil {
		t.Fatal(err)
	}
	if names := schemaNames(footerOf(t, materialize(t, v, src))); fmt.Sprint(names) != "[id _change_type]" {
		t.Errorf("served columns %v, want [id _change_type]", names)
	}
}

// TestRenameFindsColumnsStoredInAnotherCase: Delta readers match a
// file's column names to the schema's whatever their case, so a file
// storing ID where the schema says id is served as id, at its stored
// size, unless a sibling stores the exact name; two siblings that both
// fold to it are an error.
func TestRenameFindsColumnsStoredInAnotherCase(t *testing.T) {
	type upper struct {
		ID     int64  `parquet:"ID"`
		Name   string `parquet:"Name"`
		Nested struct {
			X int32 `parquet:"X"`
		} `parquet:"NESTED"`
	}
	mk := func(i int64) upper {
		r := upper{ID: i, Name: fmt.Sprint("n", i)}
		r.Nested.X = int32(-i)
		return r
	}
	serve := func(data []byte) (*View, []byte, error) {
		src := &bytesSource{data: data}
		v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: tableColumns})
		if err != nil {
			return nil, nil, err
		}
		return v, materialize(t, v, src), nil
	}
	data := writeRowGroups(t, mk, []int{4})
	v, view, err := serve(data)
	if err != nil {
		t.Fatal(err)
	}
	if v.Size() != int64(len(data)) {
		t.Errorf("served size %d, stored %d", v.Size(), len(data))
	}
	rows, err := parquet.Read[schemaOnly](bytes.NewReader(view), int64(len(view)))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rows) != "[{0 n0 {0}} {1 n1 {-1}} {2 n2 {-2}} {3 n3 {-3}}]" {
		t.Errorf("rows %v", rows)
	}

	type both struct {
		Exact int64 `parquet:"id"`
		Upper int64 `parquet:"ID"`
	}
	_, view, err = serve(writeRowGroups(t, func(i int64) both { return both{i, -i} }, []int{3}))
	if err != nil {
		t.Fatal(err)
	}
	if names := schemaNames(footerOf(t, view)); fmt.Sprint(names) != "[id]" {
		t.Errorf("served columns %v, want the exact name alone: [id]", names)
	}

	type twoCases struct {
		A int64 `parquet:"Id"`
		B int64 `parquet:"iD"`
	}
	_, _, err = serve(writeRowGroups(t, func(i int64) twoCases { return twoCases{i, -i} }, []int{3}))
	if !errors.Is(err, ErrParquet) || !strings.Contains(err.Error(), `"Id" and "iD"`) {
		t.Errorf("two columns naming id but for case: %v", err)
	}
}
