package fs

import (
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

func TestRootAndVersionsListing(t *testing.T) {
	m := mountFake(t, standardTable(t), Options{})
	if got, want := names(t, m.dir), "at changes history.jsonl latest v"; got != want {
		t.Errorf("ls / = %q, want %q", got, want)
	}
	if got, want := names(t, m.path("v")), "0 1"; got != want {
		t.Errorf("ls v = %q, want %q", got, want)
	}
	if n := m.table.snapshotN.Load(); n != 0 {
		t.Errorf("listing v/ built %d snapshots, want 0", n)
	}
	// `ls -l v/`: each version is timed by its commit, none is built.
	h, _ := m.table.History(t.Context())
	for v, e := range h {
		fi, err := os.Stat(m.path("v/" + strconv.Itoa(v)))
		if err != nil {
			t.Fatal(err)
		}
		if want := time.UnixMilli(*e.Instant); !fi.ModTime().Equal(want) || !fi.IsDir() {
			t.Errorf("stat v/%d: %v, mtime %v; want a directory of %v", v, fi.Mode(), fi.ModTime(), want)
		}
	}
	if n := m.table.snapshotN.Load(); n != 0 {
		t.Errorf("stat of every version asked for %d snapshots, want 0", n)
	}
	// The first look inside builds the version, once.
	for range 2 {
		es, err := os.ReadDir(m.path("v/1"))
		if err != nil || len(es) == 0 {
			t.Fatalf("ls v/1: %v, %v", es, err)
		}
		if _, err := os.Stat(m.path("v/1/" + es[0].Name())); err != nil {
			t.Fatal(err)
		}
	}
	if n := m.table.snapshotN.Load(); n != 1 {
		t.Errorf("looking inside v/1 asked for %d snapshots, want 1", n)
	}
}

func TestVersionNamesMustBeCanonical(t *testing.T) {
	m := mountFake(t, standardTable(t), Options{})
	for _, name := range []string{"007", "00", "01", "-1", "+1", "abc", "1a", " 1", "2", "99999999999999999999", "1.0"} {
		_, err := os.Stat(m.path("v/" + name))
		if !errors.Is(err, syscall.ENOENT) {
			t.Errorf("stat v/%s: err = %v, want ENOENT", name, err)
		}
	}
	for _, name := range []string{"0", "1"} {
		if fi, err := os.Stat(m.path("v/" + name)); err != nil || !fi.IsDir() {
			t.Errorf("stat v/%s = %v, %v", name, fi, err)
		}
	}
}

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"8641", 8641, true}, {"9223372036854775807", 1<<63 - 1, true},
		{"", 0, false}, {"007", 0, false}, {"00", 0, false}, {"-1", 0, false}, {"+1", 0, false},
		{"abc", 0, false}, {"9223372036854775808", 0, false}, {"1e3", 0, false},
	} {
		got, ok := parseVersion(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseVersion(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPartitionTree(t *testing.T) {
	m := mountFake(t, standardTable(t), Options{})
	for dir, want := range map[string]string{
		"v/0":                        "date=2024-01-01 small.parquet",
		"v/1":                        "big.bin date=2024-01-01 date=2024-01-02 dv.parquet empty.parquet missing.parquet small.parquet",
		"v/1/date=2024-01-02":        "nested part-1.parquet",
		"v/1/date=2024-01-02/nested": "deep.parquet",
	} {
		if got := names(t, m.path(dir)); got != want {
			t.Errorf("ls %s = %q, want %q", dir, got, want)
		}
	}
	for _, missing := range []string{"v/0/big.bin", "v/1/date=2024-01-03", "v/1/date=2024-01-0", "v/1/date=2024-01-02/part-1", "v/1/_delta_log"} {
		if _, err := os.Stat(m.path(missing)); !errors.Is(err, syscall.ENOENT) {
			t.Errorf("stat %s: err = %v, want ENOENT", missing, err)
		}
	}
}

func TestStatFromSnapshot(t *testing.T) {
	tbl := standardTable(t)
	m := mountFake(t, tbl, Options{})
	warmDVSizes(t, m)
	for _, f := range tbl.snaps[1].Files {
		fi, err := os.Stat(m.path("v/1/" + f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if f.DV == nil && fi.Size() != f.Size { // DV files: the filtered size (dv_test.go)
			t.Errorf("%s: size %d, want %d", f.Path, fi.Size(), f.Size)
		}
		if want := time.UnixMilli(f.ModTime); !fi.ModTime().Equal(want) {
			t.Errorf("%s: mtime %v, want %v", f.Path, fi.ModTime(), want)
		}
		if fi.Mode() != 0o444 {
			t.Errorf("%s: mode %v, want -r--r--r--", f.Path, fi.Mode())
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Ino != ino(1, kindFile, f.Path) {
			t.Errorf("%s: ino %d, want the hash %d", f.Path, st.Ino, ino(1, kindFile, f.Path))
		}
	}
	for _, d := range []string{"v", "v/1", "v/1/date=2024-01-02"} {
		fi, err := os.Stat(m.path(d))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != iofs.ModeDir|0o555 {
			t.Errorf("%s: mode %v, want dr-xr-xr-x", d, fi.Mode())
		}
	}
	if reads := tbl.readN.Load(); reads != 0 {
		t.Errorf("stat made %d storage reads", reads)
	}
}

// stat, ls -l, find and xattr reads are answered from the log alone.
func TestMetadataMakesNoStorageRequest(t *testing.T) {
	tbl := standardTable(t)
	m := mountFake(t, tbl, Options{})
	warmDVSizes(t, m)
	for _, v := range []string{"v/0", "v/1"} {
		n := 0
		err := filepath.WalkDir(m.path(v), func(p string, d iofs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if _, err := os.Lstat(p); err != nil {
				return err
			}
			if _, err := d.Info(); err != nil {
				return err
			}
			if !d.IsDir() {
				buf := make([]byte, 256)
				if _, err := syscall.Getxattr(p, "user.delta.partitionValues", buf); err != nil {
					return err
				}
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n < 3 {
			t.Fatalf("walked only %d entries of %s", n, v)
		}
	}
	if reads := tbl.readN.Load(); reads != 0 {
		t.Errorf("walking the tree made %d storage reads, want 0", reads)
	}
}

// A version directory passes the standard file-system conformance checks,
// which read every file.
func TestFSTestOverVersionDir(t *testing.T) {
	tbl := newFakeTable(t)
	tbl.addVersion(t, "WRITE", []fakeFile{
		{path: "a.parquet", size: 100, modTime: mtime0, records: 1},
		{path: "b.parquet", size: 3*testBlock + 5, modTime: mtime0, records: 1},
		{path: "empty.parquet", size: 0, modTime: mtime0, records: 0},
		{path: "x=1/y=2/c.parquet", size: 2000, modTime: mtime1, records: 1},
		{path: "x=1/d.parquet", size: 10, modTime: mtime1, records: 1},
		{path: "x=2/e.parquet", size: testBlock, modTime: mtime1, records: 1},
	}, true)
	m := mountFake(t, tbl, Options{})
	if err := fstest.TestFS(os.DirFS(m.path("v/0")),
		"a.parquet", "b.parquet", "empty.parquet", "x=1/y=2/c.parquet", "x=1/d.parquet", "x=2/e.parquet"); err != nil {
		t.Fatal(err)
	}
}
