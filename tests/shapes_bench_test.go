package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/versions"
)

// benchShape is a table shape for TestShapesBenchmark: its folder's name,
// a description, the table's writer, and its number of live files at the
// latest version.
type benchShape struct {
	folder, name string
	files        int
	write        func(dir string) error
}

var benchShapes = []benchShape{
	{"tiny-commits", "many tiny commits: 20,000 x 1 add", 20000, func(dir string) error { return deltagen.WriteJSONLog(dir, 20000, 1) }},
	{"multipart", "multi-part checkpoint: 4 parts, 250k adds", 250000, func(dir string) error {
		_, err := deltagen.WriteBenchTable(dir, deltagen.BenchOptions{Files: 250000, Parts: 4, TailCommits: -1})
		return err
	}},
	{"column-mapping", "column mapping: 250k adds, random prefixes", 250000, func(dir string) error {
		_, err := deltagen.WriteBenchTable(dir, deltagen.BenchOptions{Files: 250000, ColumnMapping: true, TailCommits: -1})
		return err
	}},
	{"escaped-paths", "escaped paths: 250k adds under timestamp-like folders (%20, %25)", 250000, func(dir string) error {
		_, err := deltagen.WriteBenchTable(dir, deltagen.BenchOptions{Files: 250000, EscapedPaths: true, TailCommits: -1})
		return err
	}},
	{"v2-sidecars", "v2 checkpoint: 250k adds in 4 Parquet sidecars", 250000, writeV2Sidecars},
	{"long-tail", "long tail: 3,000 commits, checkpoint every 1,000", 2700, func(dir string) error {
		_, err := deltagen.LongLog(dir, 3001, 1000)
		return err
	}},
	{"streaming", "streaming log: 30,000 commits, checkpoint every 10", 27000, func(dir string) error {
		_, err := deltagen.LongLog(dir, 30001, 10)
		return err
	}},
	{"compactions", "compactions: 5 x (50k adds, then all removed for 5k)", 5000, writeCompactions},
	{"one-commit", "one JSON commit of 250k adds (a bulk load)", 250000, func(dir string) error { return deltagen.WriteJSONLog(dir, 1, 250000) }},
	{"compacted", "compaction after a checkpoint: 250k adds, then 225k removed for 250", 25250, writeCompactedAfterCheckpoint},
	{"databricks-stream", "3,000 streaming commits as Databricks writes them", 15000, writeDatabricksStream},
	{"over-partitioned", "100k adds under 8 partition columns (65k partitions)", 100000, writeOverPartitioned},
	{"tombstones", "checkpoint keeping 400k tombstones: 5 rewrites of 100k files", 100000, writeTombstones},
	{"dvs", "deletion vectors: 100k adds, half rewritten with a vector", 100000, writeManyDVs},
	{"one-row-group", "checkpoint of 250k adds in one row group of v1 pages, as delta-rs writes it", 250000, func(dir string) error {
		_, err := deltagen.WriteBenchTable(dir, deltagen.BenchOptions{Files: 250000, RowGroupRows: 1 << 20, DataPageVersion: 1, TailCommits: -1})
		return err
	}},
	{"wide-stats", "wide stats: 100 commits x 100 adds, 300 columns", 10000, writeWideStats},
}

// writeV2Sidecars writes a v2Checkpoint table of 250k adds in 25
// commits and a UUID-named v2 checkpoint of the last, its file actions in
// 4 Parquet sidecars.
func writeV2Sidecars(dir string) error {
	t := deltagen.New(dir)
	features := []string{"v2Checkpoint"}
	if _, err := t.Commit(deltagen.Protocol(3, 7, features, features), deltagen.Metadata(deltagen.SimpleSchema, nil, map[string]string{"delta.checkpointPolicy": "v2"})); err != nil {
		return err
	}
	for c := range 25 {
		var adds []action.Action
		for i := range 10000 {
			adds = append(adds, deltagen.AddFile(fmt.Sprintf("part-%05d-%05d.parquet", c, i), 100000, 1704067200000, nil, deltagen.Stats(0, 999)))
		}
		if _, err := t.Commit(adds...); err != nil {
			return err
		}
	}
	_, err := t.V2Checkpoint(25, "parquet", 4)
	return err
}

