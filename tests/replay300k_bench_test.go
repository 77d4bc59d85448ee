package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkJSONReplay300k replays the shared 300k-add JSON log (45 MB of
// commits, no checkpoint), unpacked into a temp dir.
func BenchmarkJSONReplay300k(b *testing.B) {
	archive := filepath.Join(TestdataDir(b), "delta-kernel-rs/data/300k-add-files-100-col-partitioned.tar.zst")
	dir := b.TempDir()
	if out, err := exec.Command("tar", "--zstd", "-xf", archive, "-C", dir).CombinedOutput(); err != nil {
		b.Skipf("SKIPPING: cannot unpack %s (needs tar with zstd): %v %s", archive, err, out)
	}
	table := filepath.Join(dir, "300k-add-files-100-col-partitioned")
	if _, err := os.Stat(table); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if snap := latestSnapshot(b, ctx, table); len(snap.Files) != 300000 {
			b.Fatalf("%d files", len(snap.Files))
		}
	}
	b.ReportMetric(float64(300000*b.N)/b.Elapsed().Seconds(), "adds/s")
}
