package tests

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// A table whose timestamp column an older delta-rs stored as local
// date-times (Parquet's isAdjustedToUTC false) in one file, and a later
// writer as instants in the other. Delta reads both as instants.
type localTimeRow struct {
	ID  int64  `parquet:"id"`
	TS  int64  `parquet:"ts,timestamp(microsecond:local)"`
	Pad string `parquet:"pad"` // the file outgrows a footer read
}

type instantRow struct {
	ID  int64  `parquet:"id"`
	TS  int64  `parquet:"ts,timestamp(microsecond:utc)"`
	Pad string `parquet:"pad"`
}

const timestampSchema = `{"type":"struct","fields":[` +
	`{"name":"id","type":"long","nullable":false,"metadata":{}},` +
	`{"name":"ts","type":"timestamp","nullable":false,"metadata":{}},` +
	`{"name":"pad","type":"string","nullable":false,"metadata":{}}]}`

// tsRows is the number of rows of each file; row i of a file holds
// timestamp tsBase+i (and id i).
const (
	tsRows = 3000
	tsBase = 1_700_000_000_000_000
)

func localTimesTable(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	local := make([]localTimeRow, tsRows)
	instants := make([]instantRow, tsRows)
	for i := range local {
		pad := fmt.Sprintf("%040x", uint64(i)*0x9e3779b97f4a7c15)
		local[i] = localTimeRow{ID: int64(i), TS: tsBase + int64(i), Pad: pad}
		instants[i] = instantRow{ID: int64(i), TS: tsBase + int64(i), Pad: pad}
	}
	stats := `{"numRecords":3000,"nullCount":{"id":0,"ts":0,"pad":0}}`
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(timestampSchema, nil, nil),
		writeRows(t, dir, "local.parquet", local, stats), writeRows(t, dir, "instants.parquet", instants, stats))
	return dir
}

// TestLocalTimestampsReadAsInstants: pyarrow, DuckDB and Polars read the
// timestamp column of both files through the mount as instants in UTC,
// with the stored values, as a Delta reader does; served as stored, each
// read the first file's as local date-times.
func TestLocalTimestampsReadAsInstants(t *testing.T) {
	py := pythonOrSkip(t)
	dir := localTimesTable(t)
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
	latest := filepath.Join(m.dir, "latest")
	for _, name := range []string{"local.parquet", "instants.parquet"} {
		served, err := os.Stat(filepath.Join(latest, name))
		stored, err2 := os.Stat(filepath.Join(dir, name))
		if err != nil || err2 != nil || served.Size() != stored.Size() {
			t.Fatalf("%s: served %v (%v), stored %v (%v): want the stored size", name, served, err, stored, err2)
		}
	}
	script := `import sys, duckdb, polars as pl, pyarrow.dataset as ds
d = sys.argv[1]
for f in ("local.parquet", "instants.parquet"):
    ts = ds.dataset(f"{d}/{f}", format="parquet").to_table().column("ts")
    print(f, ts.type, ts.cast("int64").to_pylist() == list(range(` + fmt.Sprint(tsBase) + `, ` + fmt.Sprint(tsBase+tsRows) + `)))
    print(duckdb.sql(f"select typeof(ts), count(distinct ts) from read_parquet('{d}/{f}') group by 1").fetchall())
    print(pl.read_parquet(f"{d}/{f}").schema["ts"])
`
	out, err := exec.Command(py, "-c", script, latest).CombinedOutput()
	var want string
	for _, f := range []string{"local.parquet", "instants.parquet"} {
		want += f + " timestamp[us, tz=UTC] True\n[('TIMESTAMP WITH TIME ZONE', 3000)]\nDatetime(time_unit='us', time_zone='UTC')\n"
	}
	if err != nil || string(out) != want {
		t.Errorf("readers read:\n%s(%v)\nwant:\n%s", out, err, want)
	}
}

// TestLocalTimestampsCostNoRequest: on remote storage, the footer that
// tells whether a file stores local date-times is read as the block the
// reader's own footer read then finds: a stat reads nothing, and the
// first read of the footer, one GET, as for a table without timestamps.
func TestLocalTimestampsCostNoRequest(t *testing.T) {
	requireFUSE(t)
	m := mountOpened(t, memStore(t, localTimesTable(t), 0), nil, fs.Options{RefreshInterval: -1})
	latest := filepath.Join(m.dir, "latest")
	if _, err := os.ReadDir(latest); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"local.parquet", "instants.parquet"} {
		before := m.store.Counts()
		info, err := os.Stat(filepath.Join(latest, name))
		if err != nil {
			t.Fatal(err)
		}
		if d := m.store.Counts().Sub(before); d.Requests() != 0 {
			t.Errorf("%s: a stat made %+v", name, d)
		}
		f, err := os.Open(filepath.Join(latest, name))
		if err != nil {
			t.Fatal(err)
		}
		tail := make([]byte, 64<<10)
		_, err = f.ReadAt(tail, info.Size()-int64(len(tail)))
		if d := m.store.Counts().Sub(before); err != nil || d.Gets != 1 {
			t.Errorf("%s: reading its last 64 KiB made %d GETs (%v), want 1", name, d.Gets, err)
		}
		data, err := io.ReadAll(io.NewSectionReader(f, 0, info.Size()))
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, el := range pf.Metadata().Schema {
			if ts, ok := el.LogicalType.Value.(*format.TimestampType); ok && !ts.IsAdjustedToUTC {
				t.Errorf("%s: %s served as a local date-time", name, el.Name)
			}
		}
	}
}
