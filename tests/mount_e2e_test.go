package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
)

// refusedAnywhere reports whether deltafs refuses the table (at least its
// latest version); such tables are not mounted here (see
// TestMountBinaryRefusesTables for what the mount says about them).
func refusedAnywhere(table string) bool {
	_, a := refusedTables[table]
	_, b := negativeReasons[table]
	return a || b
}

// TestMountSharedTables mounts every readable shared table and checks, for
// every version in its oracle: v/ lists exactly the oracle's versions,
// latest links to the newest, the files under v/N are exactly the live files
// of the snapshot (no more, no less: tombstones, orphans, _delta_log and
// _change_data stay hidden), their stat sizes are the add sizes, their bytes
// are the source file's bytes, files whose object is missing give EIO with
// a log line naming the object (ENOENT where latest no longer has the
// file: removed since, and vacuumed), and files with deletion vectors give
// EIO (until the DV view lands).
func TestMountSharedTables(t *testing.T) {
	requireFUSE(t)
	dir := TestdataDir(t)
	var mounted, versionsChecked int
	var mu sync.Mutex
	for _, it := range LoadInventory(t, dir) {
		if refusedAnywhere(it.Table) || len(it.Expects) == 0 {
			continue
		}
		mounted++
		versionsChecked += len(it.Expects)
		t.Run(it.Table, func(t *testing.T) {
			t.Parallel()
			notes := checkMountedTable(t, filepath.Join(dir, it.Table), it)
			if notes != "" {
				mu.Lock()
				t.Log(notes)
				mu.Unlock()
			}
		})
	}
	t.Logf("mounted %d shared tables, %d versions", mounted, versionsChecked)
	if mounted == 0 {
		t.Fatal("no shared table was mounted")
	}
}

