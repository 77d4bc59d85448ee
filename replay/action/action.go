package action

// Protocol is the protocol action: the reader and writer versions and, from
// reader version 3 and writer version 7, the named table features.
type Protocol struct {
	MinReaderVersion int      `json:"minReaderVersion"`
	MinWriterVersion int      `json:"minWriterVersion"`
	ReaderFeatures   []string `json:"readerFeatures,omitempty"`
	WriterFeatures   []string `json:"writerFeatures,omitempty"`
}

// Format names the data file format of a table ("parquet").
type Format struct {
	Provider string            `json:"provider"`
	Options  map[string]string `json:"options,omitempty"`
}

// Metadata is the metaData action.
type Metadata struct {
	ID               string            `json:"id"`
	Name             string            `json:"name,omitempty"`
	Description      string            `json:"description,omitempty"`
	Format           Format            `json:"format"`
	SchemaString     string            `json:"schemaString"`
	PartitionColumns []string          `json:"partitionColumns"`
	Configuration    map[string]string `json:"configuration,omitempty"`
	CreatedTime      *int64            `json:"createdTime,omitempty"`
}

// Add is the add action: a data file that is part of the table.
type Add struct {
	Path             string             `json:"path"`
	PartitionValues  map[string]*string `json:"partitionValues"`
	Size             int64              `json:"size"`
	ModificationTime int64              `json:"modificationTime"`
	DataChange       bool               `json:"dataChange"`
	Stats            string             `json:"stats,omitempty"`
	Tags             map[string]string  `json:"tags,omitempty"`
	DeletionVector   *DeletionVector    `json:"deletionVector,omitempty"`
	BaseRowID        *int64             `json:"baseRowId,omitempty"`
	DefaultRowCommit *int64             `json:"defaultRowCommitVersion,omitempty"`

	// As the scanner leaves them (scan.go), instead of Stats and
	// PartitionValues: the stats as their JSON string literal, the
	// partition values as their JSON object.
	statsRaw, partitionRaw []byte
	// nullCounted caches NullCounted, once read (counted).
	nullCounted *ColumnSet
	counted     bool
	// settled: numRecords holds what NumRecords returns, the raw stats
	// dropped (Settle).
	settled    bool
	numRecords int64
}

// Remove is the remove action: a tombstone for a logical file.
type Remove struct {
	Path                 string             `json:"path"`
	DeletionTimestamp    *int64             `json:"deletionTimestamp,omitempty"`
	DataChange           bool               `json:"dataChange"`
	ExtendedFileMetadata bool               `json:"extendedFileMetadata,omitempty"`
	PartitionValues      map[string]*string `json:"partitionValues,omitempty"`
	Size                 *int64             `json:"size,omitempty"`
	DeletionVector       *DeletionVector    `json:"deletionVector,omitempty"`
	Tags                 map[string]string  `json:"tags,omitempty"`

	partitionRaw []byte // as the scanner leaves PartitionValues (scan.go)
}

// CDC is the cdc action: a change-data file a commit wrote (under
// _change_data/), rows with a _change_type column. Replay ignores it;
// changes/<N>/cdc serves it.
type CDC struct {
	Path            string             `json:"path"`
	PartitionValues map[string]*string `json:"partitionValues"`
	Size            int64              `json:"size"`
	DataChange      bool               `json:"dataChange"`
	Tags            map[string]string  `json:"tags,omitempty"`
}

// Txn is an application's transaction watermark.
type Txn struct {
	AppID       string `json:"appId"`
	Version     int64  `json:"version"`
	LastUpdated *int64 `json:"lastUpdated,omitempty"`
}

// DomainMetadata carries per-domain configuration; Removed tombstones it.
type DomainMetadata struct {
	Domain        string `json:"domain"`
	Configuration string `json:"configuration"`
	Removed       bool   `json:"removed"`
}

// CommitInfo is the provenance action. Only the fields deltafs shows are
// decoded; the rest of the object is ignored.
type CommitInfo struct {
	Timestamp         *int64 `json:"timestamp,omitempty"`
	InCommitTimestamp *int64 `json:"inCommitTimestamp,omitempty"`
	Operation         string `json:"operation,omitempty"`
}

// Sidecar points a v2 checkpoint at a file in _delta_log/_sidecars holding
// file actions.
type Sidecar struct {
	Path             string            `json:"path"`
	SizeInBytes      int64             `json:"sizeInBytes"`
	ModificationTime int64             `json:"modificationTime"`
	Tags             map[string]string `json:"tags,omitempty"`
}

// CheckpointMetadata marks a v2 checkpoint and the version it describes.
type CheckpointMetadata struct {
	Version int64             `json:"version"`
	Tags    map[string]string `json:"tags,omitempty"`
}

// Action is one line of a commit or JSON checkpoint. Exactly one field is set
// for a known action; none for an action type this package does not know.
type Action struct {
	Add                *Add                `json:"add,omitempty"`
	Remove             *Remove             `json:"remove,omitempty"`
	CDC                *CDC                `json:"cdc,omitempty"`
	Metadata           *Metadata           `json:"metaData,omitempty"`
	Protocol           *Protocol           `json:"protocol,omitempty"`
	Txn                *Txn                `json:"txn,omitempty"`
	DomainMetadata     *DomainMetadata     `json:"domainMetadata,omitempty"`
	CommitInfo         *CommitInfo         `json:"commitInfo,omitempty"`
	Sidecar            *Sidecar            `json:"sidecar,omitempty"`
	CheckpointMetadata *CheckpointMetadata `json:"checkpointMetadata,omitempty"`
}
