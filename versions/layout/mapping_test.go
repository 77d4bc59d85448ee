package layout

import (
	"fmt"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
)

// TestRenameOf: which tables get a Rename, what it serves, and whether
// its files surely keep their size.
func TestRenameOf(t *testing.T) {
	const plain = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"p","type":"string","nullable":true,"metadata":{}}]}`
	const widened = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{` +
		`"delta.typeChanges":[{"toType":"long","fromType":"integer","tableVersion":1}]}},` +
		`{"name":"p","type":"string","nullable":true,"metadata":{}}]}`
	rowTracking := map[string]string{
		"delta.enableRowTracking":                                  "true",
		"delta.rowTracking.materializedRowIdColumnName":            "_row-id-col-1",
		"delta.rowTracking.materializedRowCommitVersionColumnName": "_row-commit-version-col-2",
	}
	for _, c := range []struct {
		name     string
		schema   string
		conf     map[string]string
		columns  string // the Rename's top-level columns, served<-stored; "": no Rename
		sameSize bool
	}{
		{"plain", plain, nil, "", false},
		{"row tracking without materialized columns", plain, map[string]string{"delta.enableRowTracking": "true"}, "", false},
		{"row tracking", plain, rowTracking, "[id<-id]", true},
		{"widened", widened, nil, "[id<-id]", false},
		{"widened with row tracking", widened, rowTracking, "[id<-id]", false},
	} {
		md := &action.Metadata{SchemaString: c.schema, PartitionColumns: []string{"p"}, Configuration: c.conf}
		rn, sameSize, err := renameOf(md)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := ""
		if rn != nil {
			var names []string
			for _, col := range rn.Columns {
				names = append(names, col.Name+"<-"+col.Physical)
			}
			got = fmt.Sprint(names)
		}
		if got != c.columns || sameSize != c.sameSize {
			t.Errorf("%s: columns %q, same size %v; want %q, %v", c.name, got, sameSize, c.columns, c.sameSize)
		}
	}
}
