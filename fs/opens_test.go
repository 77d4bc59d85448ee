package fs

import (
	"os"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// LocalFile serves no file as a local one: a fake table reads every byte
// itself, local or not.
func (t *fakeTable) LocalFile(path string) (func() (*os.File, int64, error), bool) { return nil, false }

func (t *fakeTable) HasLocalFiles() bool { return t.local }

// The kernel opens files alone where an open would hand it nothing: a
// local table read through the page cache whose files cannot be passed
// through; the options can force either way.
func TestLeaveOpensToKernel(t *testing.T) {
	local, remote := &fakeTable{local: true}, &fakeTable{}
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
		{"local table, passthrough possible", Options{}, local, false, offered, !root},
		{"local table, NoPassthrough", Options{NoPassthrough: true}, local, false, offered, true},
		{"local table, kernel without passthrough", Options{}, local, false, 0, true},
		{"local table, direct I/O", Options{NoPassthrough: true}, local, true, offered, false},
		{"local table, AlwaysOpen", Options{NoPassthrough: true, AlwaysOpen: true}, local, false, 0, false},
		{"object store", Options{NoPassthrough: true}, remote, false, 0, false},
		{"object store, NoOpen", Options{NoOpen: true}, remote, true, offered, true},
	} {
		if got := leaveOpensToKernel(c.o, c.t, c.directIO, c.kernel); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
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
