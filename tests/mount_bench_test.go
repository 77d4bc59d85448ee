package tests

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/versions"
)

// TestMountBenchmark measures, in one run, the mount against the local
// filesystem: `ls -lR` and `find` over a 100,000-file version (with the
// storage requests they cost: none), and sequential reading of a 1 GiB
// file. It prints a table; BENCHMARKS.md records it. Run with
//
//	DELTAFS_MOUNT_BENCH=1 go test ./tests -run TestMountBenchmark -v -count=1
func TestMountBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_MOUNT_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_MOUNT_BENCH=1 to run")
	}
	requireFUSE(t)
	ctx := context.Background()
	const files = 100_000

	// Sequential read of a 1 GiB file, through the mount and directly;
	// first, while the heap is small (GC work grows with it).
	bigDir := t.TempDir()
	gen := deltagen.New(bigDir)
	big := filepath.Join(bigDir, "big.bin")
	writeRandomFile(t, big, 1<<30)
	fi, _ := os.Stat(big)
	if _, err := gen.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
		deltagen.AddFile("big.bin", fi.Size(), fi.ModTime().UnixMilli(), nil, "")); err != nil {
		t.Fatal(err)
	}
	bst, _ := blobstore.Open(ctx, bigDir)
	btable, err := versions.Open(ctx, bst, versions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, big) // both read from the page cache
	direct := readAll(t, big)
	mb := float64(fi.Size()) / (1 << 20)
	for _, noOpen := range []bool{false, true} {
		bmnt := t.TempDir()
		bsrv, err := fs.Mount(ctx, bmnt, fs.StoreTable{Table: btable, Store: bst}, fs.Options{RefreshInterval: -1, NoOpen: noOpen})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { bsrv.Unmount() })
		through := readAll(t, filepath.Join(bmnt, "latest", "big.bin"))
		again := readAll(t, filepath.Join(bmnt, "latest", "big.bin"))
		t.Logf("1 GiB sequential read, NoOpen=%v: direct %.0f MiB/s, mount %.0f MiB/s (%.2fx), mount again %.0f MiB/s (kernel page cache kept)",
			noOpen, mb/direct.Seconds(), mb/through.Seconds(), direct.Seconds()/through.Seconds(), mb/again.Seconds())
	}

	// The table: a checkpoint of 100,000 adds in 100 partitions.
	tableDir := t.TempDir()
	info, err := deltagen.WriteBenchTable(tableDir, deltagen.BenchOptions{Files: files, Partitions: 100, TailCommits: -1})
	if err != nil {
		t.Fatal(err)
	}
	st, err := blobstore.Open(ctx, tableDir)
	if err != nil {
		t.Fatal(err)
	}
	table, err := versions.Open(ctx, st, versions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := table.Snapshot(ctx, table.Latest())
	if err != nil {
		t.Fatal(err)
	}
	// The same tree on the local filesystem, sparse files of the same sizes.
	local := t.TempDir()
	writeSparseFiles(t, local, snap.Files)
	mnt := t.TempDir()
	// As deltafs mount does by default: no extended attributes.
	srv, err := fs.Mount(ctx, mnt, fs.StoreTable{Table: table, Store: st}, fs.Options{RefreshInterval: -1, NoXAttrs: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Unmount() })
	version := filepath.Join(mnt, "v", fmt.Sprint(info.LatestVersion))
	buildVersion(t, version)

	var plainCold time.Duration // ls -lR of the plain version, cold
	t.Logf("%-22s %12s %12s %8s %9s", "operation", "local", "mount", "ratio", "requests")
	for _, op := range []struct {
		name string
		args []string
	}{
		{"ls -lR (cold)", []string{"ls", "-lR"}},
		{"ls -lR (warm)", []string{"ls", "-lR"}},
		{"find -type f (warm)", []string{"find", ".", "-type", "f"}},
		{"du -s (warm)", []string{"du", "-s", "--apparent-size"}},
	} {
		lt := timeCmd(t, local, op.args)
		before := st.Counts()
		mt := timeCmd(t, version, op.args)
		reqs := st.Counts().Sub(before).Requests()
		if op.name == "ls -lR (cold)" {
			plainCold = mt
		}
		t.Logf("%-22s %12v %12v %7.2fx %9d", op.name, lt.Round(time.Millisecond), mt.Round(time.Millisecond), mt.Seconds()/lt.Seconds(), reqs)
		if reqs != 0 {
			t.Errorf("%s over a mounted version made %d storage requests, want 0", op.name, reqs)
		}
	}
	// With --xattrs: ls -l asks every file for two attributes, a round trip
	// each, every time.
	xmnt := t.TempDir()
	xsrv, err := fs.Mount(ctx, xmnt, fs.StoreTable{Table: table, Store: st}, fs.Options{RefreshInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xsrv.Unmount() })
	xversion := filepath.Join(xmnt, "v", fmt.Sprint(info.LatestVersion))
	timeCmd(t, xversion, []string{"ls", "-lR"})
	lt, xt := timeCmd(t, local, []string{"ls", "-lR"}), timeCmd(t, xversion, []string{"ls", "-lR"})
	t.Logf("%-22s %12v %12v %7.2fx", "ls -lR (warm, xattrs)", lt.Round(time.Millisecond), xt.Round(time.Millisecond), xt.Seconds()/lt.Seconds())

	// The same over a column-mapped version: files under random prefixes,
	// served in logical partition folders; a cold ls -lR against the plain
	// table's, both after the version's first lookup (which reads the
	// partition values from the checkpoint: counted apart).
	cmDir := t.TempDir()
	if _, err := deltagen.WriteBenchTable(cmDir, deltagen.BenchOptions{Files: files, Partitions: 100, TailCommits: -1, ColumnMapping: true}); err != nil {
		t.Fatal(err)
	}
	cst, err := blobstore.Open(ctx, cmDir)
	if err != nil {
		t.Fatal(err)
	}
	ctable, err := versions.Open(ctx, cst, versions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cmnt := t.TempDir()
	csrv, err := fs.Mount(ctx, cmnt, fs.StoreTable{Table: ctable, Store: cst}, fs.Options{RefreshInterval: -1, NoXAttrs: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { csrv.Unmount() })
	before := cst.Counts()
	start := time.Now()
	cversion := filepath.Join(cmnt, "v", fmt.Sprint(ctable.Latest()))
	if _, err := os.Stat(cversion); err != nil {
		t.Fatal(err)
	}
	t.Logf("column-mapped version: first lookup %v, %d requests (snapshot and partition values)",
		time.Since(start).Round(time.Millisecond), cst.Counts().Sub(before).Requests())
	before = cst.Counts()
	ct := timeCmd(t, cversion, []string{"ls", "-lR"})
	creqs := cst.Counts().Sub(before).Requests()
	t.Logf("ls -lR (cold): column-mapped %v, plain %v: %.2fx, %d requests", ct.Round(time.Millisecond), plainCold.Round(time.Millisecond), ct.Seconds()/plainCold.Seconds(), creqs)
	if creqs != 0 {
		t.Errorf("ls -lR over a column-mapped version made %d storage requests, want 0", creqs)
	}
}

func timeCmd(t *testing.T, dir string, args []string) time.Duration {
	t.Helper()
	var stderr strings.Builder
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, io.Discard, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v in %s: %v %s", args, dir, err, stderr.String())
	}
	return time.Since(start)
}

func writeRandomFile(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.CopyN(f, rand.Reader, size); err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, path string) time.Duration {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	start := time.Now()
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf)
	if err != nil || n == 0 {
		t.Fatalf("read %s: %d bytes, %v", path, n, err)
	}
	return time.Since(start)
}
