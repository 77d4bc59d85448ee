package parquetview

import (
	"bytes"
	"context"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/tests/deltagen"
)

// runRows is a set of rows given as runs [lo, hi): what a deletion vector
// of run containers holds, 65,536 rows in 10 bytes.
type runRows [][2]uint64

func (r runRows) Cardinality() uint64 { return r.CountRange(0, ^uint64(0)) }
func (r runRows) Max() (uint64, bool) {
	if len(r) == 0 {
		return 0, false
	}
	return r[len(r)-1][1] - 1, true
}
func (r runRows) CountRange(lo, hi uint64) uint64 {
	var n uint64
	r.RunsInRange(lo, hi, func(a, b uint64) bool { n += b - a; return true })
	return n
}
func (r runRows) RunsInRange(lo, hi uint64, fn func(lo, hi uint64) bool) {
	for _, run := range r {
		if a, b := max(run[0], lo), min(run[1], hi); a < b && !fn(a, b) {
			return
		}
	}
}

// claimingFile is deltagen.ClaimingFile.
func claimingFile(t testing.TB, pages int, dict bool) []byte {
	t.Helper()
	data, err := deltagen.ClaimingFile(pages, dict)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestBuildWorksByRuns: a view of a 2 MB file claiming 2^36 rows, less
// 2^35 deleted in one run and a few rows cut from pages, is built in what
// the runs take. Held row by row, the deleted rows alone took 256 GiB.
func TestBuildWorksByRuns(t *testing.T) {
	for _, dict := range []bool{false, true} {
		data := claimingFile(t, 1<<16, dict)
		deleted := runRows{{1, 1 << 35}, {1<<35 + 5, 1<<35 + 9}, {1<<35 + 1<<20 - 1, 1<<35 + 1<<20 + 2}, {1<<36 - 3, 1 << 36}}
		src := &bytesSource{data: data}
		v, err := Build(context.Background(), src, int64(len(data)), deleted, BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(1<<36 - deleted.Cardinality())
		if v.Rows != want || v.SplicedRowGroups != 1 || v.RewrittenPages != 4 {
			t.Fatalf("dict %v: %d rows, want %d; %d row groups spliced, %d pages rewritten (%v)", dict, v.Rows, want, v.SplicedRowGroups, v.RewrittenPages, v.spliceErr)
		}
		out := materialize(t, v, src)
		checkChunks(t, out)
		md, _, err := readFooter(context.Background(), &bytesSource{data: out}, int64(len(out)))
		if err != nil {
			t.Fatal(err)
		}
		wantNulls := want
		if dict {
			wantNulls = 0
		}
		if got := md.RowGroups[0].Columns[0].MetaData.Statistics.NullCount; got != wantNulls {
			t.Errorf("dict %v: null count %d, want %d", dict, got, wantNulls)
		}
	}
}

// TestRewrittenRunsRead: pages cut run by run read back right, value by
// value, in parquet-go.
func TestRewrittenRunsRead(t *testing.T) {
	for _, dict := range []bool{false, true} {
		data := claimingFile(t, 3, dict)
		deleted := runRows{{0, 2}, {5, 6}, {1<<19 - 1, 1<<19 + 1}, {1<<20 - 3, 1<<20 + 4}, {1<<20 + 1<<19, 1<<20 + 1<<19 + 1}, {1 << 21, 1<<21 + 1}, {3<<20 - 1, 3 << 20}}
		src := &bytesSource{data: data}
		v, err := Build(context.Background(), src, int64(len(data)), deleted, BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if v.SplicedRowGroups != 1 || v.RewrittenPages != 3 {
			t.Fatalf("spliced %d, %d pages rewritten: %v", v.SplicedRowGroups, v.RewrittenPages, v.spliceErr)
		}
		out := materialize(t, v, src)
		f, err := parquet.OpenFile(bytes.NewReader(out), int64(len(out)))
		if err != nil {
			t.Fatal(err)
		}
		// Page p of the source holds 2^20 values, each null or, with a
		// dictionary, in two runs.
		var want []parquet.Value
		cur := deletedCursor{groupDeletions(deleted, 0, 3<<20)}
		for row := range int64(3 << 20) {
			if cur.deleted(row) {
				continue
			}
			switch {
			case !dict:
				want = append(want, parquet.NullValue())
			case (row>>19+row>>20)%2 == 0:
				want = append(want, parquet.Int64Value(7))
			default:
				want = append(want, parquet.Int64Value(9))
			}
		}
		r := parquet.NewColumnChunkValueReader(f.RowGroups()[0].ColumnChunks()[0])
		got := make([]parquet.Value, 0, len(want))
		buf := make([]parquet.Value, 4096)
		for {
			n, err := r.ReadValues(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				break
			}
		}
		r.Close()
		if len(got) != len(want) {
			t.Fatalf("dict %v: %d values read, want %d", dict, len(got), len(want))
		}
		for i := range want {
			if got[i].IsNull() != want[i].IsNull() || (!want[i].IsNull() && got[i].Int64() != want[i].Int64()) {
				t.Fatalf("dict %v: value %d is %v, want %v", dict, i, got[i], want[i])
			}
		}
	}
}