// writeCompactions writes rounds of a 50k-add commit whose files a second
// commit removes while adding 1k: a log of mostly tombstones.
func writeCompactions(dir string) error {
	t := deltagen.New(dir)
	if _, err := t.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)); err != nil {
		return err
	}
	for r := range 5 {
		var adds, compact []action.Action
		for i := range 50000 {
			p := fmt.Sprintf("small-%d-%06d.parquet", r, i)
			adds = append(adds, deltagen.AddFile(p, 1000, 1704067200000, nil, deltagen.Stats(0, 9)))
			compact = append(compact, deltagen.Remove(p, 1704067300000))
		}
		for i := range 1000 {
			compact = append(compact, deltagen.AddFile(fmt.Sprintf("big-%d-%04d.parquet", r, i), 50000, 1704067300000, nil, deltagen.Stats(0, 499)))
		}
		if _, err := t.Commit(adds...); err != nil {
			return err
		}
		if _, err := t.Commit(compact...); err != nil {
			return err
		}
	}
	return nil
}

// writeCompactedAfterCheckpoint writes a checkpoint of 250k adds, then
// one commit that removes 225k of those files and adds 250: an OPTIMIZE
// after a checkpoint, the tail deciding most of the checkpoint's rows.
func writeCompactedAfterCheckpoint(dir string) error {
	info, err := deltagen.WriteBenchTable(dir, deltagen.BenchOptions{Files: 250000, TailCommits: -1})
	if err != nil {
		return err
	}
	ctx := context.Background()
	st, err := blobstore.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	table, err := versions.Open(ctx, st, versions.Options{})
	if err != nil {
		return err
	}
	snap, err := table.Snapshot(ctx, info.LatestVersion)
	if err != nil {
		return err
	}
	var acts []action.Action
	for i := range 225000 {
		acts = append(acts, deltagen.Remove(snap.Files[(i*7)%len(snap.Files)].Path, 1704100000000))
	}
	for i := range 250 {
		acts = append(acts, deltagen.AddFile(fmt.Sprintf("date=2024-01-01/part-%05d-compacted.c000.snappy.parquet", i), 1<<30, 1704100000000, map[string]*string{"date": deltagen.Str("2024-01-01")}, deltagen.Stats(0, 99999)))
	}
	return deltagen.New(dir).CommitAt(info.LatestVersion+1, acts...)
}

