package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/versions"
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
		st, err := blobstore.Open(ctx, table)
		if err != nil {
			b.Fatal(err)
		}
		t, err := versions.Open(ctx, st, versions.Options{})
		if err != nil {
			b.Fatal(err)
		}
		snap, err := t.Snapshot(ctx, t.Latest())
		if err != nil {
			b.Fatal(err)
		}
		if len(snap.Files) != 300000 {
			b.Fatalf("%d files", len(snap.Files))
		}
	}
	b.ReportMetric(float64(300000*b.N)/b.Elapsed().Seconds(), "adds/s")
}
