package deltagen

import (
	"fmt"
	"os"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
)

// newSmallTable writes a partitioned table with real data files:
// v0 protocol+metadata, v1..v3 adds, v4 a remove, v5 txn+domain, v6 add with
// a space in its path.
func newSmallTable(t *testing.T, dir string) *Table {
	t.Helper()
	return newSmallTableWith(t, dir, Protocol(1, 2, nil, nil))
}

// newSmallTableWith is newSmallTable with the given protocol action.
func newSmallTableWith(t *testing.T, dir string, proto action.Action) *Table {
	t.Helper()
	tb := New(dir)
	must := func(_ int64, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(tb.Commit(
		CommitInfo("CREATE TABLE", 1700000000000),
		proto,
		Metadata(PartitionedSchema, []string{"date"}, map[string]string{"delta.checkpointInterval": "100"}),
	))
	for i, d := range []string{"2024-01-01", "2024-01-02", "2024-01-03"} {
		a, err := tb.DataFileAdd("date="+d+"/part-0000"+string(rune('0'+i))+".parquet", 100, 2, map[string]*string{"date": Str(d)})
		if err != nil {
			t.Fatal(err)
		}
		must(tb.Commit(CommitInfo("WRITE", 1700000000000+int64(i)), a))
	}
	must(tb.Commit(CommitInfo("DELETE", 1700000001000), Remove("date=2024-01-02/part-00001.parquet", 1700000001000)))
	must(tb.Commit(Txn("app-1", 7, 1700000002000), DomainMetadata("delta.rowTracking", `{"rowIdHighWaterMark":1}`, false)))
	a, err := tb.DataFileAdd("date=2024-01-04/a b%c.parquet", 10, 1, map[string]*string{"date": Str("2024-01-04")})
	if err != nil {
		t.Fatal(err)
	}
	must(tb.Commit(CommitInfo("WRITE", 1700000003000), a))
	return tb
}

// TestGenerateForInspection writes sample tables under $DELTAGEN_OUT for
// checks with independent readers (deltalake, pyarrow); skipped otherwise.
func TestGenerateForInspection(t *testing.T) {
	dir := os.Getenv("DELTAGEN_OUT")
	if dir == "" {
		t.Skip("set DELTAGEN_OUT to write sample tables for external checks")
	}
	os.RemoveAll(dir)
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	withLast := func(tb *Table) func(*CheckpointInfo, error) {
		return func(info *CheckpointInfo, err error) {
			t.Helper()
			check(err)
			check(tb.WriteLastCheckpointFor(info))
		}
	}
	tb := newSmallTable(t, dir+"/classic")
	withLast(tb)(tb.Checkpoint(5))
	tb = newSmallTable(t, dir+"/multi")
	withLast(tb)(tb.MultiPartCheckpoint(5, 3))
	v2 := Protocol(3, 7, []string{"v2Checkpoint"}, []string{"v2Checkpoint", "domainMetadata"})
	tb = newSmallTableWith(t, dir+"/v2json", v2)
	withLast(tb)(tb.V2Checkpoint(5, "json", 2))
	tb = newSmallTableWith(t, dir+"/v2parquet", v2)
	withLast(tb)(tb.V2Checkpoint(5, "parquet", 1))
	tb = newSmallTableWith(t, dir+"/v2inline", v2)
	withLast(tb)(tb.V2Checkpoint(5, "parquet", 0))
	tb = newSmallTableWith(t, dir+"/v2classic", v2)
	withLast(tb)(tb.V2ClassicCheckpoint(5, 2))

	// Deletion vectors: 4 files of 100 rows; u (with prefix), u, i, p.
	tb = New(dir + "/dv")
	_, err := tb.Commit(Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}),
		Metadata(SimpleSchema, nil, map[string]string{"delta.enableDeletionVectors": "true"}))
	check(err)
	var adds []action.Action
	for i := 0; i < 4; i++ {
		a, err := tb.DataFileAdd(fmt.Sprintf("part-%d.parquet", i), 100, 2, nil)
		check(err)
		adds = append(adds, a)
	}
	_, err = tb.Commit(adds...)
	check(err)
	u, err := tb.WriteDVFile("xy", []uint64{0, 1, 2}, []uint64{50, 99})
	check(err)
	in, err := InlineDV([]uint64{10, 20, 30, 40})
	check(err)
	p, err := tb.WriteDVFileAbsolute("abs dv.bin", []uint64{5})
	check(err)
	var acts []action.Action
	for i, dv := range []action.DeletionVector{u[0], u[1], in, p[0]} {
		a := adds[i].Add
		acts = append(acts, Remove(a.Path, 1), AddFileDV(a.Path, a.Size, a.ModificationTime, nil, a.Stats, dv))
	}
	_, err = tb.Commit(acts...)
	check(err)
	withLast(tb)(tb.Checkpoint(2))
	_, err = tb.Commit(CommitInfo("WRITE", 5))
	check(err)

	_, err = WriteBenchTable(dir+"/bench", BenchOptions{Files: 20000, Partitions: 10})
	check(err)
	_, err = LongLog(dir+"/longlog", 2500, 1000)
	check(err)
}
