package tests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestPassthroughLocalFiles: the kernel reads a local table's plain data
// files of 1 MiB and more straight from their files (no read reaches the
// store), with the exact bytes through read and pread; with NoPassthrough
// every read goes through the mount. A smaller file is read through the
// mount once, and its pages then kept from one open to the next.
func TestPassthroughLocalFiles(t *testing.T) {
	requireFUSE(t)
	if why := noPassthrough(); why != "" {
		t.Skipf("FUSE PASSTHROUGH UNAVAILABLE, NOT TESTED: %s", why)
	}
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	mustCommit(t, gen, mustAdd(t, gen, "part-0.parquet", 300000), mustAdd(t, gen, "small.parquet", 1000))
	want, err := os.ReadFile(filepath.Join(dir, "part-0.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 1<<20 {
		t.Fatalf("part-0.parquet is %d bytes: too small to be passed through", len(want))
	}
	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoPassthrough=%v", off), func(t *testing.T) {
			m := mountForTest(t, dir, fs.Options{NoPassthrough: off, RefreshInterval: -1})
			st, mp := m.store, m.dir
			p := filepath.Join(mp, "latest", "part-0.parquet")
			if _, err := os.Stat(p); err != nil {
				t.Fatal(err)
			}
			before := st.Counts()
			got, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("read %d bytes (want %d equal ones): %v", len(got), len(want), err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, r := range [][2]int{{0, 4}, {len(want) - 8, 8}, {len(want) / 3, 1000}} {
				buf := make([]byte, r[1])
				if _, err := f.ReadAt(buf, int64(r[0])); err != nil || !bytes.Equal(buf, want[r[0]:r[0]+r[1]]) {
					t.Errorf("pread(%d, %d): %v", r[0], r[1], err)
				}
			}
			gets := st.Counts().Sub(before).Gets
			if !off && gets != 0 {
				t.Errorf("%d reads reached the store: the file was not passed through", gets)
			}
			if off && gets == 0 {
				t.Error("no read reached the store with NoPassthrough")
			}
			small := filepath.Join(mp, "latest", "small.parquet")
			before = st.Counts()
			for range 3 {
				if _, err := os.ReadFile(small); err != nil {
					t.Fatal(err)
				}
			}
			if gets := st.Counts().Sub(before).Gets; gets != 1 {
				t.Errorf("3 reads of a small file made %d reads of the store, want 1 (not passed through, pages kept)", gets)
			}
		})
	}
}

// noPassthrough says why this machine cannot pass files through (FUSE
// passthrough needs Linux 6.9 and a mount by root), or "".
func noPassthrough() string {
	if os.Geteuid() != 0 {
		return "not root"
	}
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	var major, minor int
	if _, err := fmt.Sscanf(b.String(), "%d.%d", &major, &minor); err != nil || major < 6 || major == 6 && minor < 9 {
		return "kernel " + b.String() + " (passthrough needs 6.9)"
	}
	return ""
}
