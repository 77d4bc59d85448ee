package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// dvGenRow is the row type deltagen.WriteDataFile writes.
type dvGenRow struct {
	ID    int64  `parquet:"id"`
	Value string `parquet:"value,optional"`
}

// dvGenFile is what one file of a generated version must serve.
type dvGenFile struct {
	rows    int64    // rows in the stored file (ids 0..rows-1)
	deleted []uint64 // rows the vector deletes
}

// dvGenTable writes a table exercising what the shared tables lack:
//
//	v0  a (1000 rows, 5 row groups), b (300, 3), c (100, 1), d (50, 2): no vectors
//	v1  one DV file holding three vectors at different offsets: a loses rows in
//	    row groups 0, 1 and 4; b loses its whole middle row group; c loses
//	    every row; d gets a 'p' (absolute URI) vector
//	v2  a re-added with another vector; e (40 rows) with an inline vector
//	v3  f with a vector whose CRC is wrong; g with an offset past the end of
//	    its DV file (both must be EIO, never rows)
func dvGenTable(t *testing.T) (dir string, want map[int64]map[string]dvGenFile, broken []string) {
	t.Helper()
	dir = t.TempDir()
	tb := deltagen.New(dir)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const ts = 1_700_000_000_000
	sizes := map[string]int64{}
	mk := func(name string, rows, groups int) action.Action {
		a, err := tb.DataFileAdd(name, rows, groups, nil)
		must(err)
		sizes[name] = a.Add.Size
		return a
	}
	addDV := func(name string, rows int, dv action.DeletionVector) action.Action {
		return deltagen.AddFileDV(name, sizes[name], ts, nil, deltagen.Stats(0, int64(rows)-1), dv)
	}
	schema := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":false,"metadata":{}},{"name":"value","type":"string","nullable":true,"metadata":{}}]}`
	_, err := tb.Commit(deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}),
		deltagen.Metadata(schema, nil, map[string]string{"delta.enableDeletionVectors": "true"}),
		mk("a.parquet", 1000, 5), mk("b.parquet", 300, 3), mk("c.parquet", 100, 1), mk("d.parquet", 50, 2))
	must(err)

	rowsA1 := []uint64{0, 250, 251, 999}
	rowsB := rangeU64(100, 200)
	rowsC := rangeU64(0, 100)
	packed, err := tb.WriteDVFile("xy", rowsA1, rowsB, rowsC)
	must(err)
	abs, err := tb.WriteDVFileAbsolute("dvs/abs.bin", []uint64{1, 49})
	must(err)
	_, err = tb.Commit(
		deltagen.Remove("a.parquet", ts), addDV("a.parquet", 1000, packed[0]),
		deltagen.Remove("b.parquet", ts), addDV("b.parquet", 300, packed[1]),
		deltagen.Remove("c.parquet", ts), addDV("c.parquet", 100, packed[2]),
		deltagen.Remove("d.parquet", ts), addDV("d.parquet", 50, abs[0]))
	must(err)

	rowsA2 := []uint64{5, 600}
	a2, err := tb.WriteDVFile("", rowsA2)
	must(err)
	inline, err := deltagen.InlineDV([]uint64{3})
	must(err)
	write := func(name string, rows, groups int) {
		size, err := tb.WriteDataFile(name, rows, groups)
		must(err)
		sizes[name] = size
	}
	write("e.parquet", 40, 1)
	_, err = tb.Commit(deltagen.RemoveDV("a.parquet", ts, packed[0]), addDV("a.parquet", 1000, a2[0]),
		addDV("e.parquet", 40, inline))
	must(err)

	badCRC, err := tb.WriteDVFile("", []uint64{1})
	must(err)
	p, err := deltagen.DVPath(badCRC[0])
	must(err)
	raw, err := os.ReadFile(filepath.Join(dir, p))
	must(err)
	raw[len(raw)-1] ^= 0xff // the CRC's last byte
	must(os.WriteFile(filepath.Join(dir, p), raw, 0o644))
	past, err := tb.WriteDVFile("", []uint64{2})
	must(err)
	off := int32(4096)
	past[0].Offset = &off
	write("f.parquet", 10, 1)
	write("g.parquet", 10, 1)
	_, err = tb.Commit(addDV("f.parquet", 10, badCRC[0]), addDV("g.parquet", 10, past[0]))
	must(err)

	v0 := map[string]dvGenFile{"a.parquet": {rows: 1000}, "b.parquet": {rows: 300}, "c.parquet": {rows: 100}, "d.parquet": {rows: 50}}
	v1 := map[string]dvGenFile{
		"a.parquet": {1000, rowsA1}, "b.parquet": {300, rowsB}, "c.parquet": {100, rowsC}, "d.parquet": {50, []uint64{1, 49}},
	}
	v2 := maps2(v1)
	v2["a.parquet"] = dvGenFile{1000, rowsA2}
	v2["e.parquet"] = dvGenFile{40, []uint64{3}}
	v3 := maps2(v2)
	return dir, map[int64]map[string]dvGenFile{0: v0, 1: v1, 2: v2, 3: v3}, []string{"f.parquet", "g.parquet"}
}

