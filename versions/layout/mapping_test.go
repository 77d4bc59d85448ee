package layout

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/dvfilter/parquetview"

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
		// The partition column p, stored in the files too, is hidden.
		{"materialized partition columns", plain, nil, action.Protocol{MinWriterVersion: 7, WriterFeatures: []string{"materializePartitionColumns"}}, "[id<-id]", true},
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

// TestRenameOfTimestamps: a table with a timestamp column among those
// the files store, at any depth, gets a Rename that reads it as an
// instant, and its files keep their size; a timestamp_ntz, or a
// timestamp partition column, does not.
func TestRenameOfTimestamps(t *testing.T) {
	field := func(name, typ string) string {
		return fmt.Sprintf(`{"name":%q,"type":%s,"nullable":true,"metadata":{}}`, name, typ)
	}
	schema := func(fields ...string) string {
		return `{"type":"struct","fields":[` + strings.Join(fields, ",") + `]}`
	}
	for _, c := range []struct {
		name, schema, instants string // instants: the leaves read as instants; "": no Rename
	}{
		{"top level", schema(field("id", `"long"`), field("ts", `"timestamp"`)), "ts"},
		{"in a struct, a list and a map", schema(field("s", `{"type":"struct","fields":[`+field("t", `"timestamp"`)+`]}`),
			field("l", `{"type":"array","elementType":"timestamp","containsNull":true}`),
			field("m", `{"type":"map","keyType":"string","valueType":"timestamp","valueContainsNull":true}`)), "s.t l.element m.value"},
		{"timestamp_ntz", schema(field("id", `"long"`), field("ts", `"timestamp_ntz"`)), ""},
		{"a timestamp partition column", schema(field("id", `"long"`), field("p", `"timestamp"`)), ""},
		{"a column named timestamp", schema(field("timestamp", `"long"`)), ""},
	} {
		md := &action.Metadata{SchemaString: c.schema, PartitionColumns: []string{"p"}}
		rn, sameSize, err := renameOf(md, &action.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"timestampNtz"}})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		var walk func(cols []parquetview.Column, parent *parquetview.Column, prefix string)
		walk = func(cols []parquetview.Column, parent *parquetview.Column, prefix string) {
			for i, col := range cols {
				name := col.Name // list elements and map entries have none
				switch {
				case parent != nil && parent.Kind == parquetview.ListColumn:
					name = "element"
				case parent != nil && parent.Kind == parquetview.MapColumn:
					name = []string{"key", "value"}[i]
				}
				if prefix != "" {
					name = prefix + "." + name
				}
				if col.Instant {
					got = append(got, name)
				}
				walk(col.Children, &cols[i], name)
			}
		}
		if rn != nil {
			walk(rn.Columns, nil, "")
			if !sameSize {
				t.Errorf("%s: the files' size is not kept", c.name)
			}
		}
		if strings.Join(got, " ") != c.instants || (rn == nil) != (c.instants == "") {
			t.Errorf("%s: Rename %v reading %q as instants, want %q", c.name, rn != nil, strings.Join(got, " "), c.instants)
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

// TestRenameOfIDModeFills: in id mode a column whose field id a file
// lacks reads as nulls (PROTOCOL.md), whatever the stats say, so the
// table's Rename itself fills: every leaf, nested ones too, has its
// type; in name mode only files the stats tell of are filled (Fill).
func TestRenameOfIDModeFills(t *testing.T) {
	const schema = `{"type":"struct","fields":[` +
		`{"name":"a","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"pa"}},` +
		`{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"string","nullable":true,"metadata":{` +
		`"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"px"}}]},"nullable":true,"metadata":{` +
		`"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"ps"}}]}`
	p := &action.Protocol{MinReaderVersion: 2, MinWriterVersion: 5}
	for mode, fills := range map[string]bool{"id": true, "name": false} {
		md := &action.Metadata{SchemaString: schema, Configuration: map[string]string{"delta.columnMapping.mode": mode}}
		rn, _, err := renameOf(md, p)
		if err != nil {
			t.Fatal(err)
		}
		fillable := rn.Columns[0].Fillable() && rn.Columns[1].Fillable()
		if rn.FillMissing != fills || fillable != fills || rn.ByID != fills {
			t.Errorf("%s mode: fills %v, every column fillable %v, by id %v; want %v", mode, rn.FillMissing, fillable, rn.ByID, fills)
		}
	}
}
