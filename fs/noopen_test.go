package fs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fuseRequests counts the requests of one kind (OPEN, READ) for the
// mount's nodes in its debug log; go-fuse's own open of node 2^64-1 at
// mount time (its poll work-around, 20 digits) is not counted.
func fuseRequests(m *testMount, op string) int {
	return len(regexp.MustCompile(`rx \d+: `+op+` n\d{1,19} `).FindAllString(m.logs.String(), -1))
}

// With NoOpen the kernel asks deltafs to open a file once (the ENOSYS that
// tells it not to ask again), serves a second open and read of a file
// from the pages it kept, and every file reads as it does through opens:
// plain, split into blocks, served as a view (deletion vector), history.
func TestNoOpen(t *testing.T) {
	tbl := standardTable(t)
	plain := mountFake(t, tbl, Options{Debug: true})
	m := mountFake(t, tbl, Options{NoOpen: true, Debug: true})
	files := []string{"v/1/small.parquet", "v/1/big.bin", "v/1/dv.parquet", "v/1/empty.parquet", "history.jsonl"}
	for _, p := range files {
		want, err := os.ReadFile(plain.path(p))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(m.path(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes without open, %d with", p, len(got), len(want))
		}
	}
	if n := fuseRequests(m, "OPEN"); n != 1 {
		t.Errorf("%d OPEN requests for %d files, want 1 (answered ENOSYS)", n, len(files))
	}
	readThrice := func(m *testMount) {
		for range 3 {
			if _, err := os.ReadFile(m.path("v/1/big.bin")); err != nil {
				t.Fatal(err)
			}
		}
	}
	reads := fuseRequests(m, "READ")
	readThrice(m)
	if n := fuseRequests(m, "READ") - reads; n != 0 {
		t.Errorf("reading big.bin again made %d READ requests, want 0 (pages kept)", n)
	}
	// The same through opens: an OPEN per open, for contrast.
	opens := fuseRequests(plain, "OPEN")
	readThrice(plain)
	if n := fuseRequests(plain, "OPEN") - opens; n != 3 {
		t.Errorf("3 opens made %d OPEN requests, want 3", n)
	}
	// Still read-only, and a file missing from storage still fails.
	if _, err := os.OpenFile(m.path("v/1/small.parquet"), os.O_WRONLY, 0); !errors.Is(err, syscall.EROFS) {
		t.Errorf("open for writing: %v, want EROFS", err)
	}
	if _, err := os.ReadFile(m.path("v/1/missing.parquet")); err == nil {
		t.Error("a file missing from storage read without error")
	}
}

// The kernel opens directories on its own, whatever the options: one
// OPENDIR (the ENOSYS), the same listings with NoOpen and without, long
// ones read in several READDIRs (a handle opened for each, at its
// offset), a second listing from the kernel's cache, and new versions
// listed once refresh has invalidated it.
func TestDirectoriesOpenedByTheKernel(t *testing.T) {
	tbl := standardTable(t)
	var many []fakeFile
	for i := range 600 {
		many = append(many, fakeFile{path: fmt.Sprintf("p=%d/file-with-a-long-name-%04d.parquet", i%3, i), size: 10, modTime: mtime1, records: 1})
	}
	tbl.addVersion(t, "WRITE", many, true)
	noOpen := mountFake(t, tbl, Options{NoOpen: true, RefreshInterval: -1}) // the fake tells one refresher of a new version
	m := mountFake(t, tbl, Options{Debug: true, RefreshInterval: 50 * time.Millisecond})
	dirs := []string{".", "v", "v/1", "v/1/date=2024-01-02", "v/2/p=0", "at", "changes"}
	for _, d := range dirs {
		if got, want := names(t, m.path(d)), names(t, noOpen.path(d)); got != want {
			t.Fatalf("%s: %q, with NoOpen %q", d, got, want)
		}
	}
	if n := fuseRequests(m, "OPENDIR"); n != 1 {
		t.Errorf("%d OPENDIR requests for %d directories, want 1 (answered ENOSYS)", n, len(dirs))
	}
	readdirs := fuseRequests(m, "READDIRPLUS") + fuseRequests(m, "READDIR")
	if readdirs <= len(dirs) {
		t.Errorf("%d READDIR requests for %d directories, one of 200 entries: want more than one for it", readdirs, len(dirs))
	}
	names(t, m.path("v/2/p=0"))
	if n := fuseRequests(m, "READDIRPLUS") + fuseRequests(m, "READDIR") - readdirs; n != 0 {
		t.Errorf("listing v/2/p=0 again made %d READDIR requests, want 0 (kept)", n)
	}
	tbl.addVersion(t, "WRITE", []fakeFile{{path: "new.parquet", size: 10, modTime: mtime1, records: 1}}, false) // for the refresher to find
	for _, d := range []string{"v", "changes"} {
		waitUntil(t, 5*time.Second, d+"/ listing version 3", func() bool { return strings.Contains(" "+names(t, m.path(d))+" ", " 3 ") })
	}
	waitUntil(t, 5*time.Second, "at/ listing 4 instants", func() bool { return len(strings.Fields(names(t, m.path("at")))) == 4 })
}

// A file read without an open holds blocks while it is read and gives them
// back once no read came for sharedIdle: no close will say so, and held
// blocks are a budget every reader shares.
func TestNoOpenReaderGivesBlocksBack(t *testing.T) {
	tbl := standardTable(t)
	m := mountFake(t, tbl, Options{NoOpen: true, ReadAhead: 4})
	f, err := os.Open(m.path("v/1/big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, testBlock)
	for off := int64(0); off < 3*testBlock; off += testBlock {
		if _, err := f.ReadAt(buf, off); err != nil {
			t.Fatal(err)
		}
	}
	if m.root.files.HeldBlocks() == 0 {
		t.Fatal("a sequential reader holds no blocks")
	}
	waitUntil(t, 5*time.Second, "held blocks given back", func() bool { return m.root.files.HeldBlocks() == 0 })
}

// A long listing is built once: the kernel, which opens directories
// itself, asks for a page of entries at a time, each READDIR through a
// handle of its own, and lists the directory again from its cache.
func TestLongListingBuiltOnce(t *testing.T) {
	tbl := standardTable(t)
	var many []fakeFile
	for i := range 3000 {
		many = append(many, fakeFile{path: fmt.Sprintf("flat/file-with-a-long-name-%05d.parquet", i), size: 10, modTime: mtime1, records: 1})
	}
	tbl.addVersion(t, "WRITE", many, true)
	m := mountFake(t, tbl, Options{Debug: true, RefreshInterval: -1})
	for range 2 {
		if got := len(strings.Fields(names(t, m.path("v/2/flat")))); got != len(many) {
			t.Fatalf("listed %d files, want %d", got, len(many))
		}
	}
	readdirs := fuseRequests(m, "READDIRPLUS") + fuseRequests(m, "READDIR")
	if readdirs < 20 {
		t.Errorf("%d READDIR requests for %d long names, want many", readdirs, len(many))
	}
	if n := m.root.listings.Load(); n != 1 {
		t.Errorf("the listing was built %d times over %d READDIRs, want once", n, readdirs)
	}
}
