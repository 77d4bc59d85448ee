package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/versions"
)

// hostileFile is an add action whose path, in the table folder, is not a
// plain file of the table.
type hostileFile struct {
	name string // under latest/
	make func(t *testing.T, table, outside string)
	log  string // what the mount's log line says
}

var hostileFiles = []hostileFile{
	{"link.parquet", func(t *testing.T, table, outside string) {
		must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(table, "link.parquet")))
	}, "symbolic link"},
	{"linkdir/part-0.parquet", func(t *testing.T, table, outside string) {
		must(t, os.Symlink(outside, filepath.Join(table, "linkdir")))
	}, "symbolic link"},
	{"inner-link.parquet", func(t *testing.T, table, outside string) {
		// A link that stays inside the folder is refused too: no link is followed.
		must(t, os.Symlink("part-0.parquet", filepath.Join(table, "inner-link.parquet")))
	}, "symbolic link"},
	{"fifo.parquet", func(t *testing.T, table, outside string) {
		must(t, syscall.Mkfifo(filepath.Join(table, "fifo.parquet"), 0o644))
	}, "FIFO"},
	{"folder.parquet", func(t *testing.T, table, outside string) {
		must(t, os.Mkdir(filepath.Join(table, "folder.parquet"), 0o755))
	}, "folder"},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoEscapeThroughLinksOrSpecialFiles: a data file (or a folder on its
// path) that is a symbolic link, a FIFO or a folder is never served: the
// read fails with EIO at once and the mount logs why, with and without
// passthrough; a root-only file outside the table never reaches another
// user of an --allow-other mount. The plain file beside them still reads.
func TestNoEscapeThroughLinksOrSpecialFiles(t *testing.T) {
	requireFUSE(t)
	outside, table := t.TempDir(), t.TempDir()
	secret := bytes.Repeat([]byte("root-only secret\n"), 64)
	must(t, os.WriteFile(filepath.Join(outside, "secret"), secret, 0o600))
	must(t, os.WriteFile(filepath.Join(outside, "part-0.parquet"), secret, 0o600))
	gen := deltagen.New(table)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	adds := []action.Action{mustAdd(t, gen, "part-0.parquet", 100)}
	for _, h := range hostileFiles {
		h.make(t, table, outside)
		adds = append(adds, deltagen.AddFile(h.name, int64(len(secret)), 1, nil, ""))
	}
	mustCommit(t, gen, adds...)

	for _, noPassthrough := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoPassthrough=%v", noPassthrough), func(t *testing.T) {
			m := mountForTest(t, table, fs.Options{NoPassthrough: noPassthrough, RefreshInterval: -1, AllowOther: os.Geteuid() == 0})
			if _, err := os.ReadFile(filepath.Join(m.dir, "latest", "part-0.parquet")); err != nil {
				t.Fatalf("the plain file: %v", err)
			}
			for _, h := range hostileFiles {
				p := filepath.Join(m.dir, "latest", h.name)
				got, err := readWithin(p, time.Minute)
				if err == nil || bytes.Contains(got, []byte("secret")) {
					t.Errorf("%s: read %d bytes, err %v; want EIO", h.name, len(got), err)
				} else if !strings.Contains(err.Error(), "input/output error") {
					t.Errorf("%s: %v, want EIO", h.name, err)
				}
				if !strings.Contains(m.logs.String(), h.name) {
					t.Errorf("%s: no log line names it; log:\n%s", h.name, m.logs.String())
				}
			}
			if !strings.Contains(m.logs.String(), "symbolic link") || !strings.Contains(m.logs.String(), "FIFO") {
				t.Errorf("the log does not say why; log:\n%s", m.logs.String())
			}
			if os.Geteuid() == 0 {
				readAsNobody(t, filepath.Join(m.dir, "latest"))
			}
		})
	}
}

