package parquetview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// idTable is the Rename of an id-mapped table: a (id 1, stored as pa), b
// (id 2, pb) and the struct s (id 3, ps) of x (id 4, px) and y (id 5, py).
func idTable(fill bool) *Rename {
	long := &LeafType{Kind: LongType}
	return &Rename{Key: "ids", ByID: true, FillMissing: fill, Columns: []Column{
		{Name: "a", Physical: "pa", ID: 1, Fill: long},
		{Name: "b", Physical: "pb", ID: 2, Fill: long},
		{Name: "s", Physical: "ps", ID: 3, Kind: StructColumn, Children: []Column{
			{Name: "x", Physical: "px", ID: 4, Fill: long},
			{Name: "y", Physical: "py", ID: 5, Fill: long},
		}},
	}}
}

// servedByID serves data through rn and reads it back with parquet-go:
// the served column paths and the rows as text.
func servedByID(t *testing.T, data []byte, rn *Rename) (paths string, rows string, err error) {
	t.Helper()
	paths, rows, _, err = servedFileByID(t, data, rn)
	return paths, rows, err
}

// servedFileByID is servedByID, with the served file.
func servedFileByID(t *testing.T, data []byte, rn *Rename) (paths string, rows string, out []byte, err error) {
	t.Helper()
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: rn})
	if err != nil {
		return "", "", nil, err
	}
	out = materialize(t, v, src)
	f, err := parquet.OpenFile(bytes.NewReader(out), int64(len(out)))
	if err != nil {
		t.Fatalf("served file: %v", err)
	}
	var cols []string
	for _, p := range f.Schema().Columns() {
		cols = append(cols, strings.Join(p, "."))
	}
	r := parquet.NewReader(f)
	defer r.Close()
	got := make([]parquet.Row, f.NumRows())
	if n, err := r.ReadRows(got); int64(n) != f.NumRows() {
		t.Fatalf("read %d of %d rows: %v", n, f.NumRows(), err)
	}
	var text []string
	for _, row := range got {
		var vals []string
		for _, v := range row {
			if v.IsNull() {
				vals = append(vals, "null")
			} else {
				vals = append(vals, fmt.Sprint(v.Int64()))
			}
		}
		text = append(text, strings.Join(vals, " "))
	}
	return strings.Join(cols, ","), strings.Join(text, "|"), out, nil
}

// TestRenameByIDRefusesFileWithoutFieldIDs: a file storing the physical
// names without any field id is refused (PROTOCOL.md allows refusing it
// or nulls in every column), never served with an empty schema; its
// columns are not matched by name, as delta-rs matches them.
func TestRenameByIDRefusesFileWithoutFieldIDs(t *testing.T) {
	type noIDs struct {
		A int64 `parquet:"pa"`
		B int64 `parquet:"pb"`
	}
	data := writeRowGroups(t, func(i int64) noIDs { return noIDs{i, -i} }, []int{2})
	for _, fill := range []bool{false, true} {
		if _, _, err := servedByID(t, data, idTable(fill)); !errors.Is(err, ErrNoFieldIDs) || !errors.Is(err, ErrParquet) {
			t.Errorf("fill %v: %v, want ErrNoFieldIDs", fill, err)
		}
	}
	if _, err := Lacking(context.Background(), &bytesSource{data: data}, int64(len(data)), idTable(true)); !errors.Is(err, ErrNoFieldIDs) {
		t.Errorf("Lacking: %v, want ErrNoFieldIDs", err)
	}
}

// TestRenameByIDFillsColumnsWhoseIDsTheFileLacks: a file whose field ids
// name no column of the table holds none of them (PROTOCOL.md: they read
// as nulls); the stored names do not count. It is served with every
// column, all nulls, or refused where they cannot be filled: never with
// an empty schema, which no reader opens.
func TestRenameByIDFillsColumnsWhoseIDsTheFileLacks(t *testing.T) {
	type otherIDs struct {
		A int64 `parquet:"pa,id(7)"`
		B int64 `parquet:"pb,id(8)"`
	}
	data := writeRowGroups(t, func(i int64) otherIDs { return otherIDs{i + 1, -i} }, []int{2, 1})
	paths, rows, out, err := servedFileByID(t, data, idTable(true))
	if err != nil {
		t.Fatal(err)
	}
	if paths != "a,b,s.x,s.y" || rows != "null null null null|null null null null|null null null null" {
		t.Errorf("served %s: %s", paths, rows)
	}
	const script = `
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
t.validate(full=True)
print(t.schema.names, t.num_rows, [t.column(c).null_count for c in t.column_names])
`
	if got, ok := pyarrowRead(t, out, script); ok && string(got) != "['a', 'b', 's'] 3 [3, 3, 3]\n" {
		t.Errorf("pyarrow read %q", got)
	}
	if _, _, err := servedByID(t, data, idTable(false)); !errors.Is(err, ErrParquet) || !strings.Contains(err.Error(), "none of the table's columns") {
		t.Errorf("without fill: %v, want an error", err)
	}
}

// TestRenameByIDColumnsWithoutIDsAreMissing: in a file where only some
// columns carry ids, one without is missing (filled), even under the
// physical name; so for the fields of a struct: one without an id is
// filled inside the stored struct, and a struct none of whose fields
// match is filled whole.
func TestRenameByIDColumnsWithoutIDsAreMissing(t *testing.T) {
	type half struct {
		X int64 `parquet:"px"`
		Y int64 `parquet:"py,id(5)"`
	}
	type someIDs struct {
		A int64 `parquet:"pa,id(1)"`
		B int64 `parquet:"pb"`
		S half  `parquet:"ps,id(3)"`
	}
	data := writeRowGroups(t, func(i int64) someIDs { return someIDs{i + 1, -i, half{10 * i, 100 + i}} }, []int{2})
	paths, rows, err := servedByID(t, data, idTable(true))
	if err != nil {
		t.Fatal(err)
	}
	if paths != "a,s.y,s.x,b" || rows != "1 100 null null|2 101 null null" {
		t.Errorf("served %s: %s", paths, rows)
	}

	type noFieldIDs struct {
		X int64 `parquet:"px"`
	}
	type structWithout struct {
		A int64      `parquet:"pa,id(1)"`
		S noFieldIDs `parquet:"ps,id(3)"`
	}
	data = writeRowGroups(t, func(i int64) structWithout { return structWithout{i + 1, noFieldIDs{i}} }, []int{2})
	paths, rows, err = servedByID(t, data, idTable(true))
	if err != nil {
		t.Fatal(err)
	}
	if paths != "a,b,s.x,s.y" || rows != "1 null null null|2 null null null" {
		t.Errorf("struct without field ids: served %s: %s", paths, rows)
	}
}
