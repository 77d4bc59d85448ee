package layout

import "testing"

// TestSparkFieldsLeaveMetadataOut: each top-level field of a Delta schema
// comes back as Spark's JSON of it, with the metadata of every field
// inside emptied (column mapping's physical names and ids), the rest as
// written: types, nullability, names in any script.
func TestSparkFieldsLeaveMetadataOut(t *testing.T) {
	schema := `{"type":"struct","fields":[` +
		`{"name":"v","type":"variant","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-a"}},` +
		`{"name":"s<&>é","type":{"type":"struct","fields":[{"name":"m","type":{"type":"map","keyType":"string",` +
		`"valueType":{"type":"array","elementType":{"type":"struct","fields":[{"name":"d","type":"decimal(38,18)","nullable":false,` +
		`"metadata":{"delta.columnMapping.id":4}}]},"containsNull":true},"valueContainsNull":false},"nullable":true,"metadata":{"comment":"c"}}]},` +
		`"nullable":false,"metadata":{"delta.columnMapping.id":2}}]}`
	got, err := sparkFields(schema)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"v": `{"metadata":{},"name":"v","nullable":true,"type":"variant"}`,
		"s<&>é": `{"metadata":{},"name":"s<&>é","nullable":false,"type":{"fields":[{"metadata":{},"name":"m","nullable":true,` +
			`"type":{"keyType":"string","type":"map","valueContainsNull":false,"valueType":{"containsNull":true,"elementType":` +
			`{"fields":[{"metadata":{},"name":"d","nullable":false,"type":"decimal(38,18)"}],"type":"struct"},"type":"array"}}}],"type":"struct"}}`,
	}
	if len(got) != len(want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("field %q:\n%s\nwant\n%s", name, got[name], w)
		}
	}
}
