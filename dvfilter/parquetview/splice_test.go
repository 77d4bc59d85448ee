package parquetview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter"
)

// spliceRow has no repeated column, so row groups of it go through the
// page-level path: plain and dictionary-encoded columns, required and
// optional ones (with nulls), every PLAIN physical type width.
type spliceRow struct {
	ID      int64    `parquet:"id"`
	Cat     string   `parquet:"cat,dict"`
	Opt     *int32   `parquet:"opt,optional"`
	OptCat  *string  `parquet:"optcat,optional,dict"`
	Flag    bool     `parquet:"flag"`
	Fixed   [3]byte  `parquet:"fixed"`
	Payload []byte   `parquet:"payload"`
	Score   *float64 `parquet:"score,optional"`
}

func mkSpliceRow(i int64) spliceRow {
	r := spliceRow{
		ID:      i,
		Cat:     fmt.Sprintf("cat-%d", i%7),
		Flag:    i%3 == 1,
		Fixed:   [3]byte{byte(i), byte(i >> 8), byte(i >> 16)},
		Payload: bytes.Repeat([]byte{byte(i)}, int(i%11)),
	}
	if i%4 != 0 {
		v := int32(i * 3)
		r.Opt = &v
	}
	if i%5 != 2 {
		s := fmt.Sprintf("oc-%d", i%13)
		r.OptCat = &s
	}
	if i%9 != 0 {
		f := float64(i) / 4
		r.Score = &f
	}
	return r
}

// writeSpliceFile writes row groups of the given sizes with small pages.
func writeSpliceFile(t testing.TB, codec compress.Codec, version int, groups ...int) []byte {
	t.Helper()
	return writeRowGroups(t, mkSpliceRow, groups, parquet.Compression(codec),
		parquet.PageBufferSize(512), parquet.DataPageVersion(version))
}

