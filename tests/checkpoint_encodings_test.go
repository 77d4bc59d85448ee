package tests

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestCheckpointsAsPyarrowWritesThem: a checkpoint rewritten by pyarrow,
// in every codec it has, both data page versions, with dictionaries,
// plain, or the delta encodings, gives the files the commits gave: paths,
// sizes, times and deletion vectors (random sizes and times, which
// compress badly: parquet-go v0.32.0 read such LZ4_RAW pages wrong).
func TestCheckpointsAsPyarrowWritesThem(t *testing.T) {
	checkRewrittenCheckpoints(t, pythonOrSkip(t), 36, `
import itertools, os, sys, pyarrow.parquet as pq
src, out = sys.argv[1:]
t, pf = pq.read_table(src), pq.ParquetFile(src)
kinds = {"INT64": "DELTA_BINARY_PACKED", "BYTE_ARRAY": "DELTA_LENGTH_BYTE_ARRAY"}
cols = [pf.schema.column(i) for i in range(len(pf.schema))]
delta = {c.path: kinds[c.physical_type] for c in cols if c.physical_type in kinds}
for codec, version, enc in itertools.product(("snappy", "zstd", "gzip", "lz4", "brotli", "none"), ("1.0", "2.0"), ("dict", "plain", "delta")):
    kw = {"use_dictionary": enc == "dict"}
    if enc == "delta":
        kw["column_encoding"] = delta
    pq.write_table(t, os.path.join(out, f"{codec}-v{version[0]}-{enc}"), compression=codec, data_page_version=version,
                   data_page_size=4096, row_group_size=2000, **kw)
`)
}

// checkpointOfRandomAdds commits to a new table 3,000 adds of random sizes
// and times (which compress badly), under a partition column, some with
// deletion vectors, and removes 500 of them; it writes the checkpoint of
// that version 2 and deletes the commits, so that the checkpoint alone
// gives the files. It returns the table, the checkpoint and the files.
func checkpointOfRandomAdds(t *testing.T) (dir, cp string, want map[string]action.File) {
	dir = t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}),
		deltagen.Metadata(deltagen.PartitionedSchema, []string{"date"}, map[string]string{"delta.enableDeletionVectors": "true"}))
	rnd := rand.New(rand.NewPCG(3, 4))
	var adds, removes []action.Action
	for i := range 3000 {
		path := fmt.Sprintf("date=2024-01-%02d/part-%05d-%016x.parquet", i%28+1, i, rnd.Uint64())
		pv := map[string]*string{"date": deltagen.Str(fmt.Sprintf("2024-01-%02d", i%28+1))}
		size, mtime := rnd.Int64N(1<<40), rnd.Int64N(1<<42)
		add, remove := deltagen.AddFile(path, size, mtime, pv, deltagen.Stats(int64(i), int64(i+rnd.IntN(1000)))), deltagen.Remove(path, 1_800_000_000_000)
		if i%9 == 0 {
			dv, err := deltagen.InlineDV([]uint64{uint64(i % 5), uint64(i%5 + 7)})
			if err != nil {
				t.Fatal(err)
			}
			add, remove = deltagen.AddFileDV(path, size, mtime, pv, "", dv), deltagen.RemoveDV(path, 1_800_000_000_000, dv)
		}
		adds = append(adds, add)
		if i%6 == 0 {
			removes = append(removes, remove)
		}
	}
	mustCommit(t, gen, adds...)
	mustCommit(t, gen, removes...)
	want = map[string]action.File{}
	st, err := gen.StateAt(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range st.Adds {
		want[a.Path] = action.File{Path: a.Path, Size: a.Size, ModTime: a.ModificationTime, DV: a.DeletionVector}
	}
	if _, err := gen.Checkpoint(2); err != nil {
		t.Fatal(err)
	}
	cp = gen.ClassicCheckpointPath(2)
	for v := range 3 { // the checkpoint alone: no falling back to the commits
		if err := os.Remove(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", v))); err != nil {
			t.Fatal(err)
		}
	}
	return dir, cp, want
}

// checkCheckpointFiles checks that the table under dir, at version 2,
// has exactly the files of want.
func checkCheckpointFiles(t *testing.T, name, dir string, want map[string]action.File) {
	t.Helper()
	table, _ := openTable(t, dir)
	snap, err := table.Snapshot(context.Background(), 2)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	wrong := 0
	for _, f := range snap.Files {
		w, ok := want[f.Path]
		if !ok || f.Size != w.Size || f.ModTime != w.ModTime || f.DV.UniqueID() != w.DV.UniqueID() {
			wrong++
		}
	}
	if wrong > 0 || len(snap.Files) != len(want) {
		t.Errorf("%s: %d files, %d of them not as committed; want %d", name, len(snap.Files), wrong, len(want))
	}
}

// TestSparkCheckpoints: a checkpoint Spark rewrites (parquet-mr), in
// every codec it has and both writer versions (the second: v2 pages and
// delta encodings), in small pages and row groups, its commits gone, gives
// the files the commits gave. Its "lz4" is Hadoop's framing of LZ4
// blocks, which parquet-go cannot decode: such a table could not be
// opened before.
func TestSparkCheckpoints(t *testing.T) {
	checkRewrittenCheckpoints(t, sparkOrSkip(t), 12, `
import glob, itertools, os, shutil, sys
from pyspark.sql import SparkSession
cp, out = sys.argv[1:]
s = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
s.sparkContext.setLogLevel("ERROR")
df = s.read.parquet(cp).coalesce(1).cache()
for codec, version in itertools.product(("snappy", "gzip", "zstd", "lz4", "lz4_raw", "none"), ("v1", "v2")):
    tmp = os.path.join(out, "tmp")
    df.write.option("compression", codec).option("parquet.writer.version", version) \
        .option("parquet.page.size", 8192).option("parquet.block.size", 65536).parquet(tmp)
    shutil.move(glob.glob(tmp + "/part-*.parquet")[0], os.path.join(out, codec + "-" + version))
    shutil.rmtree(tmp)
s.stop()
`)
}

// sparkOrSkip is pythonOrSkip for a script that runs Spark: it also needs
// Java.
func sparkOrSkip(t *testing.T) string {
	t.Helper()
	py := pythonOrSkip(t)
	if _, err := exec.LookPath("java"); err != nil && os.Getenv("JAVA_HOME") == "" {
		if os.Getenv("DELTAFS_STRICT") != "" {
			t.Fatal("no Java for Spark (make jre)")
		}
		t.Skip("SKIPPING: no Java for Spark (make jre)")
	}
	return py
}

// checkRewrittenCheckpoints has script (run by py with the checkpoint of
// checkpointOfRandomAdds and a folder) write n rewrites of the checkpoint
// into the folder; each then takes the checkpoint's place in turn, and the
// table must give the files its commits gave.
func checkRewrittenCheckpoints(t *testing.T, py string, n int, script string) {
	t.Helper()
	dir, cp, want := checkpointOfRandomAdds(t)
	variants := t.TempDir()
	if out, err := exec.Command(py, "-c", script, cp, variants).CombinedOutput(); err != nil {
		t.Fatalf("rewriting the checkpoint: %v\n%s", err, out)
	}
	names, err := os.ReadDir(variants)
	if err != nil || len(names) != n {
		t.Fatalf("%d variants written, want %d (%v)", len(names), n, err)
	}
	for _, v := range names {
		data, err := os.ReadFile(filepath.Join(variants, v.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkCheckpointFiles(t, v.Name(), dir, want)
	}
}
