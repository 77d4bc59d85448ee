package tests

import (
	"bytes"
	"encoding/json"
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

// TestUncountedColumnsThroughMount: a table collecting stats for its
// first column only (as a table of more than 32 columns does for those
// past the 32nd) added a column: no stats say which files lack it. The
// first listing of the version reads the oldest file's footer, then
// searches the files by age for the first that has the column (9 footers
// for 10 files); the older ones are served with it, all nulls, the newer
// as stored, and pyarrow and DuckDB read the folder with every value.
// The version before the column was added reads one footer.
func TestUncountedColumnsThroughMount(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	uncountedScoreTable(t, dir)

	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	before := m.store.Counts()
	v1 := filepath.Join(m.dir, "v", "1")
	buildVersion(t, v1)
	if gets := m.store.Counts().Sub(before).Gets; gets != 9 {
		t.Errorf("v1's layout read %d footers, want 9 (the oldest, then a round of 8)", gets)
	}
	before = m.store.Counts()
	buildVersion(t, filepath.Join(m.dir, "v", "0"))
	if gets := m.store.Counts().Sub(before).Gets; gets > 2 {
		t.Errorf("v0 made %d reads, want at most 2 (its commit, the oldest file's footer: it has every column)", gets)
	}
	sizes := map[string]int64{} // the served sizes of the files filled
	for i := range 5 {
		for _, name := range []string{fmt.Sprintf("z-old-%d.parquet", i), fmt.Sprintf("a-new-%d.parquet", i)} {
			data, err := os.ReadFile(filepath.Join(v1, name))
			if err != nil {
				t.Fatal(err)
			}
			if name[0] == 'z' {
				sizes[name] = int64(len(data))
			}
			f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if _, ok := f.Schema().Lookup("score"); !ok {
				t.Errorf("%s served without score", name)
			}
		}
	}
	// deltafs ls --json finds the same files, and gives their sizes.
	out, err := exec.Command(deltafsBin(t), "ls", "--json", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var e struct {
			Path       string `json:"path"`
			ServedSize *int64 `json:"servedSize"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if want, filled := sizes[e.Path]; filled != (e.ServedSize != nil) || filled && *e.ServedSize != want {
			t.Errorf("ls --json %s: servedSize %v, the mount's %d (filled: %v)", e.Path, e.ServedSize, want, filled)
		}
	}
	py := pythonOrSkip(t)
	script := `import sys, duckdb, pyarrow.dataset as ds
t = ds.dataset(sys.argv[1], format="parquet").to_table().sort_by("id")
print(t.schema.names, t.column("score").to_pylist())
print(duckdb.sql(f"select count(*), count(score), sum(score) from read_parquet('{sys.argv[1]}/*.parquet')").fetchall())
`
	out, err = exec.Command(py, "-c", script, v1).CombinedOutput()
	want := "['id', 'name', 'score'] [None, None, None, None, None, 0.5, 1.5, 2.5, 3.5, 4.5]\n[(10, 5, 12.5)]\n"
	if err != nil || string(out) != want {
		t.Errorf("pyarrow and DuckDB read:\n%s(%v)\nwant:\n%s", out, err, want)
	}
}

// uncountedStats are the stats of a file of uncountedScoreTable: they
// count id only.
const uncountedStats = `{"numRecords":1,"nullCount":{"id":0}}`

// uncountedScoreTable writes, at dir, a table that collects stats for its
// first column only: v0 with five files of id and name (z-old-<i>), v1
// adding score and five files with it (a-new-<i>), younger. It returns
// its generator.
func uncountedScoreTable(t *testing.T, dir string) *deltagen.Table {
	gen := deltagen.New(dir)
	conf := map[string]string{"delta.dataSkippingNumIndexedCols": "1"}
	olds := []action.Action{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schemaBefore, nil, conf)}
	news := []action.Action{deltagen.Metadata(schemaAfter, nil, conf)}
	for i := range 5 {
		a := writeRows(t, dir, fmt.Sprintf("z-old-%d.parquet", i), []beforeScore{{ID: int64(i), Name: fmt.Sprint("n", i)}}, uncountedStats)
		a.Add.ModificationTime += int64(i)
		olds = append(olds, a)
	}
	for i := range 5 {
		score := float64(i) + 0.5
		a := writeRows(t, dir, fmt.Sprintf("a-new-%d.parquet", i), []withScore{{ID: int64(10 + i), Name: fmt.Sprint("n", 10+i), Score: &score}}, uncountedStats)
		a.Add.ModificationTime += int64(100 + i)
		news = append(news, a)
	}
	mustCommit(t, gen, olds...)
	mustCommit(t, gen, news...)
	return gen
}

// TestUncountedColumnsInChanges: changes/<N> finds the files lacking a
// column no stats count as v/<N> does. Commit 2 removes an old file and
// adds back a file written before score was added (as a restore does):
// both are served with score, as the versions they are served as.
func TestUncountedColumnsInChanges(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	gen := uncountedScoreTable(t, dir)
	back := writeRows(t, dir, "z-back.parquet", []beforeScore{{ID: 20, Name: "n20"}}, uncountedStats)
	back.Add.ModificationTime -= 1000 // written long before the commit
	mustCommit(t, gen, deltagen.Remove("z-old-0.parquet", 1), back)

	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	for _, name := range []string{"changes/2/removed/z-old-0.parquet", "changes/2/added/z-back.parquet", "changes/1/added/a-new-0.parquet"} {
		data, err := os.ReadFile(filepath.Join(m.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := f.Schema().Lookup("score"); !ok {
			t.Errorf("%s served without score", name)
		}
	}
}

// Rows of a table whose list of structs gained a field.
type (
	itemBefore struct {
		A *int64 `parquet:"a,optional"`
	}
	itemAfter struct {
		A *int64  `parquet:"a,optional"`
		B *string `parquet:"b,optional"`
	}
	itemsBefore struct {
		ID    int64         `parquet:"id"`
		Items []*itemBefore `parquet:"items,optional,list"`
	}
	itemsAfter struct {
		ID    int64        `parquet:"id"`
		Items []*itemAfter `parquet:"items,optional,list"`
	}
)

// TestFieldsInsideListsThroughMount: a field added to the structs inside
// an array column is counted by no stats (writers count the array's
// nulls as a whole): the footer search finds the files written before
// it, and they are served with it, null in each element, so that pyarrow
// and DuckDB, which take the folder's schema from the first file they
// meet (an old one), read the field.
func TestFieldsInsideListsThroughMount(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	gen := deltagen.New(dir)
	schema := func(fields string) string {
		return `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},` +
			`{"name":"items","type":{"type":"array","elementType":{"type":"struct","fields":[` + fields + `]},"containsNull":true},"nullable":true,"metadata":{}}]}`
	}
	fieldA := `{"name":"a","type":"long","nullable":true,"metadata":{}}`
	const stats = `{"numRecords":1,"nullCount":{"id":0,"items":0}}`
	olds := []action.Action{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schema(fieldA), nil, nil)}
	for i := range 3 {
		a := int64(i)
		add := writeRows(t, dir, fmt.Sprintf("a-old-%d.parquet", i), []itemsBefore{{ID: a, Items: []*itemBefore{{A: &a}, nil}}}, stats)
		add.Add.ModificationTime += int64(i)
		olds = append(olds, add)
	}
	news := []action.Action{deltagen.Metadata(schema(fieldA+`,{"name":"b","type":"string","nullable":true,"metadata":{}}`), nil, nil)}
	for i := range 3 {
		a, b := int64(10+i), fmt.Sprint("b", i)
		add := writeRows(t, dir, fmt.Sprintf("z-new-%d.parquet", i), []itemsAfter{{ID: a, Items: []*itemAfter{{A: &a, B: &b}}}}, stats)
		add.Add.ModificationTime += int64(100 + i)
		news = append(news, add)
	}
	mustCommit(t, gen, olds...)
	mustCommit(t, gen, news...)

	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	py := pythonOrSkip(t)
	script := `import sys, duckdb, pyarrow.dataset as ds
t = ds.dataset(sys.argv[1], format="parquet").to_table().sort_by("id")
print(t.schema.field("items").type, t.column("items").to_pylist())
print(duckdb.sql(f"select count(*), count(b) from (select unnest(items, recursive := true) from read_parquet('{sys.argv[1]}/*.parquet'))").fetchall())
`
	out, err := exec.Command(py, "-c", script, filepath.Join(m.dir, "v", "1")).CombinedOutput()
	want := "list<element: struct<a: int64, b: string>> [[{'a': 0, 'b': None}, None], [{'a': 1, 'b': None}, None], [{'a': 2, 'b': None}, None], " +
		"[{'a': 10, 'b': 'b0'}], [{'a': 11, 'b': 'b1'}], [{'a': 12, 'b': 'b2'}]]\n[(9, 3)]\n"
	if err != nil || string(out) != want {
		t.Errorf("pyarrow and DuckDB read:\n%s(%v)\nwant:\n%s", out, err, want)
	}
}
