package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
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
		`{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},` +
		`{"name":"nothing","type":"integer","nullable":true,"metadata":{}}]}`,
	"nested": `{"type":"struct","fields":[` +
		`{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"tags","type":{"type":"array","elementType":"long","containsNull":true},"nullable":true,"metadata":{}},` +
		`{"name":"pair","type":{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}},{"name":"b","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},` +
		`{"name":"attrs","type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}},` +
		`{"name":"no_tags","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}}]}`,
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
		`{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},` +
		`{"name":"nothing","type":"integer","nullable":true,"metadata":{}}]}`,
	"spark-nested": `{"type":"struct","fields":[` +
		`{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"tags","type":{"type":"array","elementType":"long","containsNull":false},"nullable":true,"metadata":{}},` +
		`{"name":"pair","type":{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}},{"name":"b","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},` +
		`{"name":"no_tags","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}}]}`,
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

// TestSparkReadsRebuiltLZ4Pages: Spark (parquet-mr) reads the view of a
// file it wrote in its "lz4" codec, in pages of about 1 MiB, every page
// rebuilt by deltafs without every third row (framed by
// pagecodec.HadoopLZ4), as the stored rows less those. (A block length
// off by one fails it.)
func TestSparkReadsRebuiltLZ4Pages(t *testing.T) {
	requireFUSE(t)
	py := sparkOrSkip(t)
	table := t.TempDir()
	const rows = 300_000
	script := `
import glob, shutil, sys
from pyspark.sql import SparkSession, functions as F
mode, table, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false") \
    .config("spark.ui.showConsoleProgress", "false").getOrCreate()
s.sparkContext.setLogLevel("ERROR")
if mode == "write":
    s.range(rows).select(F.col("id"), (F.col("id") * 7919 % 1000003).alias("v"),
                         F.concat(F.lit("value-"), F.col("id").cast("string")).alias("s")).coalesce(1) \
        .write.option("compression", "lz4").option("parquet.page.size", 1 << 20).parquet(table + "/w")
    shutil.move(glob.glob(table + "/w/part-*.parquet")[0], table + "/big.parquet")
    shutil.rmtree(table + "/w")
else:
    served = s.read.parquet(sys.argv[4] + "/big.parquet")
    stored = s.read.parquet(table + "/big.parquet").where("id % 3 != 0")
    print("read", served.count(), served.exceptAll(stored).count(), stored.exceptAll(served).count())
s.stop()
`
	if out, err := exec.Command(py, "-c", script, "write", table, fmt.Sprint(rows)).CombinedOutput(); err != nil {
		t.Fatalf("spark: %v\n%s", err, out)
	}
	var deleted []uint64
	for i := uint64(0); i < rows; i += 3 {
		deleted = append(deleted, i)
	}
	dvs, err := deltagen.New(table).WriteDVFile("", deleted)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(table, "big.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	schema := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"v","type":"long","nullable":true,"metadata":{}},{"name":"s","type":"string","nullable":true,"metadata":{}}]}`
	mustCommit(t, deltagen.New(table), deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}),
		deltagen.Metadata(schema, nil, nil), deltagen.AddFileDV("big.parquet", fi.Size(), 1, nil, fmt.Sprintf(`{"numRecords":%d}`, rows), dvs[0]))
	m := mountLayout(t, table, fs.Options{RefreshInterval: -1})
	out, err := exec.Command(py, "-c", script, "check", table, fmt.Sprint(rows), filepath.Join(m.dir, "latest")).CombinedOutput()
	if want := fmt.Sprintf("read %d 0 0\n", rows-len(deleted)); err != nil || !strings.Contains(string(out), want) {
		t.Errorf("Spark read the view: %v\n%s\nwant %q: the rows less the deleted ones, none other", err, out, want)
	}
}
