package replay

import (
	"context"
	"fmt"
)

// NumRecords returns each live file's numRecords from its stats (-1 when the
// stats are absent), index-aligned with Files. A snapshot is built without
// reading the checkpoint's stats, which are most of its bytes and serve only
// this; the first successful call reads them and keeps the result.
func (s *Snapshot) NumRecords(ctx context.Context) ([]int64, error) {
	s.statsMu.Lock()
	stats := s.stats
	s.statsMu.Unlock()
	if stats != nil {
		return stats, nil
	}
	var cp []int64
	if s.checkpointRecords != nil {
		var err error
		if cp, err = s.checkpointRecords(ctx); err != nil {
			return nil, err
		}
	}
	if len(cp)+len(s.records) != len(s.Files) {
		return nil, fmt.Errorf("stats of v%d: %d numbers for %d files", s.Version, len(cp)+len(s.records), len(s.Files))
	}
	stats = append(append(make([]int64, 0, len(s.Files)), cp...), s.records...)
	s.statsMu.Lock()
	s.stats = stats
	s.statsMu.Unlock()
	return stats, nil
}

// NumRecordsOf returns the numRecords of the live file at path; ok is false
// when the file is not live or its stats carry none.
func (s *Snapshot) NumRecordsOf(ctx context.Context, path string) (n int64, ok bool, err error) {
	f := s.Find(path)
	if f == nil {
		return 0, false, nil
	}
	all, err := s.NumRecords(ctx)
	if err != nil {
		return 0, false, err
	}
	n = all[s.indexOf(path)]
	return n, n >= 0, nil
}

// SetNumRecords gives a snapshot built by hand (a test's) its numRecords,
// index-aligned with Files.
func (s *Snapshot) SetNumRecords(records []int64) {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	s.stats = records
}
