package fs

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay/action"
)

// dvRow is the row type of the Parquet files these tests write.
type dvRow struct {
	ID   int64  `parquet:"id"`
	Name string `parquet:"name"`
}

// dvParquet returns a Parquet file of n rows (ids 0..n-1) in row groups of
// 20 rows.
func dvParquet(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[dvRow](&buf, parquet.Compression(&parquet.Snappy))
	for i := 0; i < n; i++ {
		if _, err := w.Write([]dvRow{{ID: int64(i), Name: strings.Repeat("x", i%7)}}); err != nil {
			t.Fatal(err)
		}
		if i%20 == 19 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// protocolDVRows are the rows of PROTOCOL.md's inline example vector, which
// standardTable puts on dv.parquet.
var protocolDVRows = []int64{3, 4, 7, 11, 18, 29}

func readIDs(t *testing.T, data []byte) []int64 {
	t.Helper()
	rows, err := parquet.Read[dvRow](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("served file is not Parquet: %v", err)
	}
	var ids []int64
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	return ids
}

func TestDVFileServesFilteredParquet(t *testing.T) {
	tbl := standardTable(t)
	m := mountFake(t, tbl, Options{})
	p := m.path("v/1/dv.parquet")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	src := tbl.content("dv.parquet")
	vec := dvfilter.NewVector(3, 4, 7, 11, 18, 29)
	v, err := parquetview.Build(context.Background(), parquetview.RangeReaderFunc(func(_ context.Context, off, n int64) ([]byte, error) {
		return src[off:min(off+n, int64(len(src)))], nil
	}), int64(len(src)), vec, parquetview.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != v.Size() {
		t.Errorf("stat size %d, filtered view is %d bytes", fi.Size(), v.Size())
	}
	for i := 0; i < 2; i++ {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(data)) != fi.Size() {
			t.Fatalf("read %d bytes, stat says %d", len(data), fi.Size())
		}
		ids := readIDs(t, data)
		var want []int64
		for i := int64(0); i < 50; i++ {
			if !slices.Contains(protocolDVRows, i) {
				want = append(want, i)
			}
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("ids %v, want %v", ids, want)
		}
	}
	if got, err := getxattr(t, p, "user.delta.deletedRows"); err != nil || got != "6" {
		t.Errorf("deletedRows = %q, %v", got, err)
	}
	if logs := m.logs.String(); logs != "" {
		t.Errorf("unexpected log: %q", logs)
	}
}

// TestDVBrokenIsEIO: a vector or data file that cannot be used makes the
// file EIO (lookup, so stat, and read), with a log line naming the object.
func TestDVBrokenIsEIO(t *testing.T) {
	tbl := newFakeTable(t)
	good := dvParquet(t, 40)
	inline := &action.DeletionVector{StorageType: "i", PathOrInlineDv: "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", SizeInBytes: 40, Cardinality: 6}
	off := int32(1)
	tbl.addVersion(t, "WRITE", []fakeFile{
		{path: "ok.parquet", data: good, records: 40, dv: inline},
		// 'u' vector whose file does not exist.
		{path: "missing-dv.parquet", data: good, records: 40, dv: &action.DeletionVector{
			StorageType: "u", PathOrInlineDv: "abvBn[lx{q8@P<9BNH/isA", Offset: &off, SizeInBytes: 36, Cardinality: 2}},
		// Cardinality that does not match the vector.
		{path: "bad-card.parquet", data: good, records: 40, dv: &action.DeletionVector{
			StorageType: "i", PathOrInlineDv: inline.PathOrInlineDv, SizeInBytes: 40, Cardinality: 7}},
		// A vector deleting rows the file does not have (29 >= 20 rows).
		{path: "short.parquet", data: dvParquet(t, 20), records: 20, dv: inline},
		// A data file that is not Parquet.
		{path: "garbage.parquet", size: 300, records: 40, dv: inline},
	}, true)
	m := mountFake(t, tbl, Options{})
	if _, err := os.ReadFile(m.path("v/0/ok.parquet")); err != nil {
		t.Fatalf("good file: %v", err)
	}
	for _, c := range []struct{ name, logs string }{
		{"missing-dv.parquet", "deletion_vector_"},
		{"bad-card.parquet", "cardinality"},
		{"short.parquet", "past the end"},
		{"garbage.parquet", "Parquet"},
	} {
		p := m.path("v/0/" + c.name)
		if _, err := os.Stat(p); !errors.Is(err, syscall.EIO) {
			t.Errorf("stat %s: %v, want EIO", c.name, err)
		}
		if _, err := os.ReadFile(p); !errors.Is(err, syscall.EIO) {
			t.Errorf("read %s: %v, want EIO", c.name, err)
		}
		logs := m.logs.String()
		var line string
		for _, l := range strings.Split(logs, "\n") {
			if strings.Contains(l, c.name) {
				line = l
			}
		}
		if line == "" || !strings.Contains(line, c.logs) {
			t.Errorf("%s: no log line naming it and %q: %q", c.name, c.logs, logs)
		}
	}
	// The directory still lists every file.
	ents, err := os.ReadDir(m.path("v/0"))
	if err != nil || len(ents) != 5 {
		t.Errorf("readdir: %d entries, %v", len(ents), err)
	}
}

// warmDVSizes looks up the file with a deletion vector of standardTable,
// which builds its filtered view (storage reads: the footer, the rewritten
// row groups), then resets the read counter: from then on its stat, like
// every other file's, is answered without storage requests.
func warmDVSizes(t *testing.T, m *testMount) {
	t.Helper()
	if _, err := os.Stat(m.path("v/1/dv.parquet")); err != nil {
		t.Fatal(err)
	}
	m.table.readN.Store(0)
}
