package tests

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/versions"
	"github.com/parquet-go/parquet-go"
)

// benchFiles is the number of add actions in the benchmark checkpoint.
var benchFiles = envInt("DELTAFS_BENCH_FILES", 1_000_000)

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// benchTable returns a generated table whose classic checkpoint holds
// benchFiles adds with stats and partition values, plus 9 commits. It is
// generated once into $DELTAFS_BENCH_DIR (default: the OS temp dir) and
// reused by later runs.
func benchTable(b testing.TB) (string, *deltagen.BenchInfo) {
	b.Helper()
	dir := cachedBenchDir(b, "deltafs-bench-"+strconv.Itoa(benchFiles), func(dir string) error {
		_, err := deltagen.WriteBenchTable(dir, deltagen.BenchOptions{Files: benchFiles})
		return err
	})
	return dir, &deltagen.BenchInfo{LatestVersion: 19, LiveFiles: int64(benchFiles)}
}

// BenchmarkSnapshotBuild opens the generated table and builds its latest
// snapshot: _last_checkpoint, one listing, the checkpoint and 9 commits.
// It reports add rows per second and the snapshot's heap bytes per live file
// beyond the path itself.
func BenchmarkSnapshotBuild(b *testing.B) {
	dir, info := benchTable(b)
	ctx := context.Background()
	// Heap per live file, beyond the path: measured once, outside the
	// timed loop (forcing collections inside it would distort the times).
	heapPerFile := snapshotHeapPerFile(b, ctx, dir, info.LiveFiles)
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		latestSnapshot(b, ctx, dir)
	}
	b.ReportMetric(float64(benchFiles)*float64(b.N)/b.Elapsed().Seconds(), "adds/s")
	b.ReportMetric(heapPerFile, "B/file")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// latestSnapshot opens the table at dir through a new store, as a cold
// start does, and builds its latest snapshot.
func latestSnapshot(tb testing.TB, ctx context.Context, dir string) *replay.Snapshot {
	tb.Helper()
	st, err := blobstore.Open(ctx, dir)
	if err != nil {
		tb.Fatal(err)
	}
	t, err := versions.Open(ctx, st, versions.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	snap, err := t.Snapshot(ctx, t.Latest())
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}

func snapshotHeapPerFile(b *testing.B, ctx context.Context, dir string, want int64) float64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	snap := latestSnapshot(b, ctx, dir)
	if int64(len(snap.Files)) != want {
		b.Fatalf("%d live files, want %d", len(snap.Files), want)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	var pathBytes int
	for _, f := range snap.Files {
		pathBytes += len(f.Path)
	}
	runtime.KeepAlive(snap)
	return (float64(after.HeapAlloc) - float64(before.HeapAlloc) - float64(pathBytes)) / float64(len(snap.Files))
}

// cpuTime is the process's user+system CPU time in ns: a figure less
// disturbed than wall time by other load on a small machine (it includes
// the GCs forced between iterations).
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkPlainCheckpointScan is the baseline: parquet-go reading the
// checkpoint columns a snapshot build reads, value by value, doing nothing
// with them. (A build reads neither add.stats nor add.partitionValues: see
// replay.Snapshot.Details.)
func BenchmarkPlainCheckpointScan(b *testing.B) {
	dir, _ := benchTable(b)
	matches, _ := filepath.Glob(filepath.Join(dir, "_delta_log", "*.checkpoint.parquet"))
	if len(matches) != 1 {
		b.Fatalf("want one checkpoint, found %v", matches)
	}
	columns := [][]string{
		{"add", "path"}, {"add", "size"}, {"add", "modificationTime"},
		{"add", "deletionVector", "storageType"}, {"add", "deletionVector", "pathOrInlineDv"},
		{"add", "deletionVector", "offset"}, {"add", "deletionVector", "sizeInBytes"},
		{"add", "deletionVector", "cardinality"}, {"add", "deletionVector", "maxRowIndex"},
		{"remove", "path"},
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		data, err := os.ReadFile(matches[0])
		if err != nil {
			b.Fatal(err)
		}
		f, err := parquet.OpenFile(bytesReaderAt(data), int64(len(data)))
		if err != nil {
			b.Fatal(err)
		}
		values := 0
		for _, path := range columns {
			leaf, ok := f.Schema().Lookup(path...)
			if !ok {
				b.Fatalf("no column %v", path)
			}
			for _, rg := range f.RowGroups() {
				values += scanColumn(b, rg.ColumnChunks()[leaf.ColumnIndex])
			}
		}
		if values < benchFiles {
			b.Fatalf("read %d values", values)
		}
	}
	b.ReportMetric(float64(benchFiles)*float64(b.N)/b.Elapsed().Seconds(), "adds/s")
}

func scanColumn(b *testing.B, cc parquet.ColumnChunk) int {
	pages := cc.Pages()
	defer pages.Close()
	buf := make([]parquet.Value, 4096)
	n := 0
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		r := p.Values()
		for {
			k, err := r.ReadValues(buf)
			n += k
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

type bytesReaderAt []byte

func (r bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r)) {
		return 0, io.EOF
	}
	n := copy(p, r[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// BenchmarkDeltaRSSnapshot times delta-rs (the Python deltalake package)
// loading the same table's latest snapshot and its file list, through
// bench/deltars_snapshot.py in the test venv ($DELTAFS_PYTHON), so that one
// `go test -bench` run gives both figures. Python start-up is not counted:
// the script times the load itself.
func BenchmarkDeltaRSSnapshot(b *testing.B) {
	dir, _ := benchTable(b)
	benchDeltaRS(b, dir, benchFiles)
}

// benchDeltaRS times delta-rs loading the table at dir and listing its
// files (bench/deltars_snapshot.py in the test venv, $DELTAFS_PYTHON), b.N
// times, and reports its load time (Python's start-up not counted).
func benchDeltaRS(b *testing.B, dir string, wantFiles int) {
	python := pythonOrSkip(b)
	b.ResetTimer()
	var total float64
	for i := 0; i < b.N; i++ {
		res := deltaRSLoad(b, python, dir, 1)
		if res.Files != wantFiles {
			b.Fatalf("delta-rs saw %d files, want %d", res.Files, wantFiles)
		}
		total += res.Min
	}
	b.ReportMetric(total/float64(b.N)*1e9, "load-ns/op")
	b.ReportMetric(float64(wantFiles)*float64(b.N)/total, "adds/s")
}

// deltaRSTimes is what bench/deltars_snapshot.py reports.
type deltaRSTimes struct {
	Files  int     `json:"files"`
	Min    float64 `json:"seconds_min"`
	Median float64 `json:"seconds_median"`
}

// deltaRSLoad times delta-rs opening the table at dir and listing its
// files, repeat times in one process.
func deltaRSLoad(tb testing.TB, python, dir string, repeat int) deltaRSTimes {
	tb.Helper()
	out, err := exec.Command(python, filepath.Join("..", "bench", "deltars_snapshot.py"), dir, "--repeat", strconv.Itoa(repeat)).Output()
	if err != nil {
		tb.Fatalf("deltars_snapshot.py: %v", err)
	}
	var res deltaRSTimes
	if err := json.Unmarshal(out, &res); err != nil {
		tb.Fatalf("deltars_snapshot.py printed %q: %v", out, err)
	}
	return res
}
