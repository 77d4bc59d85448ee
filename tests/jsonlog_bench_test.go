package tests

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/deltafs/deltafs/tests/deltagen"
)

// A table that never checkpoints: 2,000 JSON commits of 100 adds each
// (Spark-like stats and partition values), opened and listed by deltafs
// (BenchmarkJSONLog) and by delta-rs (BenchmarkDeltaRSJSONLog) in one run.
const (
	jsonLogCommits = 2000
	jsonLogAdds    = 100
)

func jsonLogTable(b *testing.B) string {
	b.Helper()
	base := os.Getenv("DELTAFS_BENCH_DIR")
	if base == "" {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "deltafs-bench-jsonlog-2000x100")
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	if err := deltagen.WriteJSONLog(dir, jsonLogCommits, jsonLogAdds); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

func BenchmarkJSONLog(b *testing.B) {
	dir := jsonLogTable(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if snap := latestSnapshot(b, ctx, dir); len(snap.Files) != jsonLogCommits*jsonLogAdds {
			b.Fatalf("%d files", len(snap.Files))
		}
	}
	b.ReportMetric(float64(jsonLogCommits*jsonLogAdds*b.N)/b.Elapsed().Seconds(), "adds/s")
}

func BenchmarkDeltaRSJSONLog(b *testing.B) {
	benchDeltaRS(b, jsonLogTable(b), jsonLogCommits*jsonLogAdds)
}
