package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

type beforeScore struct {
	ID   int64  `parquet:"id"`
	Name string `parquet:"name"`
}

type withScore struct {
	ID    int64    `parquet:"id"`
	Name  string   `parquet:"name"`
	Score *float64 `parquet:"score,optional"`
}

const (
	schemaBefore = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"name","type":"string","nullable":true,"metadata":{}}]}`
	schemaAfter  = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"name","type":"string","nullable":true,"metadata":{}},{"name":"score","type":"double","nullable":true,"metadata":{}}]}`
)

// TestAddedColumnsThroughMount: after a column is added, a file written
// before (its stats count no nulls of it) is served with it, all nulls,
// its size the filled file's from the first stat on (one footer read);
// with a deletion vector too, and in changes/. A file written after is served as stored,
// and so is every file before the column was added, and under the
// physical layout. Stats from the JSON log and from a checkpoint alike.
func TestAddedColumnsThroughMount(t *testing.T) {
	requireFUSE(t)
	for _, checkpoint := range []bool{false, true} {
		t.Run(fmt.Sprintf("checkpoint=%v", checkpoint), func(t *testing.T) {
			dir := t.TempDir()
			gen := deltagen.New(dir)
			var old []beforeScore
			for i := range 10 {
				old = append(old, beforeScore{ID: int64(i), Name: fmt.Sprint("n", i)})
			}
			score := 2.5
			oldAdd := writeRows(t, dir, "old.parquet", old, `{"numRecords":10,"minValues":{"id":0},"maxValues":{"id":9},"nullCount":{"id":0,"name":0}}`)
			features := []string{"deletionVectors"}
			mustCommit(t, gen, deltagen.Protocol(3, 7, features, features), deltagen.Metadata(schemaBefore, nil, nil), oldAdd)
			mustCommit(t, gen, deltagen.Metadata(schemaAfter, nil, nil),
				writeRows(t, dir, "new.parquet", []withScore{{ID: 10, Name: "n10", Score: &score}}, `{"numRecords":1,"nullCount":{"id":0,"name":0,"score":0}}`))
			commitDV(t, gen, oldAdd, 2, 3)
			if checkpoint {
				if _, err := gen.Checkpoint(2); err != nil {
					t.Fatal(err)
				}
			}

			m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
			stored, err := os.ReadFile(filepath.Join(dir, "old.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				version   int
				rows      int
				filled    bool
				asStoredB bool
			}{{0, 10, false, false}, {1, 10, true, true}, {2, 8, true, true}} {
				vdir := filepath.Join(m.dir, "v", fmt.Sprint(c.version))
				p := filepath.Join(vdir, "old.parquet")
				info, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(p)
				if err != nil || info.Size() != int64(len(data)) {
					t.Fatalf("v%d: stat says %d bytes, read %d (%v)", c.version, info.Size(), len(data), err)
				}
				f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					t.Fatalf("v%d: %v", c.version, err)
				}
				_, hasScore := f.Schema().Lookup("score")
				if hasScore != c.filled || int(f.NumRows()) != c.rows {
					t.Errorf("v%d: old.parquet has score %v and %d rows, want %v and %d", c.version, hasScore, f.NumRows(), c.filled, c.rows)
				}
				if c.filled {
					rows, err := parquet.Read[withScore](bytes.NewReader(data), int64(len(data)))
					if err != nil || len(rows) != c.rows || rows[0].Score != nil || rows[0].Name != "n0" {
						t.Errorf("v%d: rows %v, %v", c.version, rows, err)
					}
				} else if c.rows == len(old) && !bytes.Equal(data, stored) {
					t.Errorf("v%d: old.parquet is not served as stored", c.version)
				}
				if c.asStoredB {
					b, err := os.ReadFile(filepath.Join(vdir, "new.parquet"))
					want, _ := os.ReadFile(filepath.Join(dir, "new.parquet"))
					if err != nil || !bytes.Equal(b, want) {
						t.Errorf("v%d: new.parquet is not served as stored (%v)", c.version, err)
					}
				}
			}

			// changes/2 re-added old.parquet with a deletion vector: both
			// sides are filled, as the versions they are served as.
			for part, rows := range map[string]int64{"added": 8, "removed": 10} {
				data, err := os.ReadFile(filepath.Join(m.dir, "changes", "2", part, "old.parquet"))
				if err != nil {
					t.Fatal(err)
				}
				f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					t.Fatalf("changes/2/%s: %v", part, err)
				}
				if _, ok := f.Schema().Lookup("score"); !ok || f.NumRows() != rows {
					t.Errorf("changes/2/%s/old.parquet: score %v, %d rows; want score, %d rows", part, ok, f.NumRows(), rows)
				}
			}

			phys := mountLayout(t, dir, fs.Options{RefreshInterval: -1, PhysicalLayout: true})
			data, err := os.ReadFile(filepath.Join(phys.dir, "v", "1", "old.parquet"))
			if err != nil || !bytes.Equal(data, stored) {
				t.Errorf("physical layout: old.parquet is not served as stored (%v)", err)
			}
		})
	}
}

