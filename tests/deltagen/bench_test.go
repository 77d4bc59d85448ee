package deltagen

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

func TestBenchTableSmall(t *testing.T) {
	dir := t.TempDir()
	info, err := WriteBenchTable(dir, BenchOptions{Files: 5000, Partitions: 7, RowGroupRows: 1000})
	if err != nil {
		t.Fatal(err)
	}
	tb := New(dir)
	if info.LatestVersion != 19 || info.Checkpoint.Size != 5002 {
		t.Errorf("info %+v / %+v", info, info.Checkpoint)
	}
	pf := openParquet(t, tb.ClassicCheckpointPath(10))
	wantColumns(t, pf, v1Columns...)
	if len(pf.RowGroups()) != 6 {
		t.Errorf("%d row groups, want 6", len(pf.RowGroups()))
	}
	rows := v1AsV2(readRows[cpRow](t, tb.ClassicCheckpointPath(10)))
	checkOneActionPerRow(t, rows)
	paths := map[string]bool{}
	for _, r := range rows {
		if r.Add == nil {
			continue
		}
		paths[r.Add.Path] = true
		var st struct {
			NumRecords int64
			MinValues  map[string]any
			MaxValues  map[string]any
			NullCount  map[string]int64
		}
		if err := json.Unmarshal([]byte(r.Add.Stats), &st); err != nil || st.NumRecords <= 0 || len(st.MinValues) != 3 || len(st.NullCount) != 3 {
			t.Fatalf("stats %q: %v", r.Add.Stats, err)
		}
		d := *r.Add.PartitionValues["date"]
		if !strings.HasPrefix(r.Add.Path, "date="+d+"/part-") {
			t.Fatalf("path %s in partition %s", r.Add.Path, d)
		}
	}
	if len(paths) != 5000 {
		t.Errorf("%d distinct adds", len(paths))
	}
	// Every tail commit removes a checkpointed file.
	for v := int64(11); v <= 19; v++ {
		data, err := os.ReadFile(tb.CommitPath(v))
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, line := range splitLines(data) {
			var a struct{ Remove *struct{ Path string } }
			json.Unmarshal(line, &a)
			if a.Remove != nil {
				found = paths[a.Remove.Path]
			}
		}
		if !found {
			t.Errorf("v%d removes no checkpointed file", v)
		}
	}
	// Multi-part variant.
	info, err = WriteBenchTable(t.TempDir(), BenchOptions{Files: 1000, Partitions: 3, Parts: 4})
	if err != nil {
		t.Fatal(err)
	}
	if info.Checkpoint.Parts != 4 || len(info.Checkpoint.Files) != 4 {
		t.Errorf("multi-part bench %+v", info.Checkpoint)
	}
}

// TestBenchTableMillion checks the one-million-file bench table: its
// checkpoint holds every row. (How long writing it takes is logged, not
// asserted: a busy machine is no failure.) The generator starts no
// goroutine, so the race detector has nothing to find here and would make
// the test eight times slower: `make test` runs it once more without.
func TestBenchTableMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if raceEnabled {
		t.Skip("under -race: run without it (make test does)")
	}
	start := time.Now()
	dir := t.TempDir()
	if err := BenchTable(dir, 0, 0); err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	pf := openParquet(t, New(dir).ClassicCheckpointPath(10))
	fi, _ := os.Stat(New(dir).ClassicCheckpointPath(10))
	t.Logf("1M-file bench table in %v: checkpoint %d rows, %d row groups, %d MiB", el, pf.NumRows(), len(pf.RowGroups()), fi.Size()>>20)
	if pf.NumRows() != 1_000_002 {
		t.Errorf("%d rows", pf.NumRows())
	}
}

func TestLongLog(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2500
	}
	start := time.Now()
	tb, err := LongLog(t.TempDir(), n, 1000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d commits in %v", n, time.Since(start))
	if tb.NextVersion() != int64(n) {
		t.Errorf("next version %d", tb.NextVersion())
	}
	last := int64(n-1) / 1000 * 1000
	data, err := os.ReadFile(tb.LastCheckpointPath())
	if err != nil {
		t.Fatal(err)
	}
	var lc struct{ Version, Size int64 }
	if err := json.Unmarshal(data, &lc); err != nil || lc.Version != last {
		t.Fatalf("_last_checkpoint %s (%v), want version %d", data, err, last)
	}
	st, _ := tb.StateAt(last)
	if lc.Size != st.NumActions() || len(st.Adds) != int(last)-int(last/10) {
		t.Errorf("size %d, state %d actions %d adds", lc.Size, st.NumActions(), len(st.Adds))
	}
	rows := readRows[cpRow](t, tb.ClassicCheckpointPath(last))
	if int64(len(rows)) != lc.Size {
		t.Errorf("checkpoint has %d rows, want %d", len(rows), lc.Size)
	}
}
