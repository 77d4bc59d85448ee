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
	const mapped = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{` +
		`"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-1"}},` +
		`{"name":"p","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-2"}}]}`
	nameMode := map[string]string{"delta.columnMapping.mode": "name", "delta.enableChangeDataFeed": "true"}
	rowTracking := map[string]string{
		"delta.enableRowTracking":                                  "true",
		"delta.rowTracking.materializedRowIdColumnName":            "_row-id-col-1",
		"delta.rowTracking.materializedRowCommitVersionColumnName": "_row-commit-version-col-2",
	}
	for _, c := range []struct {
		name     string
		schema   string
		conf     map[string]string
		protocol action.Protocol
		columns  string // the Rename's top-level columns, served<-stored; "": no Rename
		sameSize bool
	}{
		{"plain", plain, nil, action.Protocol{}, "", false},
		{"row tracking without materialized columns", plain, map[string]string{"delta.enableRowTracking": "true"}, action.Protocol{}, "", false},
		{"row tracking", plain, rowTracking, action.Protocol{}, "[id<-id]", true},
		{"widened", widened, nil, action.Protocol{}, "[id<-id]", false},
		{"widened with row tracking", widened, rowTracking, action.Protocol{}, "[id<-id]", false},
		{"change data feed on", plain, map[string]string{"delta.enableChangeDataFeed": "TRUE"}, action.Protocol{}, "[id<-id]", true},
		{"change data feed off", plain, map[string]string{"delta.enableChangeDataFeed": "false"}, action.Protocol{}, "", false},
		{"change data feed among the features", plain, nil, action.Protocol{MinWriterVersion: 7, WriterFeatures: []string{"changeDataFeed"}}, "[id<-id]", true},
		{"name mapping", mapped, nameMode, action.Protocol{MinReaderVersion: 2, MinWriterVersion: 5}, "[id<-col-1]", true},
		{"name mapping among the features", mapped, nameMode, action.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"columnMapping"}}, "[id<-col-1]", true},
		// A protocol without column mapping: no mapping, whatever the
		// property and the fields' metadata say (files store logical names).
		{"name mapping the protocol lacks", mapped, nameMode, action.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"deletionVectors"}}, "[id<-id]", true},
		{"name mapping under reader version 1", mapped, nameMode, action.Protocol{MinReaderVersion: 1, MinWriterVersion: 4}, "[id<-id]", true},
	} {
		md := &action.Metadata{SchemaString: c.schema, PartitionColumns: []string{"p"}, Configuration: c.conf}
		rn, sameSize, err := renameOf(md, &c.protocol)
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

// TestForChangeData: change data files keep _change_type besides the
// columns the table's Rename serves, under another key; a table served
// as stored stays so.
func TestForChangeData(t *testing.T) {
	md := &action.Metadata{
		SchemaString:  `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}`,
		Configuration: map[string]string{"delta.enableChangeDataFeed": "true"},
	}
	rn, _, err := renameOf(md, &action.Protocol{})
	if err != nil {
		t.Fatal(err)
	}
	v := &Version{Rename: rn}
	v.ForChangeData()
	if len(v.Rename.Columns) != 2 || v.Rename.Columns[1].Name != "_change_type" || v.Rename.Key == rn.Key || len(rn.Columns) != 1 {
		t.Errorf("change data Rename %+v from %+v", v.Rename, rn)
	}
	plain := &Version{}
	if plain.ForChangeData(); plain.Rename != nil {
		t.Error("a table served as stored got a Rename for its change data")
	}
}
