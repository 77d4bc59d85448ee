package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The shared 300k-add JSON log (45 MB of commits, no checkpoint), unpacked
// once into the bench folder, opened and listed by deltafs
// (BenchmarkJSONReplay300k) and by delta-rs (BenchmarkDeltaRSJSONReplay300k).
func table300k(b *testing.B) string {
	b.Helper()
	archive := filepath.Join(TestdataDir(b), "delta-kernel-rs/data/300k-add-files-100-col-partitioned.tar.zst")
	dir := cachedBenchDir(b, "deltafs-bench-300k", func(dir string) error {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if out, err := exec.Command("tar", "--zstd", "-xf", archive, "-C", dir).CombinedOutput(); err != nil {
			b.Skipf("SKIPPING: cannot unpack %s (needs tar with zstd): %v %s", archive, err, out)
		}
		return nil
	})
	return filepath.Join(dir, "300k-add-files-100-col-partitioned")
}

func BenchmarkJSONReplay300k(b *testing.B) {
	table := table300k(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if snap := latestSnapshot(b, ctx, table); len(snap.Files) != 300000 {
			b.Fatalf("%d files", len(snap.Files))
		}
	}
	b.ReportMetric(float64(300000*b.N)/b.Elapsed().Seconds(), "adds/s")
}

func BenchmarkDeltaRSJSONReplay300k(b *testing.B) {
	benchDeltaRS(b, table300k(b), 300000)
}
