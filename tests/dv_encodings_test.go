package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// foreignSchemas are the Delta schemas of the files foreign_parquet.py
// writes, by shape.
var foreignSchemas = map[string]string{
	"flat": `{"type":"struct","fields":[` +
		`{"name":"i32","type":"integer","nullable":true,"metadata":{}},` +
		`{"name":"i64","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"f32","type":"float","nullable":true,"metadata":{}},` +
		`{"name":"f64","type":"double","nullable":true,"metadata":{}},` +
		`{"name":"s","type":"string","nullable":true,"metadata":{}},` +
		`{"name":"b","type":"binary","nullable":true,"metadata":{}},` +
		`{"name":"flag","type":"boolean","nullable":true,"metadata":{}},` +
		`{"name":"dec","type":"decimal(10,2)","nullable":true,"metadata":{}},` +
		`{"name":"day","type":"date","nullable":true,"metadata":{}},` +
		`{"name":"ts","type":"timestamp","nullable":true,"metadata":{}}]}`,
	"nested": `{"type":"struct","fields":[` +
		`{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"tags","type":{"type":"array","elementType":"long","containsNull":true},"nullable":true,"metadata":{}},` +
		`{"name":"pair","type":{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}},{"name":"b","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},` +
		`{"name":"attrs","type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}}]}`,
}

// TestDVViewsOfForeignEncodings: files as pyarrow writes them, in every
// codec it has, both data page versions, dictionary, plain, delta and
// byte-stream-split encodings, each with a deletion vector, read through
// a mount by pyarrow exactly as pyarrow reads the stored file less the
// deleted rows, and counted so by DuckDB. Flat files are rebuilt page by
// page; nested ones are re-encoded by parquet-go (which, before v0.32.1,
// decoded LZ4_RAW pages into the wrong buffer).
func TestDVViewsOfForeignEncodings(t *testing.T) {
	requireFUSE(t)
	checkForeignDVViews(t, pythonOrSkip(t), "write", foreignSchemas)
}

// TestSparkFilesWithDeletionVectors is TestDVViewsOfForeignEncodings for
// files Spark writes (parquet-mr): every codec it has, its "lz4" (Hadoop's
// framing, which deltafs decodes itself) among them, both writer versions
// (the second: delta encodings), INT96 timestamps, decimals stored as
// ints and as fixed-length bytes, flat and nested.
func TestSparkFilesWithDeletionVectors(t *testing.T) {
	requireFUSE(t)
	checkForeignDVViews(t, sparkOrSkip(t), "write-spark", sparkSchemas)
}

// TestDeltaRSFilesWithDeletionVectors is TestDVViewsOfForeignEncodings
// for files delta-rs writes (arrow-rs): every codec it has, its "LZ4"
// (Hadoop's framing) among them, with dictionaries or without, in pages of
// 100 rows.
func TestDeltaRSFilesWithDeletionVectors(t *testing.T) {
	requireFUSE(t)
	checkForeignDVViews(t, pythonOrSkip(t), "write-deltars", foreignSchemas)
}

// TestDuckDBFilesWithDeletionVectors is TestDVViewsOfForeignEncodings for
// files DuckDB writes: every codec it has, both of its format versions.
func TestDuckDBFilesWithDeletionVectors(t *testing.T) {
	requireFUSE(t)
	checkForeignDVViews(t, pythonOrSkip(t), "write-duckdb", foreignSchemas)
}

// sparkSchemas are the Delta schemas of the files foreign_parquet.py
// write-spark writes, by shape.
var sparkSchemas = map[string]string{
	"spark-flat": `{"type":"struct","fields":[` +
		`{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"i32","type":"integer","nullable":true,"metadata":{}},` +
		`{"name":"s","type":"string","nullable":true,"metadata":{}},` +
		`{"name":"f64","type":"double","nullable":true,"metadata":{}},` +
		`{"name":"dec","type":"decimal(10,2)","nullable":true,"metadata":{}},` +
		`{"name":"bigdec","type":"decimal(30,2)","nullable":true,"metadata":{}},` +
		`{"name":"ts","type":"timestamp","nullable":true,"metadata":{}}]}`,
	"spark-nested": `{"type":"struct","fields":[` +
		`{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"tags","type":{"type":"array","elementType":"long","containsNull":false},"nullable":true,"metadata":{}},` +
		`{"name":"pair","type":{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}},{"name":"b","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`,
}

// checkForeignDVViews has foreign_parquet.py write its files (mode), makes
// a table of each shape's files with a deletion vector on every file, and
// has foreign_parquet.py check them through a mount.
func checkForeignDVViews(t *testing.T, py, mode string, schemas map[string]string) {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command(py, "foreign_parquet.py", mode, dir).Output()
	if err != nil {
		t.Fatalf("foreign_parquet.py %s: %v", mode, err)
	}
	type written struct {
		Name, Shape string
		Size, Rows  int64
	}
	files := map[string][]written{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		var w written
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			t.Fatal(err)
		}
		files[w.Shape] = append(files[w.Shape], w)
	}
	// Rows all through the first thousand, a run in the third, the last
	// row; in row groups of a thousand rows (pyarrow's, delta-rs's), the
	// second loses none.
	var deleted []uint64
	for i := uint64(0); i < 3000; i++ {
		if i < 1000 && i%7 == 3 || i >= 2100 && i < 2200 || i == 2999 {
			deleted = append(deleted, i)
		}
	}
	dv, err := deltagen.InlineDV(deleted)
	if err != nil {
		t.Fatal(err)
	}
	deletedJSON, _ := json.Marshal(deleted)
	for shape, schema := range schemas {
		if len(files[shape]) == 0 {
			t.Fatalf("no %s files written", shape)
		}
		table := filepath.Join(dir, shape)
		acts := []action.Action{
			deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}),
			deltagen.Metadata(schema, nil, map[string]string{"delta.enableDeletionVectors": "true"}),
		}
		for _, f := range files[shape] {
			acts = append(acts, deltagen.AddFileDV(f.Name, f.Size, 1_700_000_000_000, nil, fmt.Sprintf(`{"numRecords":%d}`, f.Rows), dv))
		}
		mustCommit(t, deltagen.New(table), acts...)
		m := mountLayout(t, table, fs.Options{RefreshInterval: -1})
		got, err := exec.Command(py, "foreign_parquet.py", "check", table, filepath.Join(m.dir, "latest"), string(deletedJSON)).CombinedOutput()
		if want := fmt.Sprintf("ok %d", len(files[shape])); err != nil || strings.TrimSpace(string(got)) != want {
			t.Errorf("%s files through the mount (%v):\n%s", shape, err, got)
		}
	}
}
