package deltagen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
)

var v1Columns = []string{
	"txn.appId", "txn.version", "txn.lastUpdated",
	"add.path", "add.partitionValues.key_value.key", "add.partitionValues.key_value.value",
	"add.size", "add.modificationTime", "add.dataChange", "add.stats",
	"add.tags.key_value.key", "add.tags.key_value.value",
	"add.deletionVector.storageType", "add.deletionVector.pathOrInlineDv", "add.deletionVector.offset",
	"add.deletionVector.sizeInBytes", "add.deletionVector.cardinality", "add.deletionVector.maxRowIndex",
	"remove.path", "remove.deletionTimestamp", "remove.dataChange",
	"metaData.id", "metaData.name", "metaData.description",
	"metaData.format.provider", "metaData.format.options.key_value.key",
	"metaData.schemaString", "metaData.partitionColumns.list.element",
	"metaData.configuration.key_value.value", "metaData.createdTime",
	"protocol.minReaderVersion", "protocol.minWriterVersion",
	"protocol.readerFeatures.list.element", "protocol.writerFeatures.list.element",
	"domainMetadata.domain", "domainMetadata.configuration", "domainMetadata.removed",
}

func TestStateAt(t *testing.T) {
	tb := newSmallTable(t, t.TempDir())
	st, err := tb.StateAt(6)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Adds) != 3 || len(st.Removes) != 1 || len(st.Txns) != 1 || len(st.Domains) != 1 {
		t.Fatalf("state: %d adds %d removes %d txns %d domains", len(st.Adds), len(st.Removes), len(st.Txns), len(st.Domains))
	}
	if st.NumActions() != 8 {
		t.Errorf("NumActions = %d, want 8", st.NumActions())
	}
	st3, _ := tb.StateAt(3)
	if len(st3.Adds) != 3 || len(st3.Removes) != 0 {
		t.Errorf("v3: %d adds %d removes", len(st3.Adds), len(st3.Removes))
	}
	// Re-adding a removed file revives it and drops the tombstone.
	if _, err := tb.Commit(AddFile(st.Removes[0].Path, 1938, 1, map[string]*string{"date": Str("2024-01-02")}, "")); err != nil {
		t.Fatal(err)
	}
	st7, _ := tb.StateAt(7)
	if len(st7.Adds) != 4 || len(st7.Removes) != 0 {
		t.Errorf("v7: %d adds %d removes", len(st7.Adds), len(st7.Removes))
	}
	if _, err := tb.StateAt(42); err == nil {
		t.Error("StateAt of a missing version succeeded")
	}
}

func TestCommitAtGap(t *testing.T) {
	tb := New(t.TempDir())
	if _, err := tb.Commit(Protocol(1, 2, nil, nil), Metadata(SimpleSchema, nil, nil)); err != nil {
		t.Fatal(err)
	}
	if err := tb.CommitAt(5, CommitInfo("WRITE", 1)); err != nil {
		t.Fatal(err)
	}
	if v, err := tb.Commit(CommitInfo("WRITE", 2)); err != nil || v != 6 {
		t.Fatalf("Commit after gap = %d, %v; want 6", v, err)
	}
	for v, want := range map[int64]bool{0: true, 1: false, 4: false, 5: true, 6: true} {
		_, err := os.Stat(tb.CommitPath(v))
		if (err == nil) != want {
			t.Errorf("commit %d exists = %v, want %v", v, err == nil, want)
		}
	}
	// Every line of a commit is one JSON action.
	f, err := os.Open(tb.CommitPath(0))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		var a action.Action
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines++
	}
	if lines != 2 {
		t.Errorf("v0 has %d lines, want 2", lines)
	}
}