type withTags struct {
	ID   int64   `parquet:"id"`
	Name string  `parquet:"name"`
	Tags []int32 `parquet:"tags,list,optional"`
}

// TestAddedArrayColumnThroughMount: Spark counts the nulls of an array
// column, delta-rs does not. A table that added one, whose newer files'
// stats count it (Spark), serves the older file with it, all nulls:
// pyarrow and DuckDB read the folder with the column and every row.
func TestAddedArrayColumnThroughMount(t *testing.T) {
	requireFUSE(t)
	py := pythonOrSkip(t)
	dir := t.TempDir()
	gen := deltagen.New(dir)
	const after = `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"name","type":"string","nullable":true,"metadata":{}},` +
		`{"name":"tags","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}}]}`
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schemaBefore, nil, nil),
		writeRows(t, dir, "a-old.parquet", []beforeScore{{ID: 1, Name: "a"}, {ID: 2, Name: "b"}}, `{"numRecords":2,"nullCount":{"id":0,"name":0}}`))
	mustCommit(t, gen, deltagen.Metadata(after, nil, nil),
		writeRows(t, dir, "b-new.parquet", []withTags{{ID: 3, Name: "c", Tags: []int32{7, 8}}}, `{"numRecords":1,"nullCount":{"id":0,"name":0,"tags":0}}`))
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	latest := filepath.Join(m.dir, "v", "1")
	data, err := os.ReadFile(filepath.Join(latest, "a-old.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.Read[withTags](bytes.NewReader(data), int64(len(data)))
	if err != nil || len(rows) != 2 || rows[0].Tags != nil || rows[1].Name != "b" {
		t.Errorf("a-old.parquet: rows %+v, %v; want 2 with tags null", rows, err)
	}
	script := `import sys, duckdb, pyarrow.dataset as ds
t = ds.dataset(sys.argv[1], format="parquet").to_table().sort_by("id")
print(t.schema.names, t.column("tags").to_pylist())
print(duckdb.sql(f"select count(*), count(tags) from read_parquet('{sys.argv[1]}/*.parquet')").fetchall())
`
	out, err := exec.Command(py, "-c", script, latest).CombinedOutput()
	want := "['id', 'name', 'tags'] [None, None, [7, 8]]\n[(3, 1)]\n"
	if err != nil || string(out) != want {
		t.Errorf("pyarrow and DuckDB read:\n%s(%v)\nwant:\n%s", out, err, want)
	}
}

// TestAddedColumnsCostOneFooterRead: the first stat of a file lacking a
// column reads its footer once; a second stat and the reads that follow
// read nothing more than the data.
func TestAddedColumnsCostOneFooterRead(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	gen := deltagen.New(dir)
	add := writeRows(t, dir, "old.parquet", []beforeScore{{ID: 1, Name: "a"}}, `{"numRecords":1,"nullCount":{"id":0,"name":0}}`)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schemaBefore, nil, nil), add)
	mustCommit(t, gen, deltagen.Metadata(schemaAfter, nil, nil))
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	served := filepath.Join(m.dir, "latest", "old.parquet")
	if _, err := os.ReadDir(filepath.Join(m.dir, "latest")); err != nil {
		t.Fatal(err)
	}
	before := m.store.Counts()
	st1, err := os.Stat(served)
	if err != nil {
		t.Fatal(err)
	}
	if st1.Size() <= add.Add.Size {
		t.Errorf("served size %d, stored %d: not filled", st1.Size(), add.Add.Size)
	}
	if d := m.store.Counts().Sub(before); d.Gets > 2 {
		t.Errorf("the first stat made %d reads, want at most 2 (the footer's tail and the footer)", d.Gets)
	}
	mid := m.store.Counts()
	if _, err := os.Stat(served); err != nil {
		t.Fatal(err)
	}
	if d := m.store.Counts().Sub(mid); d.Gets != 0 {
		t.Errorf("a second stat made %d reads", d.Gets)
	}
}