// writeDatabricksStream writes 3,000 commits of a streaming query as
// Databricks writes them, no checkpoint: each a commitInfo of about a
// kilobyte (parameters, metrics, engine), a txn, and 5 adds with stats and
// four tags.
func writeDatabricksStream(dir string) error {
	log := deltagen.New(dir).LogDir()
	if err := os.MkdirAll(log, 0o755); err != nil {
		return err
	}
	for v := range 3000 {
		ts := 1704067200000 + int64(v)*60000
		var b strings.Builder
		fmt.Fprintf(&b, `{"commitInfo":{"timestamp":%d,"userId":"1234567890123456","userName":"someone@example.com","operation":"STREAMING UPDATE","operationParameters":{"outputMode":"Append","queryId":"5e1b2c3d-0000-4000-8000-000000000007","epochId":"%d"},"notebook":{"notebookId":"987654321"},"clusterId":"0101-123456-abcdefgh","readVersion":%d,"isolationLevel":"WriteSerializable","isBlindAppend":true,"operationMetrics":{"numRemovedFiles":"0","numOutputRows":"%d","numOutputBytes":"%d","numAddedFiles":"5"},"tags":{"restoresDeletedRows":"false","noRowsCopied":"true"},"engineInfo":"Databricks-Runtime/15.4.x-scala2.12","txnId":"%s"}}`+"\n",
			ts, v, v-1, 1000*v+7, 123456*v+11, deltagen.NewUUID())
		if v == 0 {
			b.WriteString(`{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}` + "\n")
			fmt.Fprintf(&b, `{"metaData":{"id":"5e1b2c3d-0000-4000-8000-000000000001","format":{"provider":"parquet","options":{}},"schemaString":%q,"partitionColumns":[],"configuration":{},"createdTime":%d}}`+"\n", deltagen.SimpleSchema, ts)
		}
		fmt.Fprintf(&b, `{"txn":{"appId":"5e1b2c3d-0000-4000-8000-000000000007","version":%d,"lastUpdated":%d}}`+"\n", v, ts)
		for k := range 5 {
			id := int64(v)*5000 + int64(k)*1000
			fmt.Fprintf(&b, `{"add":{"path":"part-%05d-%s-c000.snappy.parquet","partitionValues":{},"size":123456,"modificationTime":%d,"dataChange":true,"stats":%q,"tags":{"INSERTION_TIME":"%d","MIN_INSERTION_TIME":"%d","MAX_INSERTION_TIME":"%d","OPTIMIZE_TARGET_SIZE":"268435456"}}}`+"\n",
				k, deltagen.NewUUID(), ts, deltagen.Stats(id, id+999), ts*1000, ts*1000, ts*1000)
		}
		if err := os.WriteFile(filepath.Join(log, fmt.Sprintf("%020d.json", v)), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeOverPartitioned writes 10 commits of 10k adds partitioned by 8
// columns of 4 values each: 65k partitions for 100k files, most objects of
// partition values new to their commit.
func writeOverPartitioned(dir string) error {
	t := deltagen.New(dir)
	cols := []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"}
	fields := []string{`{"name":"id","type":"long","nullable":true,"metadata":{}}`}
	for _, c := range cols {
		fields = append(fields, `{"name":"`+c+`","type":"string","nullable":true,"metadata":{}}`)
	}
	schema := `{"type":"struct","fields":[` + strings.Join(fields, ",") + `]}`
	if _, err := t.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schema, cols, nil)); err != nil {
		return err
	}
	for c := range 10 {
		var acts []action.Action
		for k := range 10000 {
			i := c*10000 + k
			values := map[string]*string{}
			var dirs []string
			for j, col := range cols {
				v := fmt.Sprintf("value-%d-%d", j, (i>>(2*j))%4)
				values[col] = deltagen.Str(v)
				dirs = append(dirs, col+"="+v)
			}
			path := strings.Join(dirs, "/") + fmt.Sprintf("/part-%05d-%s.c000.snappy.parquet", i, deltagen.NewUUID())
			acts = append(acts, deltagen.AddFile(path, 1000, 1704067200000, values, deltagen.Stats(0, 9)))
		}
		if _, err := t.Commit(acts...); err != nil {
			return err
		}
	}
	return nil
}

// writeTombstones writes 5 commits that each replace all 100k live files
// with 100k new ones, and a checkpoint of the last: 100k adds under 400k
// removes, as a table keeps them for the retention interval.
func writeTombstones(dir string) error {
	t := deltagen.New(dir)
	if _, err := t.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)); err != nil {
		return err
	}
	var live []string
	var v int64
	for r := range 5 {
		var acts []action.Action
		for _, p := range live {
			acts = append(acts, deltagen.Remove(p, 1704067300000+int64(r)))
		}
		live = live[:0]
		for i := range 100000 {
			p := fmt.Sprintf("part-%05d-%s-c000.snappy.parquet", i%200, deltagen.NewUUID())
			live = append(live, p)
			acts = append(acts, deltagen.AddFile(p, 100000, 1704067200000, nil, deltagen.Stats(0, 999)))
		}
		var err error
		if v, err = t.Commit(acts...); err != nil {
			return err
		}
	}
	_, err := t.Checkpoint(v)
	return err
}

