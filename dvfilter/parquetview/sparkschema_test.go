package parquetview

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter"
)

// sparkFieldsOf are the Spark fields of tableColumns, as the table's
// schema gives them.
var sparkFieldsOf = map[string]string{
	"id":     `{"name":"id","type":"long","nullable":true,"metadata":{}}`,
	"name":   `{"name":"name","type":"string","nullable":true,"metadata":{}}`,
	"nested": `{"name":"nested","type":{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}`,
}

// withSparkFields is tableColumns with the Spark fields of the columns
// named (all, with no names).
func withSparkFields(names ...string) *Rename {
	rn := *tableColumns
	rn.Columns = slices.Clone(rn.Columns)
	for i := range rn.Columns {
		if len(names) == 0 || slices.Contains(names, rn.Columns[i].Name) {
			rn.Columns[i].SparkField = sparkFieldsOf[rn.Columns[i].Name]
		}
	}
	return &rn
}

// padded gives rn's first column a Spark field n bytes longer.
func padded(rn *Rename, n int) *Rename {
	f := rn.Columns[0].SparkField
	rn.Columns[0].SparkField = strings.Replace(f, `"metadata":{}`, `"metadata":{"pad":"`+strings.Repeat("x", n)+`"}`, 1)
	return rn
}

// sparkSchemaOf is the value of md's Spark schema entry, or "" without one.
func sparkSchemaOf(md *format.FileMetaData) string {
	for _, kv := range md.KeyValueMetadata {
		if kv.Key == sparkSchemaKey {
			return kv.Value
		}
	}
	return ""
}

// TestSparkSchemaWrittenAgain: a file whose footer a Rename rewrites (here
// hiding row tracking's columns) keeps Spark's schema entry, written again
// from the served columns' Spark fields, in the stored size; Arrow's goes.
// Spark's reader takes a file's schema from that entry: without it a
// variant column read as a struct of two binaries. Where a served column
// has no Spark field, or the footer would then end past the stored size
// (the file must keep the size the log gives), or the file had none, the
// view has none.
func TestSparkSchemaWrittenAgain(t *testing.T) {
	mk := func(i int64) rowTracked {
		return rowTracked{ID: i, Name: fmt.Sprint("n", i), RowID: 1000 + i, Version: 7}
	}
	// As Spark writes it: every stored column, with metadata.
	stored := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"name","type":"string","nullable":true,"metadata":{}},` +
		`{"name":"_row-id-col-1","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"_row-commit-version-col-2","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"nested","type":{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`
	want := `{"type":"struct","fields":[` + sparkFieldsOf["id"] + "," + sparkFieldsOf["name"] + "," + sparkFieldsOf["nested"] + `]}`
	cases := []struct {
		name   string
		stored string // "": no entry
		rn     *Rename
		want   string
	}{
		{"every served column has its field", stored, withSparkFields(), want},
		{"a served column without one", stored, withSparkFields("id", "name"), ""},
		{"the footer would outgrow the stored file", stored, padded(withSparkFields(), 5000), ""},
		{"no entry stored", "", withSparkFields(), ""},
	}
	for _, c := range cases {
		opts := []parquet.WriterOption{parquet.KeyValueMetadata("ARROW:schema", "cache")}
		if c.stored != "" {
			opts = append(opts, parquet.KeyValueMetadata(sparkSchemaKey, c.stored))
		}
		data := writeRowGroups(t, mk, []int{5, 5}, opts...)
		src := &bytesSource{data: data}
		for _, del := range [][]uint64{nil, {0, 7}} {
			v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(del...), BuildOptions{Rename: c.rn})
			if err != nil {
				t.Fatal(err)
			}
			if del == nil && v.Size() != int64(len(data)) {
				t.Errorf("%s: served in %d bytes, stored in %d", c.name, v.Size(), len(data))
			}
			md := footerOf(t, materialize(t, v, src))
			if got := sparkSchemaOf(md); got != c.want {
				t.Errorf("%s, deleted %v: Spark's schema entry\n%s\nwant\n%s", c.name, del, got, c.want)
			}
			if hasKey(md, "ARROW:schema") || strings.Count(fmt.Sprint(md.KeyValueMetadata), sparkSchemaKey) > 1 {
				t.Errorf("%s, deleted %v: entries %v", c.name, del, md.KeyValueMetadata)
			}
		}
	}
}
