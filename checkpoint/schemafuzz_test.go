package checkpoint

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/tests/deltagen"
)

// schemaSlots are the columns a checkpoint reader looks for, each of
// which FuzzCheckpointSchema gives some kind of values
// (deltagen.AnyKinds), or leaves out.
var schemaSlots = []string{
	"add.path", "add.size", "add.modificationTime", "add.dataChange", "add.stats", "add.partitionValues",
	"add.stats_parsed.numRecords",
	"add.deletionVector.storageType", "add.deletionVector.pathOrInlineDv", "add.deletionVector.offset",
	"add.deletionVector.sizeInBytes", "add.deletionVector.cardinality", "add.deletionVector.maxRowIndex",
	"remove.path", "remove.deletionTimestamp",
	"protocol.minReaderVersion", "protocol.minWriterVersion", "protocol.readerFeatures", "protocol.writerFeatures",
	"metaData.id", "metaData.schemaString", "metaData.partitionColumns", "metaData.configuration",
	"metaData.format.provider", "metaData.createdTime",
	"txn.appId", "txn.version", "txn.lastUpdated",
	"domainMetadata.domain", "domainMetadata.configuration", "domainMetadata.removed",
	"sidecar.path", "sidecar.sizeInBytes", "sidecar.modificationTime", "checkpointMetadata.version",
}

// FuzzCheckpointSchema writes checkpoints whose columns hold values of
// any kind (strings where numbers belong, lists where a string does, a
// column left out), and reads each at every detail level and for its
// tombstones: an error or a result, never a panic.
func FuzzCheckpointSchema(f *testing.F) {
	valid := []byte{1, 2, 2, 4, 1, 6, 2, 1, 1, 3, 3, 2, 9, 1, 9, 3, 3, 5, 5, 1, 1, 5, 6, 1, 9, 1, 2, 9, 1, 1, 4, 0, 0, 0, 2}
	f.Add(valid, uint32(0xffffffff))
	f.Add(valid, uint32(0x0f0f0f0f))
	wrong := bytes.Clone(valid)
	wrong[1], wrong[5], wrong[17] = 1, 5, 6 // a string size, a list of partition values, a map of features
	f.Add(wrong, uint32(0xffffffff))
	f.Fuzz(func(t *testing.T, kinds []byte, groups uint32) {
		// Bit r*8+g of groups: whether row r has its g-th top-level group.
		tops := map[string]int{}
		for _, s := range schemaSlots {
			top, _, _ := strings.Cut(s, ".")
			if _, ok := tops[top]; !ok {
				tops[top] = len(tops)
			}
		}
		data, err := deltagen.AnySchemaFile(schemaSlots, kinds, 4, func(r int, group string) bool {
			return groups>>(r*8+tops[group]%8)&1 == 1
		})
		if err != nil {
			t.Skipf("parquet-go does not write this schema: %v", err)
		}
		if data == nil {
			return
		}
		st := bytesStorage(data)
		cp := Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}
		for _, d := range []Detail{NoDetails, Partitions, AllDetails} {
			Read(context.Background(), st, cp, Options{Root: "file:///t", Details: d})
		}
		CountTombstones(context.Background(), st, cp)
	})
}
