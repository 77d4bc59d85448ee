package tests

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions"
	"github.com/deltafs/deltafs/versions/layout"
)

// fuzzLines are the action lines whole-table fuzzing builds commits from:
// valid ones, near misses and garbage.
var fuzzLines = []string{
	`{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}`,
	`{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["columnMapping","deletionVectors"],"writerFeatures":[]}}`,
	`{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"p\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":["p"],"configuration":{}}}`,
	`{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"col-1\"}}]}","partitionColumns":[],"configuration":{"delta.columnMapping.mode":"name","delta.enableInCommitTimestamps":"true"}}}`,
	`{"add":{"path":"a.parquet","partitionValues":{"p":"1"},"size":10,"modificationTime":1,"dataChange":true}}`,
	`{"add":{"path":"d%20e/f.parquet","partitionValues":{"p":null},"size":-1,"modificationTime":1,"dataChange":true}}`,
	`{"add":{"path":"../escape.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}`,
	`{"add":{"path":"s3://elsewhere/x.parquet","partitionValues":{},"size":9223372036854775807,"modificationTime":1,"dataChange":true}}`,
	`{"add":{"path":"` + strings.Repeat("y", 300) + `.parquet","partitionValues":{},"size":5,"modificationTime":1,"dataChange":true}}`,
	`{"add":{"path":"dv.parquet","partitionValues":{},"size":10,"modificationTime":1,"dataChange":true,"deletionVector":{"storageType":"i","pathOrInlineDv":"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L","offset":1,"sizeInBytes":40,"cardinality":6}}}`,
	`{"remove":{"path":"a.parquet","deletionTimestamp":2,"dataChange":true}}`,
	`{"commitInfo":{"timestamp":5,"inCommitTimestamp":5,"operation":"WRITE"}}`,
	`{"txn":{"appId":"a","version":3}}`,
	`{"domainMetadata":{"domain":"d","configuration":"{}","removed":false}}`,
	`not json at all`,
	`{"add":`,
	`{}`,
	``,
}

// fuzzNames are the commit versions fuzzing may write, stray ones too.
var fuzzNames = []int64{0, 1, 2, 3, 4, 10, 1 << 31, 10_000_000_000, 9223372036854775807}

// FuzzWholeTable builds a small table from the input (which commits
// exist, which lines each holds) and runs what the commands and the mount
// run on it: open, versions, every version's snapshot and layout,
// history, instants and a time-travel lookup. Each must end, with a value
// or an error, and never panic; the whole input gets a generous bound (a
// hang, not slowness, is what it catches).
func FuzzWholeTable(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 4, 1, 1, 4, 11})
	f.Add([]byte{0, 0, 1, 2, 4, 1, 2, 9, 10, 8, 7, 14})
	f.Add([]byte{3, 0, 2, 0, 15, 2, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755); err != nil {
			t.Fatal(err)
		}
		// data: [name index, line count, line indexes...]...
		for len(data) >= 2 {
			v := fuzzNames[int(data[0])%len(fuzzNames)]
			n := min(int(data[1])%8, len(data)-2)
			var b strings.Builder
			for _, li := range data[2 : 2+n] {
				b.WriteString(fuzzLines[int(li)%len(fuzzLines)])
				b.WriteByte('\n')
			}
			data = data[2+n:]
			if err := os.WriteFile(filepath.Join(dir, replay.CommitKey(v)), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if len(data) == 1 {
			hint := fmt.Sprintf(`{"version":%d,"size":3}`, binary.LittleEndian.Uint16([]byte{data[0], 0}))
			_ = os.WriteFile(filepath.Join(dir, "_delta_log", "_last_checkpoint"), []byte(hint), 0o644)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		exerciseTable(ctx, t, dir)
		if ctx.Err() != nil {
			t.Fatal("the commands did not end within a minute: a hang")
		}
	})
}

// exerciseTable runs the table's read paths, ignoring their errors.
func exerciseTable(ctx context.Context, t *testing.T, dir string) {
	st, err := blobstore.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	table, err := versions.Open(ctx, st, versions.Options{})
	if err != nil {
		return
	}
	vs, _ := table.Versions(ctx)
	for _, v := range append(vs, table.Latest()) {
		snap, err := table.Snapshot(ctx, v)
		if err != nil {
			continue
		}
		if d, err := snap.Details(ctx); err == nil {
			_, _ = layout.Of(snap, d.Partitions, d.NullCounted, layout.Options{})
		}
		_, _ = layout.Of(snap, nil, nil, layout.Options{Physical: true})
	}
	_, _ = table.History(ctx)
	_, _ = table.Instants(ctx)
	_, _, _ = table.AsOf(ctx, 3)
	_, _ = table.Refresh(ctx, nil)
}