// pageStarts returns the first row of every data page of column col of row
// group rg (row indexes within the file), and the number of pages.
func pageStarts(t testing.TB, data []byte, rg, col int) []int64 {
	t.Helper()
	src := &bytesSource{data: data}
	md, dataEnd, err := readFooter(context.Background(), src, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var first int64
	for i := range rg {
		first += md.RowGroups[i].NumRows
	}
	start, end, err := chunkRange(&md.RowGroups[rg].Columns[col], dataEnd)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	row := first
	for off := start; off < end; {
		h, hlen, err := readPageHeader(context.Background(), src, off, end)
		if err != nil {
			t.Fatal(err)
		}
		switch h.Type {
		case format.DataPage:
			out = append(out, row)
			row += int64(h.DataPageHeader.V.NumValues)
		case format.DataPageV2:
			out = append(out, row)
			row += int64(h.DataPageHeaderV2.V.NumRows)
		}
		off += hlen + int64(h.CompressedPageSize)
	}
	return out
}

// checkChunks re-scans every column chunk of a filtered file page by page
// and checks the footer's counts and sizes against the pages.
func checkChunks(t testing.TB, data []byte) {
	t.Helper()
	src := &bytesSource{data: data}
	md, dataEnd, err := readFooter(context.Background(), src, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	lv, err := leaves(md.Schema)
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for i, rg := range md.RowGroups {
		rows += rg.NumRows
		var comp, uncomp int64
		for j := range rg.Columns {
			cc := &rg.Columns[j]
			sc, err := spliceChunk(context.Background(), src, cc, lv[j], rg.NumRows, nil, dataEnd)
			if err != nil {
				t.Fatalf("row group %d column %d: %v", i, j, err)
			}
			m := cc.MetaData
			if sc.meta.NumValues != m.NumValues || sc.size != m.TotalCompressedSize || sc.meta.TotalUncompressedSize != m.TotalUncompressedSize {
				t.Errorf("row group %d column %v: pages hold %d values, %d bytes (%d uncompressed); footer says %d, %d (%d)",
					i, m.PathInSchema, sc.meta.NumValues, sc.size, sc.meta.TotalUncompressedSize, m.NumValues, m.TotalCompressedSize, m.TotalUncompressedSize)
			}
			comp += m.TotalCompressedSize
			uncomp += m.TotalUncompressedSize
		}
		if comp != rg.TotalCompressedSize {
			t.Errorf("row group %d: total compressed size %d, chunks %d", i, rg.TotalCompressedSize, comp)
		}
	}
	if rows != md.NumRows {
		t.Errorf("num_rows %d, row groups %d", md.NumRows, rows)
	}
}

func TestSplicePages(t *testing.T) {
	groups := []int{700, 3000, 800}
	const hit = 1 // the row group losing rows
	base := int64(700)
	type tc struct {
		name    string
		deleted func(p0, p3 []int64) []uint64 // page starts of columns 0 and 3
	}
	cases := []tc{
		{"one row in one page", func(p, _ []int64) []uint64 { return []uint64{uint64(p[2] + 1)} }},
		{"rows in several pages", func(p, q []int64) []uint64 {
			return []uint64{uint64(p[1] + 2), uint64(p[3]), uint64(q[4] + 1), uint64(p[len(p)-1] + 1), 1234, 2222}
		}},
		{"page boundaries", func(p, q []int64) []uint64 {
			return []uint64{uint64(p[2] - 1), uint64(p[2]), uint64(q[3] - 1), uint64(q[3]), uint64(base), uint64(base + 2999)}
		}},
		{"all rows of a page", func(p, _ []int64) []uint64 {
			var out []uint64
			for r := p[3]; r < p[4]; r++ {
				out = append(out, uint64(r))
			}
			return append(out, uint64(p[6]+1))
		}},
		{"all rows of several pages", func(p, q []int64) []uint64 {
			var out []uint64
			for r := q[1]; r < q[3]+5; r++ {
				out = append(out, uint64(r))
			}
			return out
		}},
		{"every other row", func(_, _ []int64) []uint64 {
			var out []uint64
			for r := base; r < base+3000; r += 2 {
				out = append(out, uint64(r))
			}
			return out
		}},
	}
	codecs := []compress.Codec{&parquet.Snappy, &parquet.Zstd, &parquet.Gzip, &parquet.Uncompressed, &parquet.Lz4Raw, &parquet.Brotli}
	for ci, c := range cases {
		for _, version := range []int{1, 2} {
			codec := codecs[(2*ci+version-1)%len(codecs)]
			forEachCut(t, fmt.Sprintf("%s/v%d/%s", c.name, version, codec), func(t *testing.T) {
				data := writeSpliceFile(t, codec, version, groups...)
				p0 := pageStarts(t, data, hit, 0)
				p3 := pageStarts(t, data, hit, 3)
				if len(p0) < 8 || len(p3) < 5 {
					t.Fatalf("too few pages: %d, %d", len(p0), len(p3))
				}
				deleted := c.deleted(p0, p3)
				slices.Sort(deleted)
				deleted = slices.Compact(deleted)
				src := &bytesSource{data: data}
				v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(deleted...), BuildOptions{SpillDir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				if v.SplicedRowGroups != 1 || v.RewrittenRowGroups != 1 || v.CopiedRowGroups != 2 || v.RewrittenPages == 0 {
					t.Fatalf("spliced %d, rewritten %d (%d pages), copied %d: %v", v.SplicedRowGroups, v.RewrittenRowGroups, v.RewrittenPages, v.CopiedRowGroups, v.spliceErr)
				}
				out := materialize(t, v, src)
				want := expectSpliceRows(4500, deleted)
				got, err := parquet.Read[spliceRow](bytes.NewReader(out), int64(len(out)))
				if err != nil {
					t.Fatalf("filtered file does not read: %v", err)
				}
				if len(got) != len(want) {
					t.Fatalf("%d rows, want %d", len(got), len(want))
				}
				for i := range got {
					if !equalSpliceRow(got[i], want[i]) {
						t.Fatalf("row %d = %+v, want %+v", i, got[i], want[i])
					}
				}
				checkChunks(t, out)
				checkSpliceStats(t, out, -1)
				checkPyarrow(t, out, want, []int64{700, 3000 - int64(len(deleted)), 800})
			})
		}
	}
}

// forEachCut runs f as subtest name twice: with pages cut as rewritePage
// chooses (value by value, for pages of ordinary values), and with every
// page cut run by run.
func forEachCut(t *testing.T, name string, f func(t *testing.T)) {
	t.Run(name+"/as chosen", f)
	t.Run(name+"/run by run", func(t *testing.T) {
		dense := denseEntries
		denseEntries = func(int) int64 { return -1 }
		t.Cleanup(func() { denseEntries = dense })
		f(t)
	})
}

func expectSpliceRows(total int, deleted []uint64) []spliceRow {
	var out []spliceRow
	for i := range total {
		if !slices.Contains(deleted, uint64(i)) {
			out = append(out, mkSpliceRow(int64(i)))
		}
	}
	return out
}

func equalSpliceRow(a, b spliceRow) bool {
	return a.ID == b.ID && a.Cat == b.Cat && a.Flag == b.Flag && a.Fixed == b.Fixed &&
		bytes.Equal(a.Payload, b.Payload) &&
		((a.Opt == nil) == (b.Opt == nil)) && (a.Opt == nil || *a.Opt == *b.Opt) &&
		((a.OptCat == nil) == (b.OptCat == nil)) && (a.OptCat == nil || *a.OptCat == *b.OptCat) &&
		((a.Score == nil) == (b.Score == nil)) && (a.Score == nil || *a.Score == *b.Score)
}

// checkSpliceStats checks that each chunk's null count is the nulls it
// holds and that min and max, when present, bound its values.
// Only row group only (if >= 0) is checked.
func checkSpliceStats(t testing.TB, data []byte, only int) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for i, rg := range f.RowGroups() {
		if only >= 0 && i != only {
			continue
		}
		for j, cc := range rg.ColumnChunks() {
			m := f.Metadata().RowGroups[i].Columns[j].MetaData
			r := parquet.NewColumnChunkValueReader(cc)
			buf := make([]parquet.Value, 1024)
			var nulls int64
			for {
				n, err := r.ReadValues(buf)
				for _, v := range buf[:n] {
					if v.IsNull() {
						nulls++
					}
				}
				if err != nil {
					break
				}
			}
			r.Close()
			if nulls != m.Statistics.NullCount {
				t.Errorf("row group %d column %v: %d nulls, statistics say %d", i, m.PathInSchema, nulls, m.Statistics.NullCount)
			}
		}
	}
}

// checkPyarrow reads the filtered file with pyarrow (the repository's
// .venv), when present, and compares every row and the footer's counts.
func checkPyarrow(t *testing.T, data []byte, want []spliceRow, groupRows []int64) {
	t.Helper()
	const script = `
import json, sys, pyarrow.parquet as pq
f = pq.ParquetFile(sys.argv[1])
md = f.metadata
groups = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
t = f.read()
t.validate(full=True)
rows = []
for r in t.to_pylist():
    r["fixed"] = list(r["fixed"])
    r["payload"] = list(r["payload"])
    rows.append(r)
for i in range(md.num_row_groups):
    g = f.read_row_group(i)
    assert g.num_rows == groups[i], (i, g.num_rows, groups[i])
json.dump({"num_rows": md.num_rows, "groups": groups, "rows": rows}, sys.stdout)
`
	out, ok := pyarrowRead(t, data, script)
	if !ok {
		return
	}
	var res struct {
		NumRows int64   `json:"num_rows"`
		Groups  []int64 `json:"groups"`
		Rows    []struct {
			ID      int64    `json:"id"`
			Cat     string   `json:"cat"`
			Opt     *int32   `json:"opt"`
			OptCat  *string  `json:"optcat"`
			Flag    bool     `json:"flag"`
			Fixed   []byte   `json:"-"`
			FixedL  []int    `json:"fixed"`
			Payload []int    `json:"payload"`
			Score   *float64 `json:"score"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if res.NumRows != int64(len(want)) || !slices.Equal(res.Groups, groupRows) {
		t.Fatalf("pyarrow sees %d rows in groups %v, want %d in %v", res.NumRows, res.Groups, len(want), groupRows)
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("pyarrow reads %d rows, want %d", len(res.Rows), len(want))
	}
	for i, r := range res.Rows {
		g := spliceRow{ID: r.ID, Cat: r.Cat, Opt: r.Opt, OptCat: r.OptCat, Flag: r.Flag, Score: r.Score}
		for k := range min(len(r.FixedL), 3) {
			g.Fixed[k] = byte(r.FixedL[k])
		}
		g.Payload = []byte{}
		for _, b := range r.Payload {
			g.Payload = append(g.Payload, byte(b))
		}
		w := want[i]
		if w.Payload == nil {
			w.Payload = []byte{}
		}
		if len(r.FixedL) != 3 || !equalSpliceRow(g, w) {
			t.Fatalf("pyarrow row %d = %+v, want %+v", i, g, want[i])
		}
	}
}

// TestSplicePyarrowWritten filters files pyarrow writes (small pages,
// dictionaries that overflow into PLAIN pages, DELTA and BYTE_STREAM_SPLIT
// encodings, v1 and v2 pages, nulls) and has pyarrow compare the result
// with the source minus the deleted rows.
func TestSplicePyarrowWritten(t *testing.T) {
	py := venvPython(t)
	if py == "" {
		t.Skip("no .venv (make venv, or set DELTAFS_PYTHON)")
	}
	const gen = `
import sys, pyarrow as pa, pyarrow.parquet as pq
n = 6000
ids = list(range(n))
t = pa.table({
    "id": pa.array(ids, pa.int64()),
    "cat": pa.array([None if i % 17 == 3 else "c%d" % (i % 50) for i in ids]),
    "big": pa.array(["v%d-%s" % (i, "x" * (i % 23)) for i in ids]),
    "f": pa.array([None if i % 5 == 0 else i / 3 for i in ids], pa.float64()),
    "i32": pa.array([i * 7 % 1000 for i in ids], pa.int32()),
    "b": pa.array([None if i % 7 == 0 else i % 3 == 0 for i in ids]),
    "d": pa.array([i * 11 for i in ids], pa.int64()),
    "s": pa.array(["s%d" % i for i in ids]),
    "bb": pa.array([None if i % 11 == 4 else (i // 300) % 2 == 0 or i % 13 == 0 for i in ids]),
    "runs": pa.array([None if (i // 700) % 2 else i // 450 for i in ids], pa.int64()),
})
pq.write_table(t, sys.argv[1], row_group_size=2000, data_page_size=1024,
    dictionary_pagesize_limit=256, write_batch_size=100,
    data_page_version=sys.argv[2], compression=sys.argv[3],
    use_dictionary=["cat", "big", "i32", "b", "runs"],
    column_encoding={"d": "DELTA_BINARY_PACKED", "s": "DELTA_BYTE_ARRAY", "f": "BYTE_STREAM_SPLIT", "bb": "RLE"},
    write_statistics=sys.argv[4] == "stats")
`
	const check = `
import sys, json, pyarrow as pa, pyarrow.parquet as pq
src = pq.read_table(sys.argv[1])
out = pq.ParquetFile(sys.argv[2])
deleted = set(json.loads(sys.argv[3]))
keep = [i for i in range(src.num_rows) if i not in deleted]
want = src.take(pa.array(keep, pa.int64()))
got = out.read()
got.validate(full=True)
assert out.metadata.num_rows == len(keep), (out.metadata.num_rows, len(keep))
assert sum(out.metadata.row_group(i).num_rows for i in range(out.metadata.num_row_groups)) == len(keep)
for i in range(out.metadata.num_row_groups):
    assert out.read_row_group(i).num_rows == out.metadata.row_group(i).num_rows
assert got.equals(want), "rows differ"
# A null count in the footer is exact wherever one is claimed: readers prune
# row groups with it.
for i in range(out.metadata.num_row_groups):
    rg = out.read_row_group(i)
    for j in range(out.metadata.num_columns):
        st = out.metadata.row_group(i).column(j).statistics
        if st is not None and st.has_null_count:
            assert st.null_count == rg.column(j).null_count, (i, j, st.null_count, rg.column(j).null_count)
print("ok")
`
	dels := []uint64{2000, 2001, 2500, 2999, 3000, 3001, 3500, 3998, 3999}
	for r := uint64(2100); r < 2300; r++ {
		dels = append(dels, r)
	}
	for _, version := range []string{"1.0", "2.0"} {
		for _, codec := range []string{"snappy", "zstd", "none", "nostats"} {
			stats := "stats"
			if codec == "nostats" {
				// No statistics: the null counts are counted page by page.
				codec, stats = "snappy", "none"
			}
			forEachCut(t, version+"/"+codec+"/"+stats, func(t *testing.T) {
				dir := t.TempDir()
				srcPath := filepath.Join(dir, "src.parquet")
				if out, err := exec.Command(py, "-c", gen, srcPath, version, codec, stats).CombinedOutput(); err != nil {
					t.Fatalf("pyarrow write: %v\n%s", err, out)
				}
				data, err := os.ReadFile(srcPath)
				if err != nil {
					t.Fatal(err)
				}
				src := &bytesSource{data: data}
				v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(dels...), BuildOptions{SpillDir: dir})
				if err != nil {
					t.Fatal(err)
				}
				if v.SplicedRowGroups != 1 || v.RewrittenRowGroups != 1 {
					t.Fatalf("spliced %d of %d rewritten row groups: %v", v.SplicedRowGroups, v.RewrittenRowGroups, v.spliceErr)
				}
				out := materialize(t, v, src)
				outPath := filepath.Join(dir, "out.parquet")
				if err := os.WriteFile(outPath, out, 0o644); err != nil {
					t.Fatal(err)
				}
				js, _ := json.Marshal(dels)
				if res, err := exec.Command(py, "-c", check, srcPath, outPath, string(js)).CombinedOutput(); err != nil {
					t.Fatalf("pyarrow check: %v\n%s", err, res)
				}
				checkChunks(t, out)
				// Copied row groups of a source without statistics come out
				// without statistics (the pyarrow check above verifies that no
				// wrong null count is claimed): only the spliced one is
				// compared here then.
				only := -1
				if stats != "stats" {
					only = 1
				}
				checkSpliceStats(t, out, only)
				// parquet-go reads it too.
				f, err := parquet.OpenFile(bytes.NewReader(out), int64(len(out)))
				if err != nil {
					t.Fatal(err)
				}
				if f.NumRows() != 6000-int64(len(dels)) {
					t.Fatalf("parquet-go sees %d rows", f.NumRows())
				}
				rows := make([]parquet.Row, 100)
				r := f.RowGroups()[1].Rows()
				var got int64
				for {
					n, err := r.ReadRows(rows)
					got += int64(n)
					if err != nil {
						break
					}
				}
				r.Close()
				if got != 2000-int64(len(dels)) {
					t.Fatalf("parquet-go reads %d rows of row group 1", got)
				}
			})
		}
	}
}

// pyarrowRead runs a Python script on data written to a file (its path
// the script's argument) and returns what it prints; ok is false, logged,
// where there is no venv.
func pyarrowRead(t *testing.T, data []byte, script string) (out []byte, ok bool) {
	t.Helper()
	py := venvPython(t)
	if py == "" {
		t.Log("no .venv: pyarrow check skipped")
		return nil, false
	}
	path := filepath.Join(t.TempDir(), "f.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", script, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, stderr.String())
	}
	return out, true
}

// venvPython is the test venv's interpreter (DELTAFS_PYTHON, else the
// repository's .venv), or "" when there is none.
func venvPython(t *testing.T) string {
	t.Helper()
	py := os.Getenv("DELTAFS_PYTHON")
	if py == "" {
		var err error
		if py, err = filepath.Abs("../../.venv/bin/python"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(py); err != nil {
		return ""
	}
	return py
}
