package deltagen

import "github.com/deltafs/deltafs/replay/action"

// The Go types below define the Parquet schema of checkpoint files, following
// the checkpoint schema of PROTOCOL.md with the nullability delta-kernel-rs
// declares: every top-level action column is a nullable struct; inside it the
// fields an action always has are required and the others optional. Maps are
// map<string,string> with nullable values; lists are 3-level LISTs.

// cpRow is one row of a classic or multi-part (v1) checkpoint.
type cpRow struct {
	Txn            *cpTxn      `parquet:"txn"`
	Add            *cpAdd      `parquet:"add"`
	Remove         *cpRemove   `parquet:"remove"`
	MetaData       *cpMetadata `parquet:"metaData"`
	Protocol       *cpProtocol `parquet:"protocol"`
	DomainMetadata *cpDomain   `parquet:"domainMetadata"`
}

// cpV2Row is one row of a v2 checkpoint in Parquet.
type cpV2Row struct {
	Txn                *cpTxn                `parquet:"txn"`
	Add                *cpAdd                `parquet:"add"`
	Remove             *cpRemove             `parquet:"remove"`
	MetaData           *cpMetadata           `parquet:"metaData"`
	Protocol           *cpProtocol           `parquet:"protocol"`
	DomainMetadata     *cpDomain             `parquet:"domainMetadata"`
	CheckpointMetadata *cpCheckpointMetadata `parquet:"checkpointMetadata"`
	Sidecar            *cpSidecar            `parquet:"sidecar"`
}

// cpSidecarRow is one row of a v2 sidecar file: file actions only.
type cpSidecarRow struct {
	Add    *cpAdd    `parquet:"add"`
	Remove *cpRemove `parquet:"remove"`
}

type cpTxn struct {
	AppID       string `parquet:"appId"`
	Version     int64  `parquet:"version"`
	LastUpdated *int64 `parquet:"lastUpdated"`
}

type cpDV struct {
	StorageType    string `parquet:"storageType"`
	PathOrInlineDv string `parquet:"pathOrInlineDv"`
	Offset         *int32 `parquet:"offset"`
	SizeInBytes    int32  `parquet:"sizeInBytes"`
	Cardinality    int64  `parquet:"cardinality"`
	MaxRowIndex    *int64 `parquet:"maxRowIndex"`
}

type cpAdd struct {
	Path                    string             `parquet:"path"`
	PartitionValues         map[string]*string `parquet:"partitionValues" parquet-key:",dict" parquet-value:",dict"`
	Size                    int64              `parquet:"size"`
	ModificationTime        int64              `parquet:"modificationTime"`
	DataChange              bool               `parquet:"dataChange"`
	Stats                   string             `parquet:"stats,optional"`
	Tags                    map[string]*string `parquet:"tags,optional"`
	DeletionVector          *cpDV              `parquet:"deletionVector"`
	BaseRowID               *int64             `parquet:"baseRowId"`
	DefaultRowCommitVersion *int64             `parquet:"defaultRowCommitVersion"`
}

type cpRemove struct {
	Path                    string             `parquet:"path"`
	DeletionTimestamp       *int64             `parquet:"deletionTimestamp"`
	DataChange              bool               `parquet:"dataChange"`
	ExtendedFileMetadata    *bool              `parquet:"extendedFileMetadata"`
	PartitionValues         map[string]*string `parquet:"partitionValues,optional"`
	Size                    *int64             `parquet:"size"`
	DeletionVector          *cpDV              `parquet:"deletionVector"`
	BaseRowID               *int64             `parquet:"baseRowId"`
	DefaultRowCommitVersion *int64             `parquet:"defaultRowCommitVersion"`
}

type cpFormat struct {
	Provider string             `parquet:"provider"`
	Options  map[string]*string `parquet:"options"`
}

type cpMetadata struct {
	ID               string             `parquet:"id"`
	Name             string             `parquet:"name,optional"`
	Description      string             `parquet:"description,optional"`
	Format           cpFormat           `parquet:"format"`
	SchemaString     string             `parquet:"schemaString"`
	PartitionColumns []string           `parquet:"partitionColumns,list"`
	Configuration    map[string]*string `parquet:"configuration"`
	CreatedTime      *int64             `parquet:"createdTime"`
}

