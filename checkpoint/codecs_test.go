package checkpoint

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestCheckpointCodecs: a checkpoint reads as written whatever codec its
// writer chose, its pages of either version. parquet-go v0.32.0 decoded
// an LZ4_RAW page that compresses less than 3 times (random sizes and
// times) into a buffer it then dropped, and read whatever an earlier page
// had left in its own: wrong paths, sizes and times, without an error.
func TestCheckpointCodecs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	acts := []action.Action{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)}
	want := map[string]action.File{}
	for range 5000 {
		f := action.File{Path: fmt.Sprintf("part-%016x.parquet", rnd.Uint64()), Size: rnd.Int64N(1 << 40), ModTime: rnd.Int64N(1 << 42)}
		want[f.Path] = f
		acts = append(acts, deltagen.AddFile(f.Path, f.Size, f.ModTime, nil, ""))
	}
	for _, codec := range []compress.Codec{&parquet.Snappy, &parquet.Uncompressed, &parquet.Gzip, &parquet.Zstd, &parquet.Lz4Raw, &parquet.Brotli} {
		for _, version := range []int{1, 2} {
			dir := t.TempDir()
			cp := commitAndCheckpoint(t, dir, acts, deltagen.WithCompression(codec), deltagen.WithPageBytes(16<<10), deltagen.WithDataPageVersion(version))
			got, err := Read(context.Background(), dirStorage(dir), cp, Options{Root: "file:///t"})
			if err != nil {
				t.Errorf("%s, v%d pages: %v", codec, version, err)
				continue
			}
			wrong := 0
			for _, f := range got.Files {
				if w, ok := want[f.Path]; !ok || f != w {
					wrong++
				}
			}
			if wrong > 0 || len(got.Files) != len(want) {
				t.Errorf("%s, v%d pages: %d files read, %d of them not as written; want %d", codec, version, len(got.Files), wrong, len(want))
			}
		}
	}
}
