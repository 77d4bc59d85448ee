package fs

import (
	"context"
	"os"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// LocalFile serves no file as a local one: a fake table reads every byte
// itself, local or not.
func (f *fakeTable) LocalFile(path string) (func() (*os.File, int64, error), bool) { return nil, false }

func (f *fakeTable) HasLocalFiles() bool { return f.local }

// The kernel opens files alone where an open would hand it nothing: a
// local table read through the page cache whose files are not passed
// through, as none can be or none is large enough; the options can force
// either way.
func TestLeaveOpensToKernel(t *testing.T) {
	large := standardTable(t)
	large.local = true
	large.addVersion(t, "WRITE", []fakeFile{{path: "large.parquet", size: passthroughMin, modTime: mtime1, records: 1}}, true)
	small := standardTable(t)
	small.local = true
	remote := standardTable(t)
	offered := uint64(fuse.CAP_PASSTHROUGH)
	root := os.Geteuid() == 0
	for _, c := range []struct {
		name     string
		o        Options
		t        Table
		directIO bool
		kernel   uint64
		want     bool
	}{
		{"local table, a file to pass through", Options{}, large, false, offered, !root},
		{"local table, every file small", Options{}, small, false, offered, true},
		{"local table, NoPassthrough", Options{NoPassthrough: true}, large, false, offered, true},
		{"local table, kernel without passthrough", Options{}, large, false, 0, true},
		{"local table, direct I/O", Options{NoPassthrough: true}, small, true, offered, false},
		{"local table, AlwaysOpen", Options{AlwaysOpen: true}, small, false, 0, false},
		{"object store", Options{NoPassthrough: true}, remote, false, 0, false},
		{"object store, NoOpen", Options{NoOpen: true}, remote, true, offered, true},
	} {
		why := leaveOpensToKernel(context.Background(), c.o, c.t, c.directIO, c.kernel)
		if got := why != ""; got != c.want {
			t.Errorf("%s: %v (%q), want %v", c.name, got, why, c.want)
		}
	}
}

// Left to the kernel, files are opened once (the ENOSYS); AlwaysOpen
// makes every open a request again.
func TestOpensLeftToTheKernelOnALocalTable(t *testing.T) {
	tbl := standardTable(t)
	tbl.local = true
	for _, always := range []bool{false, true} {
		m := mountFake(t, tbl, Options{NoPassthrough: true, AlwaysOpen: always, Debug: true, RefreshInterval: -1})
		for range 3 {
			if _, err := os.ReadFile(m.path("v/1/small.parquet")); err != nil {
				t.Fatal(err)
			}
		}
		want := 1
		if always {
			want = 3
		}
		if n := fuseRequests(m, "OPEN"); n != want {
			t.Errorf("AlwaysOpen=%v: 3 opens made %d OPEN requests, want %d", always, n, want)
		}
	}
}