func checkMountedTable(t *testing.T, tableDir string, it InventoryTable) string {
	m := mountForTest(t, tableDir, fs.Options{RefreshInterval: -1})
	ctx := context.Background()

	var want []string
	for _, e := range it.Expects {
		want = append(want, strconv.FormatInt(e.Version, 10))
	}
	slices.Sort(want) // os.ReadDir sorts by name
	entries, err := os.ReadDir(filepath.Join(m.dir, "v"))
	if err != nil {
		t.Fatalf("ls v/: %v", err)
	}
	var got []string
	for _, e := range entries {
		if !e.IsDir() {
			t.Errorf("v/%s is not a directory", e.Name())
		}
		got = append(got, e.Name())
	}
	if !sameStrings(got, want) {
		t.Errorf("ls v/: got %v, want the oracle's versions %v", got, want)
	}
	if link, wantLink := readlink(t, filepath.Join(m.dir, "latest")), fmt.Sprintf("v/%d", it.LatestVersion); link != wantLink {
		t.Errorf("readlink latest = %q, want %q", link, wantLink)
	}
	if info, err := os.Lstat(filepath.Join(m.dir, "latest")); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("latest is not a symlink: %v %v", info, err)
	}

	source := map[string][]byte{} // path -> bytes on disk; nil: absent
	var dvNotes []string
	latest, err := m.table.Snapshot(ctx, it.LatestVersion)
	if err != nil {
		t.Fatalf("latest, v%d: snapshot: %v", it.LatestVersion, err)
	}
	for _, e := range it.Expects {
		snap, err := m.table.Snapshot(ctx, e.Version)
		if err != nil {
			t.Errorf("v%d: snapshot: %v", e.Version, err)
			continue
		}
		wantFiles := e.Files
		if n, ok := oracleDisagreements[it.Table][e.Version]; ok {
			wantFiles = n
		}
		if len(snap.Files) != wantFiles {
			t.Errorf("v%d: snapshot has %d live files, oracle says %d", e.Version, len(snap.Files), wantFiles)
		}
		live := map[string]action.File{}
		var wantNames []string
		for _, f := range snap.Files {
			if action.IsExternal(f.Path) {
				continue // outside the table root: not shown
			}
			live[f.Path] = f
			wantNames = append(wantNames, f.Path)
		}
		slices.Sort(wantNames)

		vdir := filepath.Join(m.dir, "v", strconv.FormatInt(e.Version, 10))
		names, err := walkFiles(vdir)
		if err != nil {
			t.Errorf("v%d: walk: %v", e.Version, err)
			continue
		}
		if !sameStrings(names, wantNames) {
			t.Errorf("v%d: files under v/%d:\n got  %q\n want %q", e.Version, e.Version, names, wantNames)
			continue
		}
		for _, name := range names {
			f := live[name]
			mounted := filepath.Join(vdir, filepath.FromSlash(name))
			if f.DV != nil {
				// Until the DV view lands: listed, but open and read give
				// EIO. Once it has landed (stat then reports the filtered
				// size, or fails if filtering fails), the reader tests
				// check these files; here they are only noted.
				if info, err := os.Stat(mounted); err != nil || info.Size() != f.Size {
					dvNotes = append(dvNotes, fmt.Sprintf("v%d/%s (stat: %v)", e.Version, name, err))
					continue
				}
			} else if info, err := os.Stat(mounted); err != nil {
				t.Errorf("v%d/%s: stat: %v", e.Version, name, err)
				continue
			} else if info.Size() != f.Size || !info.Mode().IsRegular() || info.Mode().Perm() != 0o444 {
				t.Errorf("v%d/%s: stat says %v %d bytes, want -r--r--r-- and the add size %d", e.Version, name, info.Mode(), info.Size(), f.Size)
			}
			src, seen := source[name]
			if !seen {
				if b, err := os.ReadFile(filepath.Join(tableDir, filepath.FromSlash(name))); err == nil {
					src = b
				}
				source[name] = src
			}
			data, err := os.ReadFile(mounted)
			switch {
			case f.DV != nil:
				if err == nil && f.DeletedRows() > 0 && bytes.Equal(data, src) {
					t.Errorf("v%d/%s: served the stored bytes of a file whose deletion vector removes %d rows", e.Version, name, f.DeletedRows())
				} else if err == nil {
					// The DV view has landed: the filtered bytes are checked
					// by the reader tests, not here.
					dvNotes = append(dvNotes, fmt.Sprintf("v%d/%s", e.Version, name))
				} else if !errors.Is(err, syscall.EIO) {
					t.Errorf("v%d/%s has a deletion vector: want EIO, got %v", e.Version, name, err)
				}
			case src == nil:
				want := syscall.EIO // a broken table: latest serves the file
				if e.Version < it.LatestVersion && latest.Find(name) == nil {
					want = syscall.ENOENT // removed since, and vacuumed
				}
				if !errors.Is(err, want) {
					t.Errorf("v%d/%s: object absent from storage: want %v, got %d bytes, %v", e.Version, name, want, len(data), err)
				} else if !strings.Contains(m.logs.String(), name) {
					t.Errorf("v%d/%s: %v without a log line naming the object; log:\n%s", e.Version, name, want, m.logs.String())
				}
			case err != nil:
				t.Errorf("v%d/%s: read through the mount: %v", e.Version, name, err)
			case int64(len(src)) != f.Size:
				// The log and the object disagree; the mount must not
				// invent bytes either way.
				if len(data) > 0 && !bytes.HasPrefix(src, data) {
					t.Errorf("v%d/%s: object is %d bytes, log says %d, and the mount's bytes differ", e.Version, name, len(src), f.Size)
				}
			case !bytes.Equal(data, src):
				t.Errorf("v%d/%s: %d bytes through the mount differ from the %d source bytes", e.Version, name, len(data), len(src))
			}
		}
		for _, name := range names {
			if live[name].DV == nil {
				checkXattrs(t, filepath.Join(vdir, filepath.FromSlash(name)), e.Version, live[name])
				break
			}
		}
	}
	if len(dvNotes) > 0 {
		return fmt.Sprintf("NOTE: DV view present: %d deletion-vector file(s) skipped here (stat size differs from the add or stat fails; the reader tests check their rows): %v",
			len(dvNotes), dvNotes)
	}
	return ""
}

// checkXattrs reads a few user.delta.* attributes and compares them with the
// snapshot.
func checkXattrs(t *testing.T, path string, version int64, f action.File) {
	t.Helper()
	want := map[string]string{
		"user.delta.version": strconv.FormatInt(version, 10),
		"user.delta.path":    f.Path,
		"user.delta.size":    strconv.FormatInt(f.Size, 10),
	}
	for name, w := range want {
		buf := make([]byte, 4096)
		n, err := syscall.Getxattr(path, name, buf)
		if err != nil {
			t.Errorf("getxattr %s %s: %v", path, name, err)
			continue
		}
		if got := string(buf[:n]); got != w {
			t.Errorf("getxattr %s %s = %q, want %q", path, name, got, w)
		}
	}
}

