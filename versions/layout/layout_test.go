package layout

import (
	"strings"
	"testing"
	"unsafe"
)

func TestEscapeValue(t *testing.T) {
	for in, want := range map[string]string{
		"2024-01-01":        "2024-01-01",
		"a/b=c%d":           "a%2Fb%3Dc%25d",
		"é ü 日本":            "é ü 日本",
		"x:y?*\"#'\\{[]^":   "x%3Ay%3F%2A%22%23%27%5C%7B%5B%5D%5E",
		"tab\there\x7f\x00": "tab%09here%7F%00",
	} {
		if got := escapeValue(in); got != want {
			t.Errorf("escapeValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEscapeColumnName(t *testing.T) {
	for in, want := range map[string]string{
		"year":             "year",
		"p#h:x*'\"[]{}^ é": "p#h:x*'\"[]{}^ é", // every reader reads these as they are
		"a/b=c%d":          "a%2Fb%3Dc%25d",
		"x\\y?z\t":         "x%5Cy%3Fz%09",
		"_p":               "%5Fp",
		".p":               "%2Ep",
		"p_.":              "p_.",
	} {
		if got := escapeColumnName(in); got != want {
			t.Errorf("escapeColumnName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseSchemaWithoutSchemaString(t *testing.T) {
	// A Databricks pipeline's first commit writes a metaData action without one.
	if _, err := ParseSchema(""); err == nil || !strings.Contains(err.Error(), "no schemaString") {
		t.Errorf("err = %v, want one that says the metaData action has no schemaString", err)
	}
}

func TestParseSchemaColumnMapping(t *testing.T) {
	fields, err := ParseSchema(`{"type":"struct","fields":[
		{"name":"a","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-1"}},
		{"name":"s","type":{"type":"struct","fields":[{"name":"inner","type":"string","nullable":true,"metadata":{"delta.columnMapping.id":3,"delta.columnMapping.physicalName":"col-3"}}]},"nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-2"}},
		{"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"integer","containsNull":true},"valueContainsNull":true},"nullable":true,"metadata":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != 3 || fields[0].Physical != "col-1" || fields[0].ID != 1 || fields[1].Type.Fields[0].Physical != "col-3" ||
		fields[2].Physical != "m" || fields[2].Type.Kind != Map || fields[2].Type.Value.Kind != Array {
		t.Errorf("fields = %+v", fields)
	}
	for _, bad := range []string{``, `[]`, `"long"`, `{"type":"struct","fields":[{"name":"x","type":{"type":"nope"}}]}`,
		`{"type":"struct","fields":[{"name":"x","type":"long","metadata":{"delta.columnMapping.id":"one"}}]}`,
		strings.Repeat(`{"type":"array","elementType":`, 100) + `"long"` + strings.Repeat(`}`, 100)} {
		if _, err := ParseSchema(bad); err == nil {
			t.Errorf("ParseSchema(%.40q) accepted", bad)
		}
	}
}

// FuzzParseSchema: any schema string gives fields or an error, never a
// panic, and never nesting deeper than maxDepth.
func FuzzParseSchema(f *testing.F) {
	f.Add(`{"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-1"}}]}`)
	f.Add(`{"type":"struct","fields":[{"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"integer"}}}]}`)
	f.Add(`{"type":"struct","fields":[{"name":"d","type":"decimal(20,5)","nullable":true,"metadata":{"delta.typeChanges":[{"toType":"decimal(20,5)","fromType":"decimal(10,2)","tableVersion":2}]}}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		fields, err := ParseSchema(s)
		if err != nil {
			return
		}
		_ = columns(fields, false)
		_ = notLonger(fields)
	})
}

// A stored path already in its partition directory is the served name
// itself, not a copy; any other gets the directory and its base name.
func TestServedNameSharesTheStoredPath(t *testing.T) {
	for _, c := range []struct{ dir, stored, want string }{
		{"date=1/", "date=1/a.parquet", "date=1/a.parquet"},
		{"date=1/", "date=2/a.parquet", "date=1/a.parquet"},
		{"date=1/", "x/date=1/a.parquet", "date=1/a.parquet"},
		{"date=1/", "date=1/sub/a.parquet", "date=1/a.parquet"},
		{"date=1/", "a.parquet", "date=1/a.parquet"},
		{"a=1/b=2/", "a=1/b=2/p.parquet", "a=1/b=2/p.parquet"},
		{"", "a.parquet", "a.parquet"},
		{"", "x/a.parquet", "a.parquet"},
	} {
		got := servedName(c.dir, c.stored)
		if got != c.want {
			t.Errorf("servedName(%q, %q) = %q, want %q", c.dir, c.stored, got, c.want)
		}
		if shared := unsafe.StringData(got) == unsafe.StringData(c.stored); shared != (c.want == c.stored) {
			t.Errorf("servedName(%q, %q): shares the stored path: %v", c.dir, c.stored, shared)
		}
	}
}