// TestAddedColumnsFromParsedStats: a checkpoint whose stats are only
// parsed (stats_parsed, no stats strings; delta-rs 1.2.1) says which
// files lack the column the table added, as strings do: every served
// file of the shared table has new_column, and the 12 rows a Delta reader
// reads.
func TestAddedColumnsFromParsedStats(t *testing.T) {
	requireFUSE(t)
	table := filepath.Join(TestdataDir(t), "delta-rs", "data", "delta-1.2.1-only-struct-stats")
	if _, err := os.Stat(table); err != nil {
		t.Skipf("shared table absent: %v", err)
	}
	m := mountLayout(t, table, fs.Options{RefreshInterval: -1})
	files, err := filepath.Glob(filepath.Join(m.dir, "latest", "*.parquet"))
	if err != nil || len(files) != 12 {
		t.Fatalf("%d files served, want 12 (%v)", len(files), err)
	}
	rows := int64(0)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if _, ok := f.Schema().Lookup("new_column"); !ok {
			t.Errorf("%s is served without new_column", filepath.Base(p))
		}
		rows += f.NumRows()
	}
	if rows != 12 {
		t.Errorf("%d rows served, want 12", rows)
	}
}

type (
	structBefore struct {
		A *int64 `parquet:"a,optional"`
	}
	withStructBefore struct {
		ID int64         `parquet:"id"`
		S  *structBefore `parquet:"s,optional"`
	}
	structAfter struct {
		A *int64  `parquet:"a,optional"`
		B *string `parquet:"b,optional"`
	}
	withStructAfter struct {
		ID int64        `parquet:"id"`
		S  *structAfter `parquet:"s,optional"`
	}
)