// writeManyDVs writes 10 commits of 10k adds, then 10 deletes that each
// give 5k of those files a deletion vector (in a shared vector file, as
// Spark and Databricks write them): the log of a table under DML.
func writeManyDVs(dir string) error {
	t := deltagen.New(dir)
	features := []string{"deletionVectors"}
	if _, err := t.Commit(deltagen.Protocol(3, 7, features, features), deltagen.Metadata(deltagen.SimpleSchema, nil, map[string]string{"delta.enableDeletionVectors": "true"})); err != nil {
		return err
	}
	path := func(i int) string { return fmt.Sprintf("part-%06d-%s.c000.snappy.parquet", i, deltagen.NewUUID()[:8]) }
	paths := make([]string, 100000)
	for c := range 10 {
		var adds []action.Action
		for i := c * 10000; i < (c+1)*10000; i++ {
			paths[i] = path(i)
			adds = append(adds, deltagen.AddFile(paths[i], 100000, 1704067200000, nil, deltagen.Stats(0, 999)))
		}
		if _, err := t.Commit(adds...); err != nil {
			return err
		}
	}
	for c := range 10 {
		var acts []action.Action
		for i := c * 10000; i < c*10000+5000; i++ {
			offset := int32(1 + 40*(i%5000))
			dv := action.DeletionVector{StorageType: "u", PathOrInlineDv: "ab" + deltagen.Z85Encode([]byte(deltagen.NewUUID()[:16])), Offset: &offset, SizeInBytes: 36, Cardinality: 3}
			acts = append(acts, deltagen.Remove(paths[i], 1704067300000), deltagen.AddFileDV(paths[i], 100000, 1704067200000, nil, deltagen.Stats(0, 999), dv))
		}
		if _, err := t.Commit(acts...); err != nil {
			return err
		}
	}
	return nil
}

// writeWideStats writes adds whose stats cover 300 columns.
func writeWideStats(dir string) error {
	t := deltagen.New(dir)
	var fields []string
	for c := range 300 {
		fields = append(fields, fmt.Sprintf(`{"name":"c%d","type":"long","nullable":true,"metadata":{}}`, c))
	}
	schema := `{"type":"struct","fields":[` + strings.Join(fields, ",") + `]}`
	if _, err := t.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schema, nil, nil)); err != nil {
		return err
	}
	for v := range 100 {
		var acts []action.Action
		for k := range 100 {
			var mins, maxs, nulls []string
			for c := range 300 {
				mins = append(mins, fmt.Sprintf(`"c%d":%d`, c, v*k))
				maxs = append(maxs, fmt.Sprintf(`"c%d":%d`, c, v*k+c))
				nulls = append(nulls, fmt.Sprintf(`"c%d":0`, c))
			}
			stats := `{"numRecords":1000,"minValues":{` + strings.Join(mins, ",") + `},"maxValues":{` + strings.Join(maxs, ",") + `},"nullCount":{` + strings.Join(nulls, ",") + `}}`
			acts = append(acts, deltagen.AddFile(fmt.Sprintf("part-%03d-%03d.parquet", v, k), 100000, 1704067200000, nil, stats))
		}
		if _, err := t.Commit(acts...); err != nil {
			return err
		}
	}
	return nil
}

// TestShapesBenchmark opens and lists tables of several shapes with deltafs
// and with delta-rs in one run, looking for a shape deltafs is slow on.
func TestShapesBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_SHAPES_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_SHAPES_BENCH=1 to run")
	}
	python := pythonOrSkip(t)
	ctx := context.Background()
	for _, s := range benchShapes {
		if !strings.Contains(s.folder, os.Getenv("DELTAFS_SHAPE")) {
			continue
		}
		dir := cachedBenchDir(t, "deltafs-shape-"+s.folder, s.write)
		var ours []float64
		for range 5 {
			start := time.Now()
			snap := latestSnapshot(t, ctx, dir)
			ours = append(ours, time.Since(start).Seconds())
			if len(snap.Files) != s.files {
				t.Fatalf("%s: deltafs sees %d files, want %d", s.name, len(snap.Files), s.files)
			}
		}
		res := deltaRSLoad(t, python, dir, 5)
		if res.Files != s.files {
			t.Fatalf("%s: delta-rs sees %d files, want %d", s.name, res.Files, s.files)
		}
		t.Logf("%-50s deltafs %7.1f ms, delta-rs %7.1f ms: %.2fx", s.name, median(ours)*1e3, res.Median*1e3, median(ours)/res.Median)
	}
}
