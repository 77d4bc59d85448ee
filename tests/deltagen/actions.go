package deltagen

import (
	"crypto/rand"
	"fmt"

	"github.com/deltafs/deltafs/replay/action"
)

// SimpleSchema is the schema of the files WriteDataFile writes: a non-null
// long "id" and a nullable string "value".
const SimpleSchema = `{"type":"struct","fields":[` +
	`{"name":"id","type":"long","nullable":false,"metadata":{}},` +
	`{"name":"value","type":"string","nullable":true,"metadata":{}}]}`

// PartitionedSchema is SimpleSchema plus a string partition column "date".
const PartitionedSchema = `{"type":"struct","fields":[` +
	`{"name":"id","type":"long","nullable":false,"metadata":{}},` +
	`{"name":"value","type":"string","nullable":true,"metadata":{}},` +
	`{"name":"date","type":"string","nullable":true,"metadata":{}}]}`

// Protocol returns a protocol action. Feature lists are only kept when the
// versions allow them (reader 3, writer 7).
func Protocol(r, w int, readerFeatures, writerFeatures []string) action.Action {
	p := &action.Protocol{MinReaderVersion: r, MinWriterVersion: w}
	if r >= 3 {
		p.ReaderFeatures = nonNil(readerFeatures)
	}
	if w >= 7 {
		p.WriterFeatures = nonNil(writerFeatures)
	}
	return action.Action{Protocol: p}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Metadata returns a metaData action with a fresh table id, Parquet format and
// a fixed creation time.
func Metadata(schemaJSON string, partitionCols []string, conf map[string]string) action.Action {
	created := int64(1700000000000)
	if partitionCols == nil {
		partitionCols = []string{}
	}
	return action.Action{Metadata: &action.Metadata{
		ID:               NewUUID(),
		Format:           action.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString:     schemaJSON,
		PartitionColumns: partitionCols,
		Configuration:    conf,
		CreatedTime:      &created,
	}}
}

// AddFile returns an add action with dataChange true. path must already be
// URL-encoded (see EncodePath); stats may be empty.
func AddFile(path string, size, mtime int64, partitionValues map[string]*string, stats string) action.Action {
	if partitionValues == nil {
		partitionValues = map[string]*string{}
	}
	return action.Action{Add: &action.Add{
		Path:             path,
		PartitionValues:  partitionValues,
		Size:             size,
		ModificationTime: mtime,
		DataChange:       true,
		Stats:            stats,
	}}
}

// AddFileDV is AddFile with a deletion vector.
func AddFileDV(path string, size, mtime int64, partitionValues map[string]*string, stats string, dv action.DeletionVector) action.Action {
	a := AddFile(path, size, mtime, partitionValues, stats)
	a.Add.DeletionVector = &dv
	return a
}

// Remove returns a remove action (a tombstone) deleted at ts.
func Remove(path string, ts int64) action.Action {
	return action.Action{Remove: &action.Remove{Path: path, DeletionTimestamp: &ts, DataChange: true}}
}

// RemoveDV is Remove for the logical file with deletion vector dv.
func RemoveDV(path string, ts int64, dv action.DeletionVector) action.Action {
	a := Remove(path, ts)
	a.Remove.DeletionVector = &dv
	return a
}

// CommitInfo returns a commitInfo action.
func CommitInfo(op string, ts int64) action.Action {
	return action.Action{CommitInfo: &action.CommitInfo{Timestamp: &ts, Operation: op}}
}

// Txn returns a txn action.
func Txn(appID string, version, lastUpdated int64) action.Action {
	return action.Action{Txn: &action.Txn{AppID: appID, Version: version, LastUpdated: &lastUpdated}}
}

// DomainMetadata returns a domainMetadata action; removed tombstones it.
func DomainMetadata(domain, configuration string, removed bool) action.Action {
	return action.Action{DomainMetadata: &action.DomainMetadata{Domain: domain, Configuration: configuration, Removed: removed}}
}

// Stats renders a stats JSON string for a file of the data-file schema
// holding ids lo..hi (numRecords = hi-lo+1).
func Stats(lo, hi int64) string {
	return fmt.Sprintf(`{"numRecords":%d,"minValues":{"id":%d,"value":"v%09d"},"maxValues":{"id":%d,"value":"v%09d"},"nullCount":{"id":0,"value":0}}`,
		hi-lo+1, lo, lo, hi, hi)
}

// Str returns a pointer to s, for partition values.
func Str(s string) *string { return &s }

// NewUUID returns a random (version 4) UUID in canonical text form.
func NewUUID() string {
	return formatUUID(newUUIDBytes())
}

func newUUIDBytes() [16]byte {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return b
}

func formatUUID(b [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