// TestAddedFieldsThroughMount: after a field is added inside a struct
// column, a file written before (its stats count the struct's fields but
// not the new one) is served with it, null where the struct has a value
// and the struct null where it is; pyarrow, DuckDB and Polars read the
// folder as a Delta reader reads the table, from the JSON log and from a
// checkpoint, with a deletion vector on the old file.
func TestAddedFieldsThroughMount(t *testing.T) {
	requireFUSE(t)
	py := pythonOrSkip(t)
	field := func(name, typ string) string {
		return fmt.Sprintf(`{"name":%q,"type":%q,"nullable":true,"metadata":{}}`, name, typ)
	}
	schema := func(fields ...string) string {
		return `{"type":"struct","fields":[` + field("id", "long") + `,{"name":"s","type":{"type":"struct","fields":[` +
			strings.Join(fields, ",") + `]},"nullable":true,"metadata":{}}]}`
	}
	for _, checkpoint := range []bool{false, true} {
		t.Run(fmt.Sprintf("checkpoint=%v", checkpoint), func(t *testing.T) {
			dir := t.TempDir()
			gen := deltagen.New(dir)
			one, four := int64(1), int64(4)
			old := []withStructBefore{{ID: 1, S: &structBefore{A: &one}}, {ID: 2}, {ID: 3, S: &structBefore{}}, {ID: 9, S: &structBefore{A: &one}}}
			oldAdd := writeRows(t, dir, "a-old.parquet", old, `{"numRecords":4,"nullCount":{"id":0,"s":{"a":2}}}`)
			features := []string{"deletionVectors"}
			mustCommit(t, gen, deltagen.Protocol(3, 7, features, features), deltagen.Metadata(schema(field("a", "long")), nil, nil), oldAdd)
			x := "x"
			mustCommit(t, gen, deltagen.Metadata(schema(field("a", "long"), field("b", "string")), nil, nil),
				writeRows(t, dir, "b-new.parquet", []withStructAfter{{ID: 4, S: &structAfter{A: &four, B: &x}}}, `{"numRecords":1,"nullCount":{"id":0,"s":{"a":0,"b":0}}}`))
			commitDV(t, gen, oldAdd, 3)
			if checkpoint {
				if _, err := gen.Checkpoint(2); err != nil {
					t.Fatal(err)
				}
			}
			m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
			latest := filepath.Join(m.dir, "v", "2")
			script := `import sys, duckdb, polars, pyarrow.dataset as ds
d = sys.argv[1]
print(ds.dataset(d, format="parquet").to_table().sort_by("id").to_pylist())
print(duckdb.sql(f"select id, s from read_parquet('{d}/*.parquet') order by id").fetchall())
print(polars.read_parquet(f"{d}/*.parquet").sort("id").to_dicts())
`
			out, err := exec.Command(py, "-c", script, latest).CombinedOutput()
			rows := "{'id': 1, 's': {'a': 1, 'b': None}}, {'id': 2, 's': None}, {'id': 3, 's': {'a': None, 'b': None}}, {'id': 4, 's': {'a': 4, 'b': 'x'}}"
			want := "[" + rows + "]\n" +
				"[(1, {'a': 1, 'b': None}), (2, None), (3, {'a': None, 'b': None}), (4, {'a': 4, 'b': 'x'})]\n" +
				"[" + rows + "]\n"
			if err != nil || string(out) != want {
				t.Errorf("pyarrow, DuckDB and Polars read:\n%s(%v)\nwant:\n%s", out, err, want)
			}
		})
	}
}

// TestAddedFieldsCost: the first stat of a file lacking a field inside a
// struct reads its footer and the column chunks of one stored field of
// the struct, one read each, nothing else; a second stat reads nothing.
func TestAddedFieldsCost(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	gen := deltagen.New(dir)
	var old []withStructBefore
	for i := range int64(30000) {
		a := i
		old = append(old, withStructBefore{ID: i, S: &structBefore{A: &a}})
	}
	p := filepath.Join(dir, "old.parquet")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[withStructBefore](f)
	for i := 0; i < len(old); i += 10000 {
		if _, err := w.Write(old[i : i+10000]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := f.Stat()
	if err != nil || f.Close() != nil {
		t.Fatal(err)
	}
	field := func(name, typ string) string {
		return fmt.Sprintf(`{"name":%q,"type":%q,"nullable":true,"metadata":{}}`, name, typ)
	}
	schema := `{"type":"struct","fields":[` + field("id", "long") + `,{"name":"s","type":{"type":"struct","fields":[` +
		field("a", "long") + "," + field("b", "string") + `]},"nullable":true,"metadata":{}}]}`
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schema, nil, nil),
		deltagen.AddFile("old.parquet", info.Size(), 1_700_000_000_000, nil, `{"numRecords":30000,"nullCount":{"id":0,"s":{"a":0}}}`),
		deltagen.AddFile("new.parquet", info.Size(), 1_700_000_000_000, nil, `{"numRecords":30000,"nullCount":{"id":0,"s":{"a":0,"b":0}}}`))
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	served := filepath.Join(m.dir, "latest", "old.parquet")
	before := m.store.Counts()
	st, err := os.Stat(served)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() <= info.Size() {
		t.Errorf("served size %d, stored %d: not filled", st.Size(), info.Size())
	}
	// The tail (64 KiB, the footer in it) and s.a's three chunks (80 KB
	// each, the last inside the tail), not the id column's.
	if d := m.store.Counts().Sub(before); d.Gets > 4 || d.Bytes >= info.Size()*3/4 {
		t.Errorf("the first stat made %d reads of %d bytes, want at most 4 of less than 3/4 of the file's %d", d.Gets, d.Bytes, info.Size())
	}
	mid := m.store.Counts()
	if _, err := os.Stat(served); err != nil {
		t.Fatal(err)
	}
	if d := m.store.Counts().Sub(mid); d.Gets != 0 {
		t.Errorf("a second stat made %d reads", d.Gets)
	}
}