func maps2(m map[string]dvGenFile) map[string]dvGenFile {
	out := make(map[string]dvGenFile, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func rangeU64(lo, hi uint64) []uint64 {
	var out []uint64
	for r := lo; r < hi; r++ {
		out = append(out, r)
	}
	return out
}

// buildDeltafs builds the CLI into a temporary directory.
func buildDeltafs(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("DELTAFS_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "deltafs")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/deltafs")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// binMount runs `deltafs mount` on table and returns the mountpoint and a
// function returning its stderr so far. It stops the mount when the test ends.
func binMount(t *testing.T, bin, table string, args ...string) (string, func() string) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("SKIPPING FUSE MOUNT TEST: /dev/fuse unavailable: %v", err)
	}
	mp := t.TempDir()
	var stderr dvLog
	cmd := exec.Command(bin, append([]string{"mount", table, mp, "--refresh=-1s"}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "ready") {
				ready <- sc.Text()
			}
		}
		close(ready)
	}()
	select {
	case line, ok := <-ready:
		if !ok {
			cmd.Wait()
			t.Fatalf("mount exited before ready: %s", stderr.String())
		}
		_ = line
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("mount not ready after 30s: %s", stderr.String())
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Errorf("mount did not stop on SIGTERM")
		}
	})
	return mp, stderr.String
}

// The generated table's files, with and without deletion vectors, read
// through `deltafs mount` with its defaults and with --no-open (reads
// without opens, through the page cache): the same rows, the same errors.
func TestDVGeneratedTableThroughMount(t *testing.T) {
	dir, want, broken := dvGenTable(t)
	bin := buildDeltafs(t)
	for _, flags := range [][]string{nil, {"--no-open"}} {
		t.Run(strings.Join(append([]string{"defaults"}, flags...), ","), func(t *testing.T) {
			testDVGeneratedThroughMount(t, bin, dir, want, broken, flags...)
		})
	}
}

