package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestDuckDBCountBenchmark: DuckDB's count(*) over the 96 data files of a
// local table (12 partitions), through each of openVariants
// (smallopens_bench_test.go), against the same files on disk, paired
// (bench/duckdb_count.py).
//
//	DELTAFS_DUCKDB_BENCH=1 go test ./tests -run TestDuckDBCountBenchmark -v -count=1
func TestDuckDBCountBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_DUCKDB_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_DUCKDB_BENCH=1 to run")
	}
	python := pythonOrSkip(t)
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.PartitionedSchema, []string{"date"}, nil))
	for c := 0; c < 8; c++ {
		var adds []action.Action
		for p := 0; p < 12; p++ {
			date := fmt.Sprintf("2024-01-%02d", p+1)
			a, err := gen.DataFileAdd(fmt.Sprintf("date=%s/part-%05d.parquet", date, c), 20000, 2, map[string]*string{"date": deltagen.Str(date)})
			if err != nil {
				t.Fatal(err)
			}
			adds = append(adds, a)
		}
		mustCommit(t, gen, adds...)
	}
	for _, v := range openVariants {
		m := mountForTest(t, dir, v.opts)
		out, err := exec.Command(python, filepath.Join("..", "bench", "duckdb_count.py"), dir, filepath.Join(m.dir, "latest")).Output()
		if err != nil {
			t.Fatalf("duckdb_count.py: %v\n%s", err, out)
		}
		var res struct {
			Rows  []int64 `json:"rows"`
			Ratio float64 `json:"ratio_median"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if len(res.Rows) != 1 || res.Rows[0] != 96*20000 {
			t.Errorf("row counts %v, want one: %d", res.Rows, 96*20000)
		}
		t.Logf("96 files, %s: %s", v.name, out)
	}
}