func TestClassicCheckpoint(t *testing.T) {
	tb := newSmallTable(t, t.TempDir())
	info, err := tb.Checkpoint(6, WithRowGroupRows(3))
	if err != nil {
		t.Fatal(err)
	}
	pf := openParquet(t, tb.ClassicCheckpointPath(6))
	wantColumns(t, pf, v1Columns...)
	if got := len(pf.RowGroups()); got != 3 { // 8 rows by 3
		t.Errorf("%d row groups, want 3", got)
	}
	rows := v1AsV2(readRows[cpRow](t, tb.ClassicCheckpointPath(6)))
	if int64(len(rows)) != info.Size || info.Size != 8 || info.NumAdds != 3 {
		t.Fatalf("rows %d, info %+v", len(rows), info)
	}
	checkOneActionPerRow(t, rows)
	st, _ := tb.StateAt(6)
	var want []string
	for _, a := range st.Adds {
		want = append(want, a.Path)
	}
	if got := addPaths(rows); !slices.Equal(got, want) {
		t.Errorf("add paths %v, want %v", got, want)
	}
	for _, r := range rows {
		switch {
		case r.Protocol != nil:
			if r.Protocol.MinReaderVersion != 1 || r.Protocol.ReaderFeatures != nil {
				t.Errorf("protocol %+v", r.Protocol)
			}
		case r.MetaData != nil:
			if r.MetaData.SchemaString != PartitionedSchema || !slices.Equal(r.MetaData.PartitionColumns, []string{"date"}) ||
				*r.MetaData.Configuration["delta.checkpointInterval"] != "100" {
				t.Errorf("metaData %+v", r.MetaData)
			}
		case r.Add != nil:
			if r.Add.PartitionValues["date"] == nil || r.Add.Stats == "" || r.Add.Size <= 0 {
				t.Errorf("add %+v", r.Add)
			}
		case r.Remove != nil:
			if r.Remove.Path != "date=2024-01-02/part-00001.parquet" || *r.Remove.DeletionTimestamp != 1700000001000 {
				t.Errorf("remove %+v", r.Remove)
			}
		case r.Txn != nil:
			if r.Txn.AppID != "app-1" || r.Txn.Version != 7 {
				t.Errorf("txn %+v", r.Txn)
			}
		}
	}
}