// readAsNobody reads every hostile file of dir as uid 65534 in a child
// process: none may give the secret.
func readAsNobody(t *testing.T, dir string) {
	t.Helper()
	for _, h := range hostileFiles {
		cmd := exec.Command("cat", filepath.Join(dir, h.name))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.Output()
		if err == nil || bytes.Contains(out, []byte("secret")) {
			t.Errorf("uid 65534 read %s: %d bytes, err %v", h.name, len(out), err)
		}
	}
}

// readWithin reads a file in a goroutine, so that a read that blocks (a
// FIFO opened for reading) fails the test instead of hanging it.
func readWithin(p string, limit time.Duration) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := os.ReadFile(p)
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-time.After(limit):
		return nil, fmt.Errorf("read of %s still blocked after %v: hung", p, limit)
	}
}

// TestSizeDisagreeingWithStorage: a data file whose stored size is not
// the log's (smaller, larger) is refused at open with EIO and a log line,
// one with a size of -1 in the log at lookup, with and without
// passthrough (and so with opens left to the kernel), never served as its
// first bytes or as an empty file.
func TestSizeDisagreeingWithStorage(t *testing.T) {
	requireFUSE(t)
	table := t.TempDir()
	gen := deltagen.New(table)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	good := mustAdd(t, gen, "good.parquet", 100)
	var adds []action.Action
	for name, delta := range map[string]int64{"short.parquet": -10, "long.parquet": 10} {
		a := mustAdd(t, gen, name, 100)
		a.Add.Size += delta
		adds = append(adds, a)
	}
	neg := mustAdd(t, gen, "negative.parquet", 100)
	neg.Add.Size = -1
	mustCommit(t, gen, append(adds, good, neg)...)
	for _, noPassthrough := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoPassthrough=%v", noPassthrough), func(t *testing.T) {
			m := mountForTest(t, table, fs.Options{NoPassthrough: noPassthrough, RefreshInterval: -1})
			if _, err := os.ReadFile(filepath.Join(m.dir, "latest", "good.parquet")); err != nil {
				t.Fatalf("the good file: %v", err)
			}
			for _, name := range []string{"short.parquet", "long.parquet", "negative.parquet"} {
				got, err := os.ReadFile(filepath.Join(m.dir, "latest", name))
				if err == nil || !strings.Contains(err.Error(), "input/output error") {
					t.Errorf("%s: read %d bytes, err %v; want EIO", name, len(got), err)
				}
				if !strings.Contains(m.logs.String(), name) {
					t.Errorf("%s: no log line; log:\n%s", name, m.logs.String())
				}
			}
		})
	}
}

