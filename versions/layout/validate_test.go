package layout

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
)

// schemaField is a schema field's JSON, with column mapping metadata when
// physical is not "-".
func schemaField(name, typ, physical string, id int) string {
	md := "{}"
	if physical != "-" {
		md = fmt.Sprintf(`{"delta.columnMapping.id":%d,"delta.columnMapping.physicalName":%q}`, id, physical)
	}
	return fmt.Sprintf(`{"name":%q,"type":%s,"nullable":true,"metadata":%s}`, name, typ, md)
}

func structOf(fields ...string) string {
	return `{"type":"struct","fields":[` + strings.Join(fields, ",") + `]}`
}

// TestCheckMetadata: what Delta readers refuse is refused, saying why;
// what they read (column names in another case, a table without a
// schemaString, mapping metadata where mapping is off) is not.
func TestCheckMetadata(t *testing.T) {
	mapping := action.Protocol{MinReaderVersion: 2, MinWriterVersion: 5}
	nameMode := map[string]string{"delta.columnMapping.mode": "name"}
	plain := structOf(schemaField("x", `"long"`, "-", 0), schemaField("p", `"string"`, "-", 0))
	for _, c := range []struct {
		name, schema string
		parts        []string
		conf         map[string]string
		protocol     action.Protocol
		why          string // "": accepted
	}{
		{"plain", plain, []string{"p"}, nil, action.Protocol{}, ""},
		{"partition column in another case", plain, []string{"P"}, nil, action.Protocol{}, ""},
		{"no schemaString", "", nil, nil, action.Protocol{}, ""},
		{"schemaString not JSON", "not json", nil, nil, action.Protocol{}, "schema:"},
		{"top level not a struct", `"long"`, nil, nil, action.Protocol{}, "not a struct"},
		{"partition column not in schema", plain, []string{"nope"}, nil, action.Protocol{}, `"nope" is not in the schema`},
		{"partition column listed twice", plain, []string{"p", "P"}, nil, action.Protocol{}, "listed twice"},
		{"mapped", structOf(schemaField("a", `"long"`, "col-1", 1), schemaField("s", structOf(schemaField("a", `"long"`, "col-3", 3)), "col-2", 2)), nil, nameMode, mapping, ""},
		{"one physical name at two levels", structOf(schemaField("a", `"long"`, "a", 1), schemaField("s", structOf(schemaField("a", `"long"`, "a", 3)), "s", 2)), nil, nameMode, mapping, ""},
		{"two fields, one physical name", structOf(schemaField("a", `"long"`, "p", 1), schemaField("b", `"long"`, "p", 2)), nil, nameMode, mapping, `"a" and "b" have one physical name`},
		{"physical names differing in case", structOf(schemaField("a", `"long"`, "p", 1), schemaField("b", `"long"`, "P", 2)), nil, nameMode, mapping, "one physical name"},
		{"empty physical name", structOf(schemaField("a", `"long"`, "", 1)), nil, nameMode, mapping, "empty physical name"},
		{"one id at two levels", structOf(schemaField("a", `"long"`, "col-1", 1), schemaField("s", `{"type":"array","elementType":`+structOf(schemaField("b", `"long"`, "col-3", 1))+`,"containsNull":true}`, "col-2", 2)), nil, nameMode, mapping, `"a" and "s.b" have one id, 1`},
		{"mapping metadata, mapping off", structOf(schemaField("a", `"long"`, "p", 1), schemaField("b", `"long"`, "p", 1)), nil, nil, mapping, ""},
		{"mapping mode, protocol without mapping", structOf(schemaField("a", `"long"`, "p", 1), schemaField("b", `"long"`, "p", 1)), nil, nameMode, action.Protocol{MinReaderVersion: 1}, ""},
	} {
		md := &action.Metadata{SchemaString: c.schema, PartitionColumns: c.parts, Configuration: c.conf}
		err := CheckMetadata(md, &c.protocol)
		switch {
		case c.why == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.why != "" && (err == nil || !strings.Contains(err.Error(), c.why)):
			t.Errorf("%s: %v, want an error saying %s", c.name, err, c.why)
		}
	}
}
