package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestCheckpointWithEmptyRowGroup: a checkpoint with an empty row group,
// as pyarrow writes one (its column chunks at offset 0), is read, and
// gives the same files as replaying the commits.
func TestCheckpointWithEmptyRowGroup(t *testing.T) {
	py := pythonOrSkip(t)
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	for i := 0; i < 5; i++ {
		mustCommit(t, gen, mustAdd(t, gen, fmt.Sprintf("part-%d.parquet", i), 3))
	}
	want := expectedKeys(t, gen, 5)
	if _, err := gen.Checkpoint(5); err != nil {
		t.Fatal(err)
	}
	cp := gen.ClassicCheckpointPath(5)
	rewrite := `
import sys, pyarrow.parquet as pq
p = sys.argv[1]
t = pq.read_table(p)
w = pq.ParquetWriter(p + ".tmp", t.schema)
w.write_table(t)
w.write_table(t.slice(0, 0))
w.close()
m = pq.ParquetFile(p + ".tmp").metadata
assert m.row_group(m.num_row_groups - 1).num_rows == 0
`
	if out, err := exec.Command(py, "-c", rewrite, cp).CombinedOutput(); err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
	if err := os.Rename(cp+".tmp", cp); err != nil {
		t.Fatal(err)
	}
	table, st := openTable(t, dir)
	before := st.Counts()
	snap, err := table.Snapshot(context.Background(), 5)
	if err != nil {
		t.Fatalf("snapshot from a checkpoint with an empty row group: %v", err)
	}
	if st.Counts().Sub(before).Gets == 0 {
		t.Fatal("the snapshot did not read the checkpoint")
	}
	var got []string
	for _, f := range snap.Files {
		got = append(got, f.Path+"|")
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
}

// TestBrokenCheckpointFallsBackToCommits: a truncated checkpoint does not
// make a version unreadable while the commits below it exist: it is
// rebuilt from them. A readable Parquet file without the protocol and
// metadata under a checkpoint's name is refused, as Delta readers refuse
// it, with an error that names the checkpoint (it said "no protocol action
// in the log"). Without the commits, every error names the checkpoint.
func TestBrokenCheckpointFallsBackToCommits(t *testing.T) {
	for _, c := range []struct {
		name      string
		fallsBack bool
		breakIt   func(t *testing.T, path string)
	}{
		{"truncated", true, func(t *testing.T, path string) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"wrong schema", false, func(t *testing.T, path string) {
			// A data file under the checkpoint's name.
			g := deltagen.New(filepath.Dir(filepath.Dir(path)))
			size, err := g.WriteDataFile("_delta_log/"+filepath.Base(path), 3, 1)
			if err != nil || size == 0 {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			gen := deltagen.New(dir)
			mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
			for i := 0; i < 4; i++ {
				mustCommit(t, gen, mustAdd(t, gen, fmt.Sprintf("part-%d.parquet", i), 3))
			}
			if _, err := gen.Checkpoint(3); err != nil {
				t.Fatal(err)
			}
			mustCommit(t, gen, mustAdd(t, gen, "part-4.parquet", 3))
			c.breakIt(t, gen.ClassicCheckpointPath(3))
			table, _ := openTable(t, dir)
			for _, v := range []int64{3, 4} {
				snap, err := table.Snapshot(context.Background(), v)
				switch {
				case !c.fallsBack && (err == nil || !strings.Contains(err.Error(), "checkpoint v3 _delta_log/00000000000000000003.checkpoint.parquet")):
					t.Errorf("v%d: %v; want an error naming the checkpoint", v, err)
				case c.fallsBack && err != nil:
					t.Fatalf("v%d: %v", v, err)
				case c.fallsBack && len(snap.Files) != int(v):
					t.Errorf("v%d: %d files, want %d", v, len(snap.Files), v)
				}
			}
			// Without the commits below it, the checkpoint is all there is:
			// the error names it.
			for _, v := range []int64{0, 1, 2} {
				if err := os.Remove(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", v))); err != nil {
					t.Fatal(err)
				}
			}
			table, _ = openTable(t, dir)
			if _, err := table.Snapshot(context.Background(), 4); err == nil || !strings.Contains(err.Error(), "checkpoint v3") {
				t.Errorf("without the commits: %v; want an error naming checkpoint v3", err)
			}
		})
	}
}
