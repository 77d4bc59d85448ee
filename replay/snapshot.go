package replay

import (
	"context"
	"sync"
	"unsafe"

	"github.com/deltafs/deltafs/replay/action"
)

// File is one live data file of a snapshot (see action.File).
type File = action.File

// Partition is a file's interned partition values (see action.Partition).
type Partition = action.Partition

// PartitionValue is one partition column's value (see action.PartitionValue).
type PartitionValue = action.PartitionValue

// Snapshot is the immutable state of a table at one version.
type Snapshot struct {
	Version  int64
	Protocol action.Protocol
	Metadata action.Metadata
	// Files are the live data files, in log order (checkpoint rows, then
	// commits newest first). Sorting a million paths would cost more than
	// building the snapshot, so consumers that need an order sort.
	Files []File
	// Txns holds the latest transaction watermark per application.
	Txns map[string]action.Txn
	// Domains holds the live domain metadata per domain.
	Domains map[string]action.DomainMetadata
	// removes counts the remove actions of the commits replayed (after
	// the checkpoint, or the older snapshot advanced from); headTombstones
	// counts those before them, when asked (Tombstones).
	removes        int
	headTombstones func(ctx context.Context) (int, error)

	indexOnce sync.Once
	index     map[string]int32

	// tail holds the details of the files from commits (the end of
	// Files); headDetails reads those of the files before them (from the
	// checkpoint, or the older snapshot advanced from): all of them, or
	// with partitionsOnly their partition values (NumRecords nil).
	tail        Details
	headDetails func(ctx context.Context, partitionsOnly bool) (*Details, error)
	detailsMu   sync.Mutex
	details     *Details            // GUARDED_BY(detailsMu)
	partitions  []*action.Partition // GUARDED_BY(detailsMu); read alone, before details
}

// Find returns the live file with the given path, or nil. The first call
// builds an index.
func (s *Snapshot) Find(path string) *File {
	if i := s.indexOf(path); i >= 0 {
		return &s.Files[i]
	}
	return nil
}

// indexOf returns the index in Files of the live file at path, or -1.
func (s *Snapshot) indexOf(path string) int {
	s.indexOnce.Do(func() {
		s.index = make(map[string]int32, len(s.Files))
		for i := range s.Files {
			s.index[s.Files[i].Path] = int32(i)
		}
	})
	if i, ok := s.index[path]; ok {
		return int(i)
	}
	return -1
}

// MemoryBytes estimates the memory the snapshot holds, for cache budgets.
func (s *Snapshot) MemoryBytes() int64 {
	n := int64(256)
	for i := range s.Files {
		n += int64(unsafe.Sizeof(s.Files[i])) + int64(len(s.Files[i].Path))
	}
	return n
}