type cpProtocol struct {
	MinReaderVersion int32    `parquet:"minReaderVersion"`
	MinWriterVersion int32    `parquet:"minWriterVersion"`
	ReaderFeatures   []string `parquet:"readerFeatures,optional,list"`
	WriterFeatures   []string `parquet:"writerFeatures,optional,list"`
}

type cpDomain struct {
	Domain        string `parquet:"domain"`
	Configuration string `parquet:"configuration"`
	Removed       bool   `parquet:"removed"`
}

type cpSidecar struct {
	Path             string             `parquet:"path"`
	SizeInBytes      int64              `parquet:"sizeInBytes"`
	ModificationTime int64              `parquet:"modificationTime"`
	Tags             map[string]*string `parquet:"tags,optional"`
}

type cpCheckpointMetadata struct {
	Version int64              `parquet:"version"`
	Tags    map[string]*string `parquet:"tags,optional"`
}

// The conversions below turn replay/action values into checkpoint rows.

func strMap(m map[string]string) map[string]*string {
	if m == nil {
		return nil
	}
	out := make(map[string]*string, len(m))
	for k, v := range m {
		out[k] = &v
	}
	return out
}

func nonNilMap(m map[string]*string) map[string]*string {
	if m == nil {
		return map[string]*string{}
	}
	return m
}

func toCpDV(dv *action.DeletionVector) *cpDV {
	if dv == nil {
		return nil
	}
	return &cpDV{
		StorageType:    dv.StorageType,
		PathOrInlineDv: dv.PathOrInlineDv,
		Offset:         dv.Offset,
		SizeInBytes:    dv.SizeInBytes,
		Cardinality:    dv.Cardinality,
		MaxRowIndex:    dv.MaxRowIndex,
	}
}

func toCpAdd(a *action.Add) *cpAdd {
	return &cpAdd{
		Path:                    a.Path,
		PartitionValues:         nonNilMap(a.PartitionValues),
		Size:                    a.Size,
		ModificationTime:        a.ModificationTime,
		DataChange:              a.DataChange,
		Stats:                   a.Stats,
		Tags:                    strMap(a.Tags),
		DeletionVector:          toCpDV(a.DeletionVector),
		BaseRowID:               a.BaseRowID,
		DefaultRowCommitVersion: a.DefaultRowCommit,
	}
}

func toCpRemove(r *action.Remove) *cpRemove {
	var ext *bool
	if r.ExtendedFileMetadata {
		t := true
		ext = &t
	}
	return &cpRemove{
		Path:                 r.Path,
		DeletionTimestamp:    r.DeletionTimestamp,
		DataChange:           r.DataChange,
		ExtendedFileMetadata: ext,
		PartitionValues:      r.PartitionValues,
		Size:                 r.Size,
		DeletionVector:       toCpDV(r.DeletionVector),
	}
}

func toCpMetadata(m *action.Metadata) *cpMetadata {
	cols := m.PartitionColumns
	if cols == nil {
		cols = []string{}
	}
	return &cpMetadata{
		ID:               m.ID,
		Name:             m.Name,
		Description:      m.Description,
		Format:           cpFormat{Provider: m.Format.Provider, Options: nonNilMap(strMap(m.Format.Options))},
		SchemaString:     m.SchemaString,
		PartitionColumns: cols,
		Configuration:    nonNilMap(strMap(m.Configuration)),
		CreatedTime:      m.CreatedTime,
	}
}

func toCpProtocol(p *action.Protocol) *cpProtocol {
	out := &cpProtocol{MinReaderVersion: int32(p.MinReaderVersion), MinWriterVersion: int32(p.MinWriterVersion)}
	if p.MinReaderVersion >= 3 {
		out.ReaderFeatures = nonNil(p.ReaderFeatures)
	}
	if p.MinWriterVersion >= 7 {
		out.WriterFeatures = nonNil(p.WriterFeatures)
	}
	return out
}

// toCpRows converts actions to v1 checkpoint rows (v2-only actions are
// dropped).
func toCpRows(actions []action.Action) []cpRow {
	rows := make([]cpRow, 0, len(actions))
	for i := range actions {
		if actions[i].CheckpointMetadata != nil || actions[i].Sidecar != nil {
			continue
		}
		r := toCpV2Row(&actions[i])
		rows = append(rows, cpRow{Txn: r.Txn, Add: r.Add, Remove: r.Remove, MetaData: r.MetaData, Protocol: r.Protocol, DomainMetadata: r.DomainMetadata})
	}
	return rows
}
