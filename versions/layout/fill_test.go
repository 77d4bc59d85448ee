package layout

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// schemaOf writes a schemaString of top-level fields given as name:type
// (primitive types; "struct" for a struct of one int x, "array" for an
// array of ints, "map" for a map of strings to ints).
func schemaOf(fields ...string) string {
	var out []string
	for _, f := range fields {
		name, typ, _ := strings.Cut(f, ":")
		t := `"` + typ + `"`
		switch typ {
		case "struct":
			t = `{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}}]}`
		case "array":
			t = `{"type":"array","elementType":"integer","containsNull":true}`
		case "map":
			t = `{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true}`
		case "structs":
			t = `{"type":"array","elementType":{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}}]},"containsNull":true}`
		}
		out = append(out, fmt.Sprintf(`{"name":%q,"type":%s,"nullable":true,"metadata":{}}`, name, t))
	}
	return `{"type":"struct","fields":[` + strings.Join(out, ",") + `]}`
}

// TestFillOf: which columns say that a file lacks them, as Delta's
// writers choose the columns they collect stats for.
func TestFillOf(t *testing.T) {
	many := []string{"p:string"}
	for i := range 40 {
		many = append(many, fmt.Sprintf("c%d:long", i))
	}
	// cs lists the columns c<from> to c<to> but those left out.
	cs := func(from, to int, except ...int) string {
		var out []string
		for i := from; i <= to; i++ {
			if !slices.Contains(except, i) {
				out = append(out, fmt.Sprintf("c%d", i))
			}
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		name   string
		fields []string
		conf   map[string]string
		want   string // columns counted, those counted by some, those uncounted; "": no fill
	}{
		{"every kind", []string{"p:string", "id:long", "s:struct", "v:variant", "d:decimal(10,2)", "void:void", "a:array", "m:map"}, nil, "[id s d void] [a m] []"},
		{"the first 32 leaves", many, nil, "[" + cs(0, 31) + "] [] [" + cs(32, 39) + "]"},
		{"the first 2", many, map[string]string{"delta.dataSkippingNumIndexedCols": "2"}, "[c0 c1] [] [" + cs(2, 39) + "]"},
		{"an array counts one", []string{"p:string", "a:array", "id:long", "x:long"}, map[string]string{"delta.dataSkippingNumIndexedCols": "2"}, "[id] [a] [x]"},
		{"only arrays", []string{"p:string", "a:array"}, nil, "[] [a] []"},
		{"all", many[:4], map[string]string{"delta.dataSkippingNumIndexedCols": "-1"}, "[c0 c1 c2] [] []"},
		{"none", many, map[string]string{"delta.dataSkippingNumIndexedCols": "0"}, "[] [] [" + cs(0, 39) + "]"},
		{"named", many, map[string]string{"delta.dataSkippingStatsColumns": "C3, `c5`.x,c7.y"}, "[c3 c5 c7] [] [" + cs(0, 39, 3, 5, 7) + "]"},
		{"only what cannot be filled", []string{"v:variant"}, nil, ""},
		{"no schema", nil, nil, ""},
	} {
		md := &action.Metadata{PartitionColumns: []string{"p"}, Configuration: c.conf}
		if c.fields != nil {
			md.SchemaString = schemaOf(c.fields...)
		}
		rn, rule := fillOf(md, &action.Protocol{MinReaderVersion: 1, MinWriterVersion: 2})
		got := ""
		if rn != nil {
			got = fmt.Sprint(rule.counted, rule.countedBySome, rule.uncounted)
			if !rn.FillMissing || len(rn.Columns) != len(c.fields)-1 {
				t.Errorf("%s: Rename %+v", c.name, rn)
			}
		}
		if got != c.want {
			t.Errorf("%s: expected columns %s, want %s", c.name, got, c.want)
		}
	}
}

// TestFillOfMappedColumns: under column mapping, stats name columns by
// their physical names, and the fill serves them by the logical ones.
func TestFillOfMappedColumns(t *testing.T) {
	const mapped = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{` +
		`"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-1"}},` +
		`{"name":"score","type":"double","nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"col-2"}}]}`
	md := &action.Metadata{SchemaString: mapped, Configuration: map[string]string{"delta.columnMapping.mode": "id"}}
	rn, rule := fillOf(md, &action.Protocol{MinReaderVersion: 2, MinWriterVersion: 5})
	if rn == nil || fmt.Sprint(rule.counted) != "[col-1 col-2]" || !rn.ByID || rn.Columns[1].Name != "score" || rn.Columns[1].ID != 2 {
		t.Errorf("fill %+v, counted %v", rn, rule.counted)
	}
}

// TestEntriesLackingColumns: a file whose stats count the nulls of fewer
// of the expected columns than the schema has is served through Fill; one
// without a nullCount, or under the physical layout, is not.
func TestEntriesLackingColumns(t *testing.T) {
	snap := snapshotOf(schemaOf("id:long", "name:string", "score:double"), "old.parquet", "new.parquet", "nostats.parquet")
	counted := []*action.ColumnSet{
		action.NullCounted([]byte(`{"numRecords":1,"nullCount":{"id":0,"name":0}}`)),
		action.NullCounted([]byte(`{"numRecords":1,"nullCount":{"id":0,"name":0,"score":1}}`)),
		nil,
	}
	v, err := Of(snap, nil, counted, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var filled []string
	for i := range v.Entries {
		e := &v.Entries[i]
		rn, sameSize := v.RenameOf(e)
		if e.Fill {
			filled = append(filled, e.Name)
			if rn != v.Fill || sameSize {
				t.Errorf("%s: served through %v (same size %v), want Fill", e.Name, rn, sameSize)
			}
		}
	}
	if fmt.Sprint(filled) != "[old.parquet]" {
		t.Errorf("filled %v, want [old.parquet]", filled)
	}
	// A version without a schema (a Databricks pipeline's first commit)
	// is served, its files as stored.
	if v, err := Of(snapshotOf("", "a.parquet"), nil, counted[:1], Options{}); err != nil || v.Fill != nil || v.Entries[0].Fill {
		t.Errorf("no schema: %+v, %v", v, err)
	}
	// Under CheckFooters every file is served through Fill, whatever its
	// stats say: its footer tells.
	v, err = Of(snap, nil, counted, Options{CheckFooters: true})
	if err != nil || !v.Entries[0].Fill || !v.Entries[1].Fill || !v.Entries[2].Fill { // new, nostats, old
		t.Errorf("checking footers: entries %+v, %v", v.Entries, err)
	}
	v, err = Of(snap, nil, counted, Options{Physical: true})
	if err != nil || v.Fill != nil || v.Entries[0].Fill || v.Entries[2].Fill {
		t.Errorf("physical layout: fill %v, entries %+v, %v", v.Fill, v.Entries, err)
	}
}

// TestEntriesLackingArrayColumns: an array column's nulls are counted by
// Spark, not by delta-rs. Where no file's stats count it, they say
// nothing of it; where some do, a file whose stats do not lacks it.
func TestEntriesLackingArrayColumns(t *testing.T) {
	snap := snapshotOf(schemaOf("id:long", "tags:array"), "old.parquet", "new.parquet")
	filled := func(stats ...string) []string { return filledBy(t, snap, stats...) }
	if got := filled(`{"nullCount":{"id":0}}`, `{"nullCount":{"id":0}}`); got != nil {
		t.Errorf("no stats count the array's nulls (delta-rs): filled %v", got)
	}
	if got := fmt.Sprint(filled(`{"nullCount":{"id":0}}`, `{"nullCount":{"id":0,"tags":2}}`)); got != "[old.parquet]" {
		t.Errorf("the new file's stats count the array's nulls (Spark): filled %v, want [old.parquet]", got)
	}
}

// TestEntriesLackingVoidColumns: no file stores a void column (Delta's
// writers drop it), though Spark's stats count its nulls: every file is
// served through Fill, the column typed void, whatever the stats say.
func TestEntriesLackingVoidColumns(t *testing.T) {
	snap := snapshotOf(schemaOf("id:long", "v:void"), "a.parquet", "b.parquet")
	if got := fmt.Sprint(filledBy(t, snap, `{"nullCount":{"id":0,"v":1}}`, `{"nullCount":{"id":0}}`)); got != "[a.parquet b.parquet]" {
		t.Errorf("filled %v, want both", got)
	}
	if got := fmt.Sprint(filledBy(t, snap, "", "")); got != "[a.parquet b.parquet]" {
		t.Errorf("without stats: filled %v, want both", got)
	}
	rn, _ := fillOf(&snap.Metadata, &snap.Protocol)
	if rn == nil || rn.Columns[1].Fill == nil || rn.Columns[1].Fill.Kind != parquetview.VoidType {
		t.Errorf("fill rename %+v", rn)
	}
}

// TestEntriesLackingFields: a file whose stats count a struct column but
// not a field of it that other files' stats count was written before the
// field was added; a field no file's stats count says nothing.
func TestEntriesLackingFields(t *testing.T) {
	const schema = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"s","type":{"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"t","type":{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},` +
		`{"name":"tags","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`
	snap := snapshotOf(schema, "old.parquet", "older.parquet", "new.parquet")
	filled := func(stats ...string) string { return fmt.Sprint(filledBy(t, snap, stats...)) }
	const full = `{"nullCount":{"id":0,"s":{"a":0,"t":{"x":0}}}}`
	if got := filled(`{"nullCount":{"id":0,"s":{"a":0}}}`, `{"nullCount":{"id":0,"s":{"a":0,"t":{}}}}`, full); got != "[old.parquet older.parquet]" {
		t.Errorf("fields added: filled %s", got)
	}
	if got := filled(`{"nullCount":{"id":0,"s":{"a":0}}}`, `{"nullCount":{"id":0,"s":{"a":0}}}`, `{"nullCount":{"id":0,"s":{"a":0}}}`); got != "[]" {
		t.Errorf("a field no file counts: filled %s", got)
	}
	// Which footers tell (FindUncounted): the struct no file counts, not
	// its fields again.
	counted := []*action.ColumnSet{action.NullCounted([]byte(`{"nullCount":{"id":0,"s":{"a":0}}}`))}
	if v, err := Of(snapshotOf(schema, "a.parquet"), nil, counted, Options{}); err != nil || fmt.Sprint(v.Uncounted) != "[s.t]" {
		t.Errorf("a field no file counts: uncounted %v, %v", v.Uncounted, err)
	}
	counted = []*action.ColumnSet{action.NullCounted([]byte(full))}
	if v, err := Of(snapshotOf(schema, "a.parquet"), nil, counted, Options{}); err != nil || v.Uncounted != nil {
		t.Errorf("every field counted: uncounted %v, %v", v.Uncounted, err)
	}
	if got := filled(full, full, `{"nullCount":{"id":0,"s":{"a":0,"t":{"x":0},"tags":0}}}`); got != "[]" {
		t.Errorf("an array inside the struct: filled %s", got)
	}
}

// filledBy returns the files of snap served filled when their stats are
// stats, in order.
func filledBy(t *testing.T, snap *replay.Snapshot, stats ...string) []string {
	t.Helper()
	var counted []*action.ColumnSet
	for _, s := range stats {
		counted = append(counted, action.NullCounted([]byte(s)))
	}
	v, err := Of(snap, nil, counted, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range v.Entries {
		if e.Fill {
			out = append(out, e.Name)
		}
	}
	return out
}

// snapshotOf is a snapshot of an unpartitioned table with the schema and
// the files named.
func snapshotOf(schema string, paths ...string) *replay.Snapshot {
	snap := &replay.Snapshot{Metadata: action.Metadata{SchemaString: schema}}
	for _, p := range paths {
		snap.Files = append(snap.Files, replay.File{Path: p, Size: 100})
	}
	return snap
}
