package tests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// A column-mapped table that widened v (integer to long) and s.x (short to
// integer): its first file stores the narrow types under physical names.
type narrowMappedRow struct {
	ID int64 `parquet:"col-a1,id(1)"`
	V  int32 `parquet:"col-v2,id(2)"`
	S  struct {
		X int16 `parquet:"col-x4,id(4)"`
	} `parquet:"col-s3,id(3)"`
}

type wideMappedRow struct {
	ID int64 `parquet:"col-a1,id(1)"`
	V  int64 `parquet:"col-v2,id(2)"`
	S  struct {
		X int32 `parquet:"col-x4,id(4)"`
	} `parquet:"col-s3,id(3)"`
}

// wideningSchema is the table's schema before (v "integer", x "short")
// and after the change.
func wideningSchema(widened bool) string {
	v, x, vChange, xChange := "integer", "short", "", ""
	if widened {
		v, x = "long", "integer"
		vChange = `,"delta.typeChanges":[{"toType":"long","fromType":"integer","tableVersion":1}]`
		xChange = `,"delta.typeChanges":[{"toType":"integer","fromType":"short","tableVersion":1}]`
	}
	return fmt.Sprintf(`{"type":"struct","fields":[`+
		`{"name":"id","type":"long","nullable":false,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-a1"}},`+
		`{"name":"v","type":%q,"nullable":false,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-v2"%s}},`+
		`{"name":"s","type":{"type":"struct","fields":[`+
		`{"name":"x","type":%q,"nullable":false,"metadata":{"delta.columnMapping.id":4,"delta.columnMapping.physicalName":"col-x4"%s}}]},`+
		`"nullable":false,"metadata":{"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"col-s3"}}]}`,
		v, vChange, x, xChange)
}

// TestWidenedColumnMappedTable: through a real mount, the file written
// before the change (sorting first, as readers take the schema of the
// first file they meet) is served with the logical names and the wide
// types from the version that widened them on, before and after a
// deletion vector on it; the version before the change serves it as
// stored but renamed. Stat tells the size served.
func TestWidenedColumnMappedTable(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	gen := deltagen.New(dir)
	features := []string{"columnMapping", "deletionVectors", "typeWidening"}
	conf := map[string]string{"delta.columnMapping.mode": "name", "delta.columnMapping.maxColumnId": "4"}
	var narrow []narrowMappedRow
	for i := range 10 {
		r := narrowMappedRow{ID: int64(i), V: int32(i*1000 - 3)}
		r.S.X = int16(-i)
		narrow = append(narrow, r)
	}
	var wide []wideMappedRow
	for i := 10; i < 14; i++ {
		r := wideMappedRow{ID: int64(i), V: int64(i) << 40}
		r.S.X = int32(i) << 20
		wide = append(wide, r)
	}
	old := writeRows(t, dir, "a-old.parquet", narrow, "")
	mustCommit(t, gen, deltagen.Protocol(3, 7, features, features), deltagen.Metadata(wideningSchema(false), nil, conf), old)
	mustCommit(t, gen, deltagen.Metadata(wideningSchema(true), nil, conf), writeRows(t, dir, "b-new.parquet", wide, ""))
	commitDV(t, gen, old, 3, 4)

	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	type logicalRow struct {
		ID int64 `parquet:"id"`
		V  int64 `parquet:"v"`
		S  struct {
			X int32 `parquet:"x"`
		} `parquet:"s"`
	}
	wantOld := func(deleted ...int) []logicalRow {
		var out []logicalRow
		for _, r := range narrow {
			if !slices.Contains(deleted, int(r.ID)) {
				l := logicalRow{ID: r.ID, V: int64(r.V)}
				l.S.X = int32(r.S.X)
				out = append(out, l)
			}
		}
		return out
	}
	for _, c := range []struct {
		version  int
		types    string // of id, v, s.x in the served old file
		deleted  []int
		newRows  bool
		asStored bool
	}{
		{0, "INT64 INT32 INT32", nil, false, true},
		{1, "INT64 INT64 INT32", nil, true, false},
		{2, "INT64 INT64 INT32", []int{3, 4}, true, false},
	} {
		vdir := filepath.Join(m.dir, "v", fmt.Sprint(c.version))
		p := filepath.Join(vdir, "a-old.parquet")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("v%d: %v", c.version, err)
		}
		if info, err := os.Stat(p); err != nil || info.Size() != int64(len(data)) {
			t.Errorf("v%d: stat %v (%v), %d bytes read", c.version, info.Size(), err, len(data))
		}
		if got := leafTypes(t, data, "id", "v", "s.x"); got != c.types {
			t.Errorf("v%d: a-old.parquet types %s, want %s", c.version, got, c.types)
		}
		if x := leafLogical(t, data, "s.x"); c.asStored != (x == "INT(16,true)") {
			t.Errorf("v%d: s.x is %s", c.version, x)
		}
		rows, err := parquet.Read[logicalRow](bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("v%d: %v", c.version, err)
		}
		if want := wantOld(c.deleted...); fmt.Sprint(rows) != fmt.Sprint(want) {
			t.Errorf("v%d: a-old.parquet rows %v\nwant %v", c.version, rows, want)
		}
		if _, err := os.Stat(filepath.Join(vdir, "b-new.parquet")); (err == nil) != c.newRows {
			t.Errorf("v%d: b-new.parquet: %v", c.version, err)
		}
	}
}

// leafTypes names the physical types of the named leaves (dotted paths)
// of a Parquet file.
func leafTypes(t *testing.T, data []byte, paths ...string) string {
	t.Helper()
	var out []string
	for _, p := range paths {
		out = append(out, leafNode(t, data, p).Type().Kind().String())
	}
	return strings.Join(out, " ")
}

// leafLogical is the logical type of a leaf, as parquet-go spells it.
func leafLogical(t *testing.T, data []byte, path string) string {
	t.Helper()
	lt := leafNode(t, data, path).Type().LogicalType()
	if lt == nil {
		return ""
	}
	return lt.String()
}

func leafNode(t *testing.T, data []byte, path string) parquet.Node {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	leaf, ok := f.Schema().Lookup(strings.Split(path, ".")...)
	if !ok {
		t.Fatalf("no leaf %s in %v", path, f.Schema())
	}
	return leaf.Node
}
