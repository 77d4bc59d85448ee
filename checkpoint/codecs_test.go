package checkpoint

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
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

// TestHadoopLZ4Checkpoint: a checkpoint Spark wrote with its "lz4" codec
// (delta-rs's checkpoint_with_partitions, rewritten by Spark 4: Hadoop's
// framing of LZ4 blocks, which parquet-go cannot decode) reads: its two
// files, their partition values, protocol and metadata.
func TestHadoopLZ4Checkpoint(t *testing.T) {
	data, err := os.ReadFile("testdata/spark-lz4.checkpoint.parquet")
	if err != nil {
		t.Fatal(err)
	}
	limit := wholeFileLimit
	t.Cleanup(func() { wholeFileLimit = limit })
	for _, wholeFileLimit = range []int64{limit, 0} { // read whole, or footer first
		r, err := Read(context.Background(), bytesStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t", Details: AllDetails})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, f := range r.Files {
			got = append(got, fmt.Sprintf("%s %d %d %v", f.Path, f.Size, f.ModTime, r.Partitions[i].Map()["color"] != nil))
		}
		slices.Sort(got)
		want := []string{
			"8ac7d8e1-daab-48ef-9d05-ec22fb4b0d2f 100 1661662807097 false",
			"f62d8868-d952-4f9d-8bb2-fd4e011ebf36 100 1661662807080 true",
		}
		if !slices.Equal(got, want) || len(r.Actions) != 2 {
			t.Errorf("read %q and %d other actions, want %q and protocol and metadata", got, len(r.Actions), want)
		}
	}
}