// TestFileChangedInPlaceWhileOpen: a data file appended to or truncated
// in place while it is open (which no Delta writer does) is, without
// passthrough, never served past the log's size nor with other bytes:
// each block read checks the file's size, and gives EIO once it changed. (With passthrough the kernel reads the file
// itself: README, "How data files are read".)
func TestFileChangedInPlaceWhileOpen(t *testing.T) {
	requireFUSE(t)
	table := t.TempDir()
	gen := deltagen.New(table)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
		mustAdd(t, gen, "f.parquet", 20000))
	want, err := os.ReadFile(filepath.Join(table, "f.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	m := mountForTest(t, table, fs.Options{NoPassthrough: true, DirectIO: true, RefreshInterval: -1})
	f, err := os.Open(filepath.Join(m.dir, "latest", "f.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stored, err := os.OpenFile(filepath.Join(table, "f.parquet"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stored.Write(bytes.Repeat([]byte("X"), 5000)); err != nil {
		t.Fatal(err)
	}
	stored.Close()
	// Every block read checks the file's size: EIO, whatever the kernel
	// had not cached yet, and never a byte past the log's size.
	got, err := io.ReadAll(f)
	if !errors.Is(err, syscall.EIO) || !bytes.Equal(got, want[:len(got)]) {
		t.Errorf("after an append: %d bytes (%v); want EIO and none but committed ones", len(got), err)
	}
	if !strings.Contains(m.logs.String(), "the log says") {
		t.Errorf("no log line naming the sizes:\n%s", m.logs)
	}
	if err := os.Truncate(filepath.Join(table, "f.parquet"), int64(len(want)/2)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for off := int64(0); off < int64(len(want)); off += int64(len(buf)) {
		n, err := f.ReadAt(buf, off)
		if err != nil && err != io.EOF && !errors.Is(err, syscall.EIO) {
			t.Fatalf("read at %d after a truncation: %v", off, err)
		}
		if err == nil && !bytes.Equal(buf[:n], want[off:off+int64(n)]) {
			t.Fatalf("read at %d after a truncation: bytes the table never held", off)
		}
	}
}

// parquetFooter is a Parquet file of no column data and the given thrift
// footer.
func parquetFooter(footer []byte) []byte {
	b := append([]byte("PAR1"), footer...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(footer)))
	return append(b, "PAR1"...)
}

// Footers parquet-go's thrift decoder died of, taking the process with it:
// a list claiming 2^31-1 schema elements in 9 bytes (206 GB allocated:
// out of memory) and structs nested 20 million deep (the stack overflows).
var deadlyFooters = map[string][]byte{
	"huge-list": {0x15, 0x02, 0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07},
	"deep":      append([]byte{0x15, 0x02, 0xfc}, bytes.Repeat([]byte{0x1c}, 20_000_000)...),
}

// TestDeadlyFootersRefused: a data file with a deletion vector (whose
// footer is decoded to serve it) with such a footer reads as EIO with a
// log line, and the mount goes on serving; a checkpoint with one is an
// error of the version, not the end of the process.
func TestDeadlyFootersRefused(t *testing.T) {
	requireFUSE(t)
	table := t.TempDir()
	gen := deltagen.New(table)
	features := []string{"deletionVectors"}
	mustCommit(t, gen, deltagen.Protocol(3, 7, features, features), deltagen.Metadata(deltagen.SimpleSchema, nil, map[string]string{"delta.enableDeletionVectors": "true"}))
	good := mustAdd(t, gen, "good.parquet", 100)
	mustCommit(t, gen, good)
	for name, footer := range deadlyFooters {
		data := parquetFooter(footer)
		must(t, os.WriteFile(filepath.Join(table, name+".parquet"), data, 0o644))
		add := deltagen.AddFile(name+".parquet", int64(len(data)), 1_700_000_000_000, nil, "")
		mustCommit(t, gen, add)
		commitDV(t, gen, add, 0)
	}
	m := mountForTest(t, table, fs.Options{RefreshInterval: -1})
	for name := range deadlyFooters {
		got, err := os.ReadFile(filepath.Join(m.dir, "latest", name+".parquet"))
		if err == nil || !strings.Contains(err.Error(), "input/output error") {
			t.Errorf("%s: read %d bytes, err %v; want EIO", name, len(got), err)
		}
		if !strings.Contains(m.logs.String(), name+".parquet") {
			t.Errorf("%s: no log line; log:\n%s", name, m.logs.String())
		}
	}
	if _, err := os.ReadFile(filepath.Join(m.dir, "latest", "good.parquet")); err != nil {
		t.Fatalf("the good file after the others: %v", err)
	}

	for name, footer := range deadlyFooters {
		t.Run("checkpoint "+name, func(t *testing.T) {
			table := t.TempDir()
			gen := deltagen.New(table)
			mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
			mustCommit(t, gen, mustAdd(t, gen, "a.parquet", 10))
			must(t, os.WriteFile(gen.ClassicCheckpointPath(1), parquetFooter(footer), 0o644))
			must(t, os.Remove(filepath.Join(gen.LogDir(), fmt.Sprintf("%020d.json", 0)))) // only the checkpoint tells version 1
			st, err := blobstore.Open(context.Background(), table)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			tbl, err := versions.Open(context.Background(), st, versions.Options{})
			if err == nil {
				_, err = tbl.Snapshot(context.Background(), 1)
			}
			if err == nil || !strings.Contains(err.Error(), "footer") {
				t.Fatalf("version 1 from the checkpoint: %v, want the footer refused", err)
			}
		})
	}
}
