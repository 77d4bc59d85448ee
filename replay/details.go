package replay

import (
	"context"
	"fmt"

	"github.com/deltafs/deltafs/replay/action"
)

// Details are what a live file's add action says beyond what serving it
// needs: numRecords from its stats and its partition values. They are
// index-aligned with Snapshot.Files.
type Details struct {
	NumRecords []int64      // -1 where the stats carry none
	Partitions []*Partition // interned; nil for an unpartitioned table
	// NullCounted are the columns each file's stats count nulls of (nil:
	// unknown), what says that a file lacks a column the table added.
	NullCounted []*action.ColumnSet
}

// Details returns the snapshot's details. A snapshot is built without them:
// in a checkpoint they are the stats and partition values columns, most of
// its bytes, and the mount serves files without them. The first successful
// call reads them (for the checkpoint's files) and keeps them.
func (s *Snapshot) Details(ctx context.Context) (*Details, error) {
	s.detailsMu.Lock()
	d := s.details
	s.detailsMu.Unlock()
	if d != nil {
		return d, nil
	}
	head, err := s.head(ctx, false)
	if err != nil {
		return nil, err
	}
	n := len(head.NumRecords) + len(s.tail.NumRecords)
	if n != len(s.Files) || len(head.Partitions)+len(s.tail.Partitions) != n {
		return nil, fmt.Errorf("details of v%d: %d for %d files", s.Version, n, len(s.Files))
	}
	d = &Details{
		NumRecords:  append(append(make([]int64, 0, n), head.NumRecords...), s.tail.NumRecords...),
		Partitions:  append(append(make([]*Partition, 0, n), head.Partitions...), s.tail.Partitions...),
		NullCounted: append(append(make([]*action.ColumnSet, 0, n), head.NullCounted...), s.tail.NullCounted...),
	}
	if len(d.NullCounted) != n {
		return nil, fmt.Errorf("details of v%d: %d null counts for %d files", s.Version, len(d.NullCounted), n)
	}
	s.detailsMu.Lock()
	s.details = d
	s.detailsMu.Unlock()
	return d, nil
}

// Tombstones is the number of remove actions still in the state: those of
// the commits replayed and those of the checkpoint under them, which are
// read (their paths alone) on every call. No snapshot needs them: in a
// checkpoint that keeps many, their paths are most of its bytes.
func (s *Snapshot) Tombstones(ctx context.Context) (int, error) {
	if s.headTombstones == nil {
		return s.removes, nil
	}
	n, err := s.headTombstones(ctx)
	return n + s.removes, err
}

// Partitions returns the files' partition values (index-aligned with
// Files), reading no numRecords: from a checkpoint, the partition values
// columns are a small part of it, and the stats are most of it. They come
// from the details when those were read.
func (s *Snapshot) Partitions(ctx context.Context) ([]*Partition, error) {
	s.detailsMu.Lock()
	d, parts := s.details, s.partitions
	s.detailsMu.Unlock()
	if d != nil {
		return d.Partitions, nil
	}
	if parts != nil || len(s.Files) == 0 {
		return parts, nil
	}
	head, err := s.head(ctx, true)
	if err != nil {
		return nil, err
	}
	if n := len(head.Partitions) + len(s.tail.Partitions); n != len(s.Files) {
		return nil, fmt.Errorf("partition values of v%d: %d for %d files", s.Version, n, len(s.Files))
	}
	parts = append(append(make([]*Partition, 0, len(s.Files)), head.Partitions...), s.tail.Partitions...)
	s.detailsMu.Lock()
	s.partitions = parts
	s.detailsMu.Unlock()
	return parts, nil
}

// head returns the details of the files before the tail's, or only their
// partition values.
func (s *Snapshot) head(ctx context.Context, partitionsOnly bool) (*Details, error) {
	if s.headDetails == nil {
		return &Details{}, nil
	}
	return s.headDetails(ctx, partitionsOnly)
}

// DetailsOf returns the numRecords (-1 when unknown), partition values
// and null-counted columns of the live file at path; ok is false when no
// live file has that path.
func (s *Snapshot) DetailsOf(ctx context.Context, path string) (numRecords int64, p *Partition, counted *action.ColumnSet, ok bool, err error) {
	i := s.indexOf(path)
	if i < 0 {
		return 0, nil, nil, false, nil
	}
	d, err := s.Details(ctx)
	if err != nil {
		return 0, nil, nil, false, err
	}
	return d.NumRecords[i], d.Partitions[i], d.NullCounted[i], true, nil
}

// SetDetails gives a snapshot built by hand (a test's) its details, each
// slice aligned with Files.
func (s *Snapshot) SetDetails(d *Details) {
	s.detailsMu.Lock()
	defer s.detailsMu.Unlock()
	s.details = d
}