// TestAddedFieldsSmallFileCost: in a file of 80 KB the stored field's
// chunk lies in the footer's first read (its last 64 KiB): a first stat
// makes that one read.
func TestAddedFieldsSmallFileCost(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	filledFolder(t, dir, 1, "field")
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	before := m.store.Counts()
	if _, err := os.Stat(filepath.Join(m.dir, "latest", "part-0000.parquet")); err != nil {
		t.Fatal(err)
	}
	if d := m.store.Counts().Sub(before); d.Gets != 1 {
		t.Errorf("the first stat made %d reads, want 1", d.Gets)
	}
}

// TestAddedColumnsCheckFooters: a file whose stats have no null counts
// says nothing of the columns it has: the oldest is judged by its footer
// when the version is laid out, and served with the column it lacks. One
// whose stats count a column it lacks (delta-kernel-rs's parsed-stats
// table), newer than a file with every column, misleads: served as stored
// by default, and with the column under CheckFooters, its size the filled
// file's from the first stat (one footer read). A file that has every
// column is served as stored either way.
func TestAddedColumnsCheckFooters(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	gen := deltagen.New(dir)
	old := writeRows(t, dir, "old.parquet", []beforeScore{{ID: 1, Name: "a"}}, `{"numRecords":1}`)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schemaBefore, nil, nil), old)
	score := 1.5
	fresh := writeRows(t, dir, "new.parquet", []withScore{{ID: 2, Name: "b", Score: &score}}, `{"numRecords":1}`)
	liar := writeRows(t, dir, "liar.parquet", []beforeScore{{ID: 3, Name: "c"}}, `{"numRecords":1,"nullCount":{"id":0,"name":0,"score":0}}`)
	fresh.Add.ModificationTime, liar.Add.ModificationTime = old.Add.ModificationTime+1000, old.Add.ModificationTime+2000
	mustCommit(t, gen, deltagen.Metadata(schemaAfter, nil, nil), fresh, liar)
	for _, check := range []bool{false, true} {
		m := mountLayout(t, dir, fs.Options{RefreshInterval: -1, CheckFooters: check})
		if _, err := os.ReadDir(filepath.Join(m.dir, "v", "1")); err != nil { // laid out: the footers the search reads
			t.Fatal(err)
		}
		for _, a := range []action.Action{old, fresh, liar} {
			served := filepath.Join(m.dir, "v", "1", a.Add.Path)
			before := m.store.Counts()
			st, err := os.Stat(served)
			if err != nil {
				t.Fatal(err)
			}
			reads := m.store.Counts().Sub(before).Gets
			data, err := os.ReadFile(served)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			_, hasScore := f.Schema().Lookup("score")
			filled := a.Add.Path == "old.parquet" || check && a.Add.Path != "new.parquet"
			if want := filled || a.Add.Path == "new.parquet"; hasScore != want || int64(len(data)) != st.Size() || (st.Size() == a.Add.Size) == filled {
				t.Errorf("check %v, %s: score served %v (want %v), size %d read %d, stored %d", check, a.Add.Path, hasScore, want, st.Size(), len(data), a.Add.Size)
			}
			if reads > 2 || !check && reads != 0 { // by default the search has read the old file's footer
				t.Errorf("check %v, %s: the first stat made %d reads", check, a.Add.Path, reads)
			}
		}
		m.unmount()
	}
}