func TestReaderFeaturesInCheckpoint(t *testing.T) {
	tb := New(t.TempDir())
	if _, err := tb.Commit(Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors", "domainMetadata"}),
		Metadata(SimpleSchema, nil, map[string]string{"delta.enableDeletionVectors": "true"})); err != nil {
		t.Fatal(err)
	}
	dv, err := InlineDV([]uint64{1, 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Commit(AddFileDV("a.parquet", 10, 1, nil, Stats(0, 9), dv)); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Checkpoint(1); err != nil {
		t.Fatal(err)
	}
	rows := v1AsV2(readRows[cpRow](t, tb.ClassicCheckpointPath(1)))
	checkOneActionPerRow(t, rows)
	for _, r := range rows {
		if r.Protocol != nil && (!slices.Equal(r.Protocol.ReaderFeatures, []string{"deletionVectors"}) || len(r.Protocol.WriterFeatures) != 2) {
			t.Errorf("protocol %+v", r.Protocol)
		}
		if r.Add != nil && (r.Add.DeletionVector == nil || r.Add.DeletionVector.PathOrInlineDv != dv.PathOrInlineDv ||
			r.Add.DeletionVector.Offset != nil || r.Add.DeletionVector.Cardinality != 2) {
			t.Errorf("add DV %+v", r.Add.DeletionVector)
		}
	}
}

func TestMultiPartCheckpoint(t *testing.T) {
	tb := newSmallTable(t, t.TempDir())
	info, err := tb.MultiPartCheckpoint(6, 3)
	if err != nil {
		t.Fatal(err)
	}
	if info.Parts != 3 || len(info.Files) != 3 {
		t.Fatalf("info %+v", info)
	}
	var all []cpV2Row
	for p := 1; p <= 3; p++ {
		name := tb.CheckpointPartPath(6, p, 3)
		if name != info.Files[p-1] {
			t.Errorf("part %d at %s, want %s", p, info.Files[p-1], name)
		}
		wantColumns(t, openParquet(t, name), v1Columns...)
		rows := v1AsV2(readRows[cpRow](t, name))
		if len(rows) == 0 {
			t.Errorf("part %d empty", p)
		}
		if p == 1 && rows[0].Protocol == nil {
			t.Errorf("part 1 does not start with protocol")
		}
		all = append(all, rows...)
	}
	checkOneActionPerRow(t, all)
	if int64(len(all)) != info.Size || len(addPaths(all)) != 3 {
		t.Errorf("%d rows, %d adds; info %+v", len(all), len(addPaths(all)), info)
	}
	if err := os.Remove(tb.CheckpointPartPath(6, 2, 3)); err != nil {
		t.Fatal(err)
	}
}

func TestV2Checkpoint(t *testing.T) {
	for _, tc := range []struct {
		format   string
		sidecars int
		classic  bool
	}{{"json", 2, false}, {"json", 0, false}, {"parquet", 3, false}, {"parquet", 0, false}, {"parquet", 1, true}} {
		tb := newSmallTable(t, t.TempDir())
		var info *CheckpointInfo
		var err error
		if tc.classic {
			info, err = tb.V2ClassicCheckpoint(6, tc.sidecars)
		} else {
			info, err = tb.V2Checkpoint(6, tc.format, tc.sidecars)
		}
		if err != nil {
			t.Fatal(err)
		}
		name := info.Files[0]
		if tc.classic && name != tb.ClassicCheckpointPath(6) {
			t.Errorf("v2 classic at %s", name)
		}
		if m, _ := filepath.Match("00000000000000000006.checkpoint.*-*-*-*-*."+tc.format, filepath.Base(name)); !tc.classic && !m {
			t.Errorf("v2 checkpoint name %s", filepath.Base(name))
		}
		var rows []cpV2Row
		if tc.format == "json" {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range splitLines(data) {
				var a action.Action
				if err := json.Unmarshal(line, &a); err != nil {
					t.Fatal(err)
				}
				rows = append(rows, toCpV2Row(&a))
			}
		} else {
			pf := openParquet(t, name)
			wantColumns(t, pf, append(v1Columns, "checkpointMetadata.version", "checkpointMetadata.tags.key_value.key",
				"sidecar.path", "sidecar.sizeInBytes", "sidecar.modificationTime", "sidecar.tags.key_value.value")...)
			rows = readRows[cpV2Row](t, name)
		}
		checkOneActionPerRow(t, rows)
		if rows[0].CheckpointMetadata == nil || rows[0].CheckpointMetadata.Version != 6 {
			t.Errorf("%v: first row %+v, want checkpointMetadata v6", tc, rows[0])
		}
		var sidecars []*cpSidecar
		for _, r := range rows {
			if r.Sidecar != nil {
				sidecars = append(sidecars, r.Sidecar)
			}
		}
		if len(sidecars) != tc.sidecars || len(info.Sidecars) != tc.sidecars {
			t.Fatalf("%v: %d sidecar actions, %d files", tc, len(sidecars), len(info.Sidecars))
		}
		files := rows
		if tc.sidecars > 0 {
			if len(addPaths(rows)) != 0 {
				t.Errorf("%v: adds inline despite sidecars", tc)
			}
			files = nil
			for _, sc := range sidecars {
				p := filepath.Join(tb.SidecarDir(), sc.Path)
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Size() != sc.SizeInBytes {
					t.Errorf("sidecar %s size %d, action says %d", sc.Path, fi.Size(), sc.SizeInBytes)
				}
				wantColumns(t, openParquet(t, p), "add.path", "add.deletionVector.offset", "remove.path")
				for _, r := range readRows[cpSidecarRow](t, p) {
					files = append(files, cpV2Row{Add: r.Add, Remove: r.Remove})
				}
			}
			checkOneActionPerRow(t, files)
		}
		if len(addPaths(files)) != 3 {
			t.Errorf("%v: %d adds, want 3", tc, len(addPaths(files)))
		}
	}
}

func splitLines(data []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

func TestLastCheckpoint(t *testing.T) {
	tb := newSmallTable(t, t.TempDir())
	read := func() map[string]any {
		data, err := os.ReadFile(tb.LastCheckpointPath())
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return nil
		}
		return m
	}
	if err := tb.WriteLastCheckpoint(5, 7, 0); err != nil {
		t.Fatal(err)
	}
	if m := read(); m["version"] != 5.0 || m["size"] != 7.0 || m["parts"] != nil {
		t.Errorf("_last_checkpoint %v", m)
	}
	if err := tb.WriteLastCheckpoint(5, 7, 3); err != nil {
		t.Fatal(err)
	}
	if m := read(); m["parts"] != 3.0 {
		t.Errorf("_last_checkpoint %v", m)
	}
	if err := tb.WriteCorruptLastCheckpoint(); err != nil {
		t.Fatal(err)
	}
	if m := read(); m != nil {
		t.Errorf("corrupt _last_checkpoint parsed: %v", m)
	}
}
