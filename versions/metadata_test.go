package versions

import (
	"context"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
)

// A version whose metaData Delta readers refuse (here a partition column
// the schema lacks) is refused as a protocol deltafs cannot read is:
// Snapshot says why, and Refresh leaves latest where it was.
func TestInvalidMetadataRefused(t *testing.T) {
	ctx := context.Background()
	st, err := blobstore.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	commit := func(v int64, partitionColumns string) {
		t.Helper()
		data := `{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"metaData":{"id":"x","format":{"provider":"parquet"},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"p\",\"type\":\"string\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":` + partitionColumns + `}}
{"add":{"path":"p=1/a.parquet","partitionValues":{"p":"1"},"size":1,"modificationTime":1,"dataChange":true}}
`
		if err := st.Write(ctx, replay.LogDir+replay.Padded(v)+".json", []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	commit(0, `["p"]`)
	table, err := Open(ctx, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := table.Snapshot(ctx, 0); err != nil {
		t.Fatalf("v0: %v", err)
	}
	commit(1, `["nope"]`)
	if _, err := table.Refresh(ctx, nil); err == nil || !strings.Contains(err.Error(), `partition column "nope" is not in the schema`) {
		t.Errorf("refresh: %v, want the partition column named", err)
	}
	if table.Latest() != 0 {
		t.Errorf("latest moved to %d", table.Latest())
	}
	if _, err := table.Snapshot(ctx, 1); err == nil || !strings.Contains(err.Error(), "v1: invalid metaData") {
		t.Errorf("v1: %v, want invalid metaData", err)
	}
}
