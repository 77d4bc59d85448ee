package fs

import (
	"bytes"
	"context"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// testBlock is the block size most tests use, small so that modest files
// span several blocks.
const testBlock = 64 << 10

// syncBuffer is a log sink safe for the mount's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testMount is a mounted fake table.
type testMount struct {
	dir   string
	table *fakeTable
	logs  *syncBuffer
	root  *root
}

func (m *testMount) path(rel string) string { return filepath.Join(m.dir, filepath.FromSlash(rel)) }

// requireFUSE skips the test, loudly, when no FUSE mount is possible here.
func requireFUSE(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("SKIPPING FUSE MOUNT TEST: /dev/fuse unavailable: %v", err)
	}
}

// mountFake mounts tbl in a fresh directory and unmounts it when the test
// ends.
func mountFake(t *testing.T, tbl *fakeTable, opts Options) *testMount {
	t.Helper()
	requireFUSE(t)
	logs := &syncBuffer{}
	if opts.Logger == nil {
		opts.Logger = log.New(logs, "", 0)
	}
	if opts.BlockSize == 0 {
		opts.BlockSize = testBlock
	}
	// A fake table is a tree of stored paths without Delta metadata
	// (no schema, no partition columns): it is served as stored, unless
	// the test asks for the logical layout.
	opts.PhysicalLayout = !tbl.logical
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	srv, r, err := mount(ctx, dir, tbl, opts)
	if err != nil {
		cancel()
		t.Fatalf("Mount: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Unmount(); err != nil {
			t.Errorf("Unmount: %v", err)
		}
		cancel()
	})
	return &testMount{dir: dir, table: tbl, logs: logs, root: r}
}

var (
	mtime0 = time.Date(2024, 1, 1, 12, 0, 0, 123_000_000, time.UTC).UnixMilli()
	mtime1 = time.Date(2024, 1, 2, 8, 30, 0, 0, time.UTC).UnixMilli()
)

func partition(col, val string) *replay.Partition {
	return &replay.Partition{Values: []replay.PartitionValue{{Column: col, Value: val}}}
}

// standardTable has two known versions:
//
//	v0: small.parquet, date=2024-01-01/part-0.parquet
//	v1: v0's files plus big.bin (several blocks), date=2024-01-02/part-1.parquet,
//	    date=2024-01-02/nested/deep.parquet, dv.parquet (50 rows, an inline deletion vector removes 6),
//	    missing.parquet (not in storage), empty.parquet (0 bytes)
func standardTable(t *testing.T) *fakeTable {
	tbl := newFakeTable(t)
	v0 := []fakeFile{
		{path: "small.parquet", size: 1000, modTime: mtime0, records: 10},
		{path: "date=2024-01-01/part-0.parquet", size: 3000, modTime: mtime0, records: 30, part: partition("date", "2024-01-01")},
	}
	tbl.addVersion(t, "CREATE TABLE", v0, true)
	v1 := append(slicesClone(v0),
		fakeFile{path: "big.bin", size: 5*testBlock + 1234, modTime: mtime1, records: -1},
		fakeFile{path: "date=2024-01-02/part-1.parquet", size: 2*testBlock - 1, modTime: mtime1, records: 7, part: partition("date", "2024-01-02")},
		fakeFile{path: "date=2024-01-02/nested/deep.parquet", size: 10, modTime: mtime1, records: 1, part: partition("date", "2024-01-02")},
		fakeFile{path: "dv.parquet", data: dvParquet(t, 50), modTime: mtime1, records: 50,
			dv: &action.DeletionVector{StorageType: "i", PathOrInlineDv: "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", SizeInBytes: 40, Cardinality: 6}},
		fakeFile{path: "missing.parquet", size: 100, modTime: mtime1, records: 1, missing: true},
		fakeFile{path: "empty.parquet", size: 0, modTime: mtime1, records: 0},
	)
	tbl.addVersion(t, "WRITE", v1, true)
	return tbl
}

func slicesClone(s []fakeFile) []fakeFile { return append([]fakeFile(nil), s...) }

// waitUntil polls cond for up to d.
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func names(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range es {
		ns = append(ns, e.Name())
	}
	return strings.Join(ns, " ")
}

// TestFuseHint: a missing device is named, with what to do; a usable one
// gives no hint.
func TestFuseHint(t *testing.T) {
	if h := fuseHint("/nonexistent/fuse"); !strings.Contains(h, "no /nonexistent/fuse: load the module") {
		t.Errorf("missing device: %q", h)
	}
	if h := fuseHint(os.DevNull); h != "" && os.Geteuid() == 0 {
		t.Errorf("a device open to root: %q", h)
	}
}
