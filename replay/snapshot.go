package replay

import (
	"sort"

	"github.com/deltafs/deltafs/replay/action"
)

// File is one live data file of a snapshot: what the mount shows and what
// `deltafs ls` prints. It is kept small because a snapshot may hold millions.
type File struct {
	// Path is the decoded path relative to the table root, '/'-separated,
	// never absolute and never containing "." or ".." elements.
	Path       string
	Size       int64 // bytes, from the add action
	ModTime    int64 // milliseconds since the epoch, from the add action
	NumRecords int64 // from the add's stats; -1 when unknown
	// Partition holds the partition values, shared between files of the
	// same partition.
	Partition *Partition
	// DV is the file's deletion vector, nil for most files.
	DV *action.DeletionVector
}

// DeletedRows is the number of rows the file's deletion vector removes.
func (f *File) DeletedRows() int64 {
	if f.DV == nil {
		return 0
	}
	return f.DV.Cardinality
}

// PartitionValue is one partition column's value; Null marks a null value.
type PartitionValue struct {
	Column string
	Value  string
	Null   bool
}

// Partition is the partition values of a file, sorted by column. Equal
// partitions are interned to one shared value.
type Partition struct {
	Values []PartitionValue
}

// Map returns the values as the add action spells them: null is nil.
func (p *Partition) Map() map[string]*string {
	m := make(map[string]*string)
	if p == nil {
		return m
	}
	for _, v := range p.Values {
		if v.Null {
			m[v.Column] = nil
		} else {
			s := v.Value
			m[v.Column] = &s
		}
	}
	return m
}

// Snapshot is the immutable state of a table at one version.
type Snapshot struct {
	Version  int64
	Protocol action.Protocol
	Metadata action.Metadata
	// Files are the live data files, sorted by Path.
	Files []File
	// Txns holds the latest transaction watermark per application.
	Txns map[string]action.Txn
	// Domains holds the live domain metadata per domain.
	Domains map[string]action.DomainMetadata
	// Tombstones is the number of remove actions still in the state.
	Tombstones int
}

// Find returns the live file with the given path, or nil.
func (s *Snapshot) Find(path string) *File {
	i := sort.Search(len(s.Files), func(i int) bool { return s.Files[i].Path >= path })
	if i < len(s.Files) && s.Files[i].Path == path {
		return &s.Files[i]
	}
	return nil
}
