package fs

import (
	"context"

	"github.com/deltafs/deltafs/replay"
)

// Table is what the mount needs from the versions layer.
type Table interface {
	Latest() int64                                                            // newest known version (cached, no I/O)
	Versions(ctx context.Context) ([]int64, error)                            // rebuildable versions, ascending
	Snapshot(ctx context.Context, v int64) (*replay.Snapshot, error)          // cached by the table
	History(ctx context.Context) ([]HistoryEntry, error)                      // for history.jsonl
	ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) // data file bytes; path is replay.File.Path
	Refresh(ctx context.Context) (changed bool, err error)                    // pick up new commits
}

// HistoryEntry is one version's line in history.jsonl.
type HistoryEntry struct {
	Version   int64  `json:"version"`
	Timestamp int64  `json:"timestamp"` // milliseconds since the epoch
	Operation string `json:"operation"`
	Files     int    `json:"files"` // live data files at this version
}