// TestIDModeFilesThroughMount: in id mode columns are found by Parquet
// field id (PROTOCOL.md, "Reader Requirements for Column Mapping"). A
// file whose ids name none of the table's columns, or only some, is
// served with the others as nulls, whatever its stats and stored names
// say; a file without any field id is refused with EIO and a log line,
// never served with an empty schema (which pyarrow and DuckDB refuse).
// pyarrow and DuckDB read the other files with the table's columns.
func TestIDModeFilesThroughMount(t *testing.T) {
	requireFUSE(t)
	type ids struct {
		A int64 `parquet:"pa,id(1)"`
		B int64 `parquet:"pb,id(2)"`
	}
	type otherIDs struct {
		A int64 `parquet:"pa,id(7)"`
		B int64 `parquet:"pb,id(8)"`
	}
	type someIDs struct {
		A int64 `parquet:"pa,id(1)"`
		B int64 `parquet:"pb"`
	}
	type noIDs struct {
		A int64 `parquet:"pa"`
		B int64 `parquet:"pb"`
	}
	dir := t.TempDir()
	gen := deltagen.New(dir)
	const schema = `{"type":"struct","fields":[` +
		`{"name":"a","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"pa"}},` +
		`{"name":"b","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":2,"delta.columnMapping.physicalName":"pb"}}]}`
	const stats = `{"numRecords":1,"nullCount":{"pa":0,"pb":0}}`
	mustCommit(t, gen, deltagen.Protocol(2, 5, nil, nil),
		deltagen.Metadata(schema, nil, map[string]string{"delta.columnMapping.mode": "id", "delta.columnMapping.maxColumnId": "2"}),
		writeRows(t, dir, "ids.parquet", []ids{{1, 10}}, stats),
		writeRows(t, dir, "other-ids.parquet", []otherIDs{{2, 20}}, stats),
		writeRows(t, dir, "some-ids.parquet", []someIDs{{3, 30}}, stats),
		writeRows(t, dir, "no-ids.parquet", []noIDs{{4, 40}}, stats))
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	latest := filepath.Join(m.dir, "latest")

	if _, err := os.ReadFile(filepath.Join(latest, "no-ids.parquet")); err == nil || !strings.Contains(err.Error(), "input/output error") {
		t.Errorf("no-ids.parquet: %v, want EIO", err)
	}
	if !strings.Contains(m.logs.String(), "no-ids.parquet") || !strings.Contains(m.logs.String(), "no Parquet field ids") {
		t.Errorf("no log line for no-ids.parquet; log:\n%s", m.logs.String())
	}

	py := pythonOrSkip(t)
	script := `import sys, duckdb, pyarrow.dataset as ds
files = sys.argv[1:]
t = ds.dataset(files, format="parquet").to_table()
print(t.schema.names, sorted(zip(t.column("a").to_pylist(), t.column("b").to_pylist()), key=repr))
print(sorted(duckdb.sql(f"select a, b from read_parquet({files!r})").fetchall(), key=repr))
`
	var files []string
	for _, name := range []string{"ids.parquet", "other-ids.parquet", "some-ids.parquet"} {
		files = append(files, filepath.Join(latest, name))
	}
	out, err := exec.Command(py, append([]string{"-c", script}, files...)...).CombinedOutput()
	want := "['a', 'b'] [(1, 10), (3, None), (None, None)]\n[(1, 10), (3, None), (None, None)]\n"
	if err != nil || string(out) != want {
		t.Errorf("pyarrow and DuckDB read:\n%s(%v)\nwant:\n%s", out, err, want)
	}
}