func testDVGeneratedThroughMount(t *testing.T, bin, dir string, want map[int64]map[string]dvGenFile, broken []string, flags ...string) {
	mp, stderr := binMount(t, bin, dir, append([]string{"--xattrs"}, flags...)...) // deletedRows below
	counts := map[int64]int64{}
	for v := int64(0); v <= 3; v++ {
		vdir := filepath.Join(mp, "v", fmt.Sprint(v))
		for name, f := range want[v] {
			data, err := os.ReadFile(filepath.Join(vdir, name))
			if err != nil {
				t.Fatalf("v%d/%s: %v\n%s", v, name, err, stderr())
			}
			fi, err := os.Stat(filepath.Join(vdir, name))
			if err != nil || fi.Size() != int64(len(data)) {
				t.Fatalf("v%d/%s: stat %v, %v; read %d bytes", v, name, fi, err, len(data))
			}
			rows, err := parquet.Read[dvGenRow](bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("v%d/%s is not valid Parquet: %v", v, name, err)
			}
			var wantIDs, gotIDs []int64
			for i := int64(0); i < f.rows; i++ {
				if !slices.Contains(f.deleted, uint64(i)) {
					wantIDs = append(wantIDs, i)
				}
			}
			for _, r := range rows {
				gotIDs = append(gotIDs, r.ID)
				if r.Value != deltagen.RowValue(r.ID) {
					t.Fatalf("v%d/%s: row %d has value %q", v, name, r.ID, r.Value)
				}
			}
			if !slices.Equal(gotIDs, wantIDs) {
				t.Fatalf("v%d/%s: %d rows, want %d (first differences: got %v want %v)", v, name,
					len(gotIDs), len(wantIDs), head(gotIDs), head(wantIDs))
			}
			if got, err := getxattrString(filepath.Join(vdir, name), "user.delta.deletedRows"); err != nil || got != fmt.Sprint(len(f.deleted)) {
				t.Errorf("v%d/%s: deletedRows %q, %v; want %d", v, name, got, err, len(f.deleted))
			}
			counts[v] += int64(len(wantIDs))
		}
	}
	for _, name := range broken {
		p := filepath.Join(mp, "v", "3", name)
		if _, err := os.Stat(p); !errors.Is(err, syscall.EIO) {
			t.Errorf("stat v3/%s: %v, want EIO", name, err)
		}
		if _, err := os.ReadFile(p); !errors.Is(err, syscall.EIO) {
			t.Errorf("read v3/%s: %v, want EIO", name, err)
		}
	}
	// stderr reaches us through a pipe copied by another goroutine: wait a
	// little for the lines.
	named := func(logs string) bool {
		return strings.Contains(logs, "bad CRC") && strings.Contains(logs, "f.parquet") && strings.Contains(logs, "g.parquet") &&
			strings.Contains(logs, "deletion_vector_") && strings.Contains(logs, "past end of file")
	}
	for deadline := time.Now().Add(5 * time.Second); !named(stderr()) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	logs := stderr()
	if !strings.Contains(logs, "bad CRC") || !strings.Contains(logs, "f.parquet") || !strings.Contains(logs, "g.parquet") ||
		!strings.Contains(logs, "deletion_vector_") || !strings.Contains(logs, "past end of file") {
		t.Errorf("log lines do not name the broken objects:\n%s", logs)
	}
	// Real readers agree: pyarrow and DuckDB count the same rows (v3 without
	// its two broken files).
	checkWithPython(t, mp, counts, broken)

	// `deltafs ls --json` reports the served size of DV files.
	out, err := exec.Command(bin, "ls", "--json", "--version", "2", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var e struct {
			Path       string `json:"path"`
			Size       int64  `json:"size"`
			ServedSize *int64 `json:"servedSize"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(mp, "v", "2", e.Path))
		if err != nil || e.ServedSize == nil || *e.ServedSize != fi.Size() {
			t.Errorf("ls --json %s: servedSize %v, mount size %v (%v)", e.Path, e.ServedSize, fi, err)
		}
	}
}

// dvLog collects a mount's stderr, written from exec's goroutine.
type dvLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *dvLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *dvLog) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func head(s []int64) []int64 { return s[:min(len(s), 8)] }

func getxattrString(path, name string) (string, error) {
	buf := make([]byte, 256)
	n, err := syscall.Getxattr(path, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// checkWithPython counts the rows of each version directory with pyarrow
// and DuckDB from the project venv; skipped (loudly) without one.
func checkWithPython(t *testing.T, mp string, counts map[int64]int64, skip []string) {
	t.Helper()
	py, err := filepath.Abs(filepath.Join("..", ".venv", "bin", "python"))
	if err == nil {
		_, err = os.Stat(py)
	}
	if err != nil {
		t.Logf("SKIPPING pyarrow/DuckDB check: no venv python (make venv): %v", err)
		return
	}
	script := `
import sys, json, glob, os, pyarrow.parquet as pq, duckdb
mp, skip = sys.argv[1], set(json.loads(sys.argv[2]))
out = {}
for v in json.loads(sys.argv[3]):
    files = sorted(f for f in glob.glob(f"{mp}/v/{v}/*.parquet") if os.path.basename(f) not in skip)
    a = sum(pq.read_table(f).num_rows for f in files)
    d = duckdb.sql("select count(*) from read_parquet($f)", params={"f": files}).fetchall()[0][0]
    out[v] = [a, d]
print(json.dumps(out))
`
	vs := []int64{0, 1, 2, 3}
	skipJSON, _ := json.Marshal(skip)
	vsJSON, _ := json.Marshal(vs)
	cmd := exec.Command(py, "-c", script, mp, string(skipJSON), string(vsJSON))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var got map[string][2]int64
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("python output %q: %v", out, err)
	}
	for _, v := range vs {
		c := got[fmt.Sprint(v)]
		if c[0] != counts[v] || c[1] != counts[v] {
			t.Errorf("v%d: pyarrow %d rows, DuckDB %d, want %d", v, c[0], c[1], counts[v])
		}
	}
}