// fstestCases are mounted version directories that testing/fstest checks:
// nested partitions, escaped characters, special characters in partition
// values, a version rebuilt from a checkpoint. (Big files are the parallel
// readers' business: TestFS reads every file many times over.)
var fstestCases = []struct {
	table   string
	version int64
}{
	{"dat/reader_tests/generated/multi_partitioned/delta", 1},
	{"delta-rs/data/partition-type-primitives", -1},
	{"delta-kernel-rs/golden_data/data-reader-escaped-chars/delta", -1},
	{"delta-kernel-rs/golden_data/hive/delta/deltatbl-special-chars-in-partition-column", 0},
	{"delta-rs/data/simple_table_with_checkpoint", -1},
}

// TestMountFSTest runs testing/fstest.TestFS on mounted version
// directories, expecting exactly the snapshot's files.
func TestMountFSTest(t *testing.T) {
	requireFUSE(t)
	dir := TestdataDir(t)
	for _, c := range fstestCases {
		t.Run(c.table, func(t *testing.T) {
			m := mountForTest(t, filepath.Join(dir, c.table), fs.Options{RefreshInterval: -1})
			v := c.version
			if v < 0 {
				v = m.table.Latest()
			}
			snap, err := m.table.Snapshot(context.Background(), v)
			if err != nil {
				t.Fatal(err)
			}
			var expected []string
			for _, f := range snap.Files {
				if f.DV != nil {
					t.Fatalf("%s has a deletion vector: pick a version without", f.Path)
				}
				expected = append(expected, f.Path)
			}
			if len(expected) == 0 {
				t.Fatal("version has no files: pick another")
			}
			vdir := filepath.Join(m.dir, "v", strconv.FormatInt(v, 10))
			if err := fstest.TestFS(os.DirFS(vdir), expected...); err != nil {
				t.Errorf("fstest.TestFS on v/%d:\n%v", v, err)
			}
		})
	}
}

// TestMountParallelReaders has 8 goroutines read 8 different files of one
// version at once, sequentially and at random offsets, through a small
// block size (many blocks, cache hits and read-ahead), and compares every
// byte with the source. Run it with -race.
func TestMountParallelReaders(t *testing.T) {
	requireFUSE(t)
	const table = "delta-rs/data/COVID-19_NYT"
	tableDir := filepath.Join(TestdataDir(t), table)
	m := mountForTest(t, tableDir, fs.Options{RefreshInterval: -1, BlockSize: 16 << 10, CacheBytes: 1 << 20})
	snap, err := m.table.Snapshot(context.Background(), m.table.Latest())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Files) < 8 {
		t.Fatalf("%s has %d files, need 8", table, len(snap.Files))
	}
	files := slices.Clone(snap.Files)
	slices.SortFunc(files, func(a, b action.File) int { return strings.Compare(a.Path, b.Path) })
	files = files[:8]
	vdir := filepath.Join(m.dir, "latest")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- readAndCompare(filepath.Join(tableDir, f.Path), filepath.Join(vdir, f.Path), uint64(i))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// readAndCompare reads mounted sequentially in odd-sized chunks, then at 200
