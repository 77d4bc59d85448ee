package tests

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// dvBenchRow is the row of the benchmark file: about 120 stored bytes, most
// of them incompressible.
type dvBenchRow struct {
	ID      int64  `parquet:"id"`
	TS      int64  `parquet:"ts"`
	Name    string `parquet:"name"`
	Payload []byte `parquet:"payload"`
}

// TestDVReadBenchmark measures what reading a file with a deletion vector
// costs through the mount: a Parquet file of DELTAFS_DV_BENCH_MB MiB
// (default 1024) in 8 row groups, read whole through a mount of a table
// where it has no vector, and through a mount of a table where a vector
// deletes 10 rows of one row group. The plain file is read twice: served
// by deltafs (--passthrough=false), the same read path as the filtered
// file, which the ratio compares with; and passed through to the kernel, as
// deltafs serves a local plain file by default. It reports the times, the
// ratio and the peak RSS of each mount process. Run it with:
//
//	DELTAFS_DV_BENCH=1 go test ./tests -run TestDVReadBenchmark -v -timeout 30m
//
// DELTAFS_DV_BENCH_ARGS adds mount flags (e.g. "--cache-mb 64"); DELTAFS_BIN
// uses a built binary instead of building one.
func TestDVReadBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_DV_BENCH") == "" {
		t.Skip("set DELTAFS_DV_BENCH=1 to run the deletion vector read benchmark")
	}
	mib := int64(1024)
	if s := os.Getenv("DELTAFS_DV_BENCH_MB"); s != "" {
		var err error
		if mib, err = strconv.ParseInt(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	if d := os.Getenv("DELTAFS_DV_BENCH_DIR"); d != "" {
		root = d
	}
	plainDir, dvDir, cmDir := filepath.Join(root, "plain"), filepath.Join(root, "dv"), filepath.Join(root, "cm")
	start := time.Now()
	name := "part-0.parquet"
	rows := writeBenchFile(t, filepath.Join(plainDir, name), mib<<20, 8)
	for _, d := range []string{dvDir, cmDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(plainDir, name), filepath.Join(d, name)); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(filepath.Join(plainDir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d bytes, %d rows, 8 row groups, in %v", name, fi.Size(), rows, time.Since(start).Round(time.Millisecond))

	// The same file in two tables: without and with a vector of 10 rows,
	// all in row group 5.
	per := rows / 8
	var deleted []uint64
	for i := int64(0); i < 10; i++ {
		deleted = append(deleted, uint64(5*per+1+i*997))
	}
	schema := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":false,"metadata":{}},{"name":"ts","type":"long","nullable":false,"metadata":{}},{"name":"name","type":"string","nullable":false,"metadata":{}},{"name":"payload","type":"binary","nullable":false,"metadata":{}}]}`
	// The column-mapped table maps the file's names to shorter logical
	// ones: its file is served renamed, at its stored size.
	cmField := func(logical, typ, physical string, id int) string {
		return fmt.Sprintf(`{"name":%q,"type":%q,"nullable":false,"metadata":{"delta.columnMapping.id":%d,"delta.columnMapping.physicalName":%q}}`, logical, typ, id, physical)
	}
	cmSchema := `{"type":"struct","fields":[` + cmField("i", "long", "id", 1) + "," + cmField("t", "long", "ts", 2) + "," +
		cmField("n", "string", "name", 3) + "," + cmField("p", "binary", "payload", 4) + `]}`
	for _, d := range []string{plainDir, dvDir, cmDir} {
		tb := deltagen.New(d)
		acts := []action.Action{
			deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}),
			deltagen.Metadata(schema, nil, nil),
		}
		if d == cmDir {
			acts = []action.Action{deltagen.MappedProtocol(), deltagen.Metadata(cmSchema, nil, deltagen.MappedConfig("name"))}
		}
		add := deltagen.AddFile(name, fi.Size(), fi.ModTime().UnixMilli(), nil, fmt.Sprintf(`{"numRecords":%d}`, rows))
		if d == dvDir {
			dvs, err := tb.WriteDVFile("", deleted)
			if err != nil {
				t.Fatal(err)
			}
			add.Add.DeletionVector = &dvs[0]
		}
		if _, err := tb.Commit(append(acts, add)...); err != nil {
			t.Fatal(err)
		}
	}

	bin := buildDeltafs(t)
	cacheDir := t.TempDir()
	measure := func(table string, extra ...string) (cold, warm time.Duration, size int64, rss int64) {
		args := append([]string{"--cache-dir", cacheDir}, strings.Fields(os.Getenv("DELTAFS_DV_BENCH_ARGS"))...)
		args = append(args, extra...)
		mp, _ := binMount(t, bin, table, args...)
		pid := mountPID(t, mp)
		p := filepath.Join(mp, "v", "0", name)
		cold, size = readWhole(t, p)
		warm, _ = readWhole(t, p)
		return cold, warm, size, peakRSS(t, pid)
	}
	// Warm the OS page cache of the stored file, so both runs read it from
	// memory and the comparison is of deltafs alone.
	readWhole(t, filepath.Join(plainDir, name))
	pc, pw, ps, prss := measure(plainDir, "--passthrough=false")
	dc, dw, ds, drss := measure(dvDir)
	tc, tw, _, _ := measure(plainDir)
	cc, cw, cs, crss := measure(cmDir)
	t.Logf("stored file: %d bytes (%.0f MiB)", fi.Size(), float64(fi.Size())/(1<<20))
	t.Logf("without DV: size %d, first read %v (%.0f MiB/s), second %v, peak RSS %d MiB", ps, pc.Round(time.Millisecond), mibps(ps, pc), pw.Round(time.Millisecond), prss>>20)
	t.Logf("with DV:    size %d, first read %v (%.0f MiB/s, incl. building the view at lookup), second %v, peak RSS %d MiB",
		ds, dc.Round(time.Millisecond), mibps(ds, dc), dw.Round(time.Millisecond), drss>>20)
	t.Logf("ratio with/without DV: first read %.2fx, second read %.2fx", float64(dc)/float64(pc), float64(dw)/float64(pw))
	t.Logf("without DV, passed through (the default for a local plain file): first read %v (%.0f MiB/s), second %v",
		tc.Round(time.Millisecond), mibps(ps, tc), tw.Round(time.Millisecond))
	t.Logf("column-mapped (served renamed): size %d, first read %v (%.0f MiB/s), second %v, peak RSS %d MiB",
		cs, cc.Round(time.Millisecond), mibps(cs, cc), cw.Round(time.Millisecond), crss>>20)
	t.Logf("ratio column-mapped/without DV (both served by deltafs): first read %.2fx, second read %.2fx", float64(cc)/float64(pc), float64(cw)/float64(pw))
}

func mibps(n int64, d time.Duration) float64 { return float64(n) / (1 << 20) / d.Seconds() }

// writeBenchFile writes a Parquet file of about size bytes in groups row
// groups and returns its row count.
func writeBenchFile(t *testing.T, path string, size int64, groups int) int64 {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 4<<20)
	w := parquet.NewGenericWriter[dvBenchRow](bw, parquet.Compression(&parquet.Snappy))
	const rowBytes = 105 // about the stored size of a row, compressed
	rows := size / rowBytes
	per := (rows + int64(groups) - 1) / int64(groups)
	rng := rand.New(rand.NewChaCha8([32]byte{1, 2, 3}))
	buf := make([]dvBenchRow, 4096)
	raw := make([]byte, 24)
	for g := int64(0); g < int64(groups); g++ {
		lo, hi := g*per, min((g+1)*per, rows)
		for i := lo; i < hi; {
			n := int(min(int64(len(buf)), hi-i))
			for k := 0; k < n; k++ {
				id := i + int64(k)
				for j := range raw {
					raw[j] = byte(rng.Uint32())
				}
				p := make([]byte, 64)
				for j := 0; j < 64; j += 8 {
					v := rng.Uint64()
					for b := 0; b < 8; b++ {
						p[j+b] = byte(v >> (8 * b))
					}
				}
				buf[k] = dvBenchRow{ID: id, TS: 1_700_000_000_000 + id, Name: base64.StdEncoding.EncodeToString(raw), Payload: p}
			}
			if _, err := w.Write(buf[:n]); err != nil {
				t.Fatal(err)
			}
			i += int64(n)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// readWhole reads a file sequentially in 1 MiB reads and returns the time
// and the bytes read.
func readWhole(t *testing.T, path string) (time.Duration, int64) {
	t.Helper()
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, make([]byte, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	return time.Since(start), n
}

// mountPID finds the deltafs process serving mountpoint mp.
func mountPID(t *testing.T, mp string) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmd), "mount\x00") && strings.Contains(string(cmd), "\x00"+mp+"\x00") {
			return pid
		}
	}
	t.Fatalf("no deltafs process for %s", mp)
	return 0
}

// peakRSS returns a process's peak resident set size (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, err := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
