package tests

import (
	"context"
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
	return cachedBenchDir(b, "deltafs-bench-jsonlog-2000x100", func(dir string) error {
		return deltagen.WriteJSONLog(dir, jsonLogCommits, jsonLogAdds)
	})
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