// random offsets, and compares with src.
func readAndCompare(src, mounted string, seed uint64) error {
	want, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	f, err := os.Open(mounted)
	if err != nil {
		return err
	}
	defer f.Close()
	var got bytes.Buffer
	buf := make([]byte, 12345)
	if _, err := io.CopyBuffer(&got, struct{ io.Reader }{f}, buf); err != nil {
		return fmt.Errorf("%s: sequential read: %w", mounted, err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		return fmt.Errorf("%s: sequential read: %d bytes differ from the %d source bytes", mounted, got.Len(), len(want))
	}
	rng := rand.New(rand.NewPCG(seed, 42))
	for range 200 {
		off := rng.Int64N(int64(len(want)))
		n := 1 + rng.IntN(70000)
		p := make([]byte, n)
		k, err := f.ReadAt(p, off)
		if err != nil && !(errors.Is(err, io.EOF) && off+int64(k) == int64(len(want))) {
			return fmt.Errorf("%s: ReadAt(%d, %d): %w", mounted, off, n, err)
		}
		if !bytes.Equal(p[:k], want[off:off+int64(k)]) {
			return fmt.Errorf("%s: ReadAt(%d, %d): bytes differ", mounted, off, n)
		}
	}
	return nil
}

// TestMountReadOnly checks that everything that would change the mount fails
// with EROFS.
func TestMountReadOnly(t *testing.T) {
	requireFUSE(t)
	m := mountForTest(t, filepath.Join(TestdataDir(t), "dat/reader_tests/generated/basic_partitioned/delta"),
		fs.Options{RefreshInterval: -1})
	snap, err := m.table.Snapshot(context.Background(), m.table.Latest())
	if err != nil {
		t.Fatal(err)
	}
	vdir := filepath.Join(m.dir, "v", strconv.FormatInt(snap.Version, 10))
	file := filepath.Join(vdir, snap.Files[0].Path)
	sub := filepath.Dir(file)
	ops := []struct {
		name string
		do   func() error
	}{
		{"open data file O_WRONLY", func() error { return closeIfOpen(os.OpenFile(file, os.O_WRONLY, 0)) }},
		{"open data file O_RDWR", func() error { return closeIfOpen(os.OpenFile(file, os.O_RDWR, 0)) }},
		{"open data file O_TRUNC", func() error { return closeIfOpen(os.OpenFile(file, os.O_RDONLY|os.O_TRUNC, 0)) }},
		{"append history.jsonl", func() error {
			return closeIfOpen(os.OpenFile(filepath.Join(m.dir, "history.jsonl"), os.O_WRONLY|os.O_APPEND, 0))
		}},
		{"create in v/N", func() error { return closeIfOpen(os.Create(filepath.Join(vdir, "new.parquet"))) }},
		{"create in a partition dir", func() error { return closeIfOpen(os.Create(filepath.Join(sub, "new.parquet"))) }},
		{"create at root", func() error { return closeIfOpen(os.Create(filepath.Join(m.dir, "x"))) }},
		{"mkdir in v/", func() error { return os.Mkdir(filepath.Join(m.dir, "v", "999"), 0o755) }},
		{"mkdir in v/N", func() error { return os.Mkdir(filepath.Join(vdir, "d"), 0o755) }},
		{"remove data file", func() error { return os.Remove(file) }},
		{"rmdir v/N", func() error { return syscall.Rmdir(vdir) }},
		{"remove latest", func() error { return os.Remove(filepath.Join(m.dir, "latest")) }},
		{"rename data file", func() error { return os.Rename(file, file+".x") }},
		{"rename v/N", func() error { return os.Rename(vdir, vdir+"0") }},
		{"symlink in v/N", func() error { return os.Symlink("x", filepath.Join(vdir, "link")) }},
		{"hard link", func() error { return os.Link(file, filepath.Join(vdir, "hard")) }},
		{"chmod", func() error { return os.Chmod(file, 0o644) }},
		{"truncate", func() error { return os.Truncate(file, 0) }},
		{"chtimes", func() error { return os.Chtimes(file, time.Unix(0, 0), time.Unix(0, 0)) }},
		{"setxattr", func() error { return syscall.Setxattr(file, "user.delta.x", []byte("1"), 0) }},
		{"removexattr", func() error { return syscall.Removexattr(file, "user.delta.size") }},
	}
	for _, op := range ops {
		if err := op.do(); !errors.Is(err, syscall.EROFS) {
			t.Errorf("%s: want EROFS, got %v", op.name, err)
		}
	}
	// And nothing changed.
	if names, err := walkFiles(vdir); err != nil || len(names) != len(snap.Files) {
		t.Errorf("after the write attempts: %d files (want %d), %v", len(names), len(snap.Files), err)
	}
	if data, err := os.ReadFile(file); err != nil || int64(len(data)) != snap.Files[0].Size {
		t.Errorf("after the write attempts: read %d bytes (want %d), %v", len(data), snap.Files[0].Size, err)
	}
}

func closeIfOpen(f *os.File, err error) error {
	if f != nil {
		f.Close()
	}
	return err
}
