package fs

import (
	"context"
	"os"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions"
)

// Table is what the mount needs from the versions layer.
type Table interface {
	Latest() int64                                 // newest known version (cached, no I/O)
	Versions(ctx context.Context) ([]int64, error) // rebuildable versions, ascending
	// CommitTime is when version v was committed, by its commit file
	// (versions.Table.CommitTime), from the listing; ok is false for a
	// version that cannot be rebuilt.
	CommitTime(ctx context.Context, v int64) (ms int64, ok bool, err error)
	// HasCommit reports whether version v can be rebuilt and the listing
	// holds its commit (changes/<N> exists), with no request.
	HasCommit(ctx context.Context, v int64) (bool, error)
	Snapshot(ctx context.Context, v int64) (*replay.Snapshot, error)          // cached by the table
	History(ctx context.Context) ([]HistoryEntry, error)                      // for history.jsonl
	ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) // data file bytes; path is replay.File.Path
	// Refresh picks up new commits. It calls beforeMove with the new
	// latest after Versions lists it and before Latest returns it; an
	// error with changed true says latest moved but not to the end.
	Refresh(ctx context.Context, beforeMove func(latest int64)) (changed bool, err error)
	// AsOf and Instants are time travel by instant (versions.Table.AsOf).
	AsOf(ctx context.Context, millis int64) (version int64, ok bool, err error)
	Instants(ctx context.Context) ([]versions.Instant, error)
	// Changes is what commit v did (versions.Table.Changes);
	// versions.ErrNoCommit for a version without a commit.
	Changes(ctx context.Context, v int64) (*versions.Changes, error)
}

// HistoryEntry is one version's line in history.jsonl.
type HistoryEntry struct {
	Version   int64  `json:"version"`
	Instant   *int64 `json:"instant,omitempty"`   // when committed, by Delta's clock (what at/ resolves), ms since the epoch; none for a version at/ cannot name
	Timestamp int64  `json:"timestamp"`           // the commit's own timestamp, milliseconds since the epoch
	Operation string `json:"operation,omitempty"` // none without a commit or a commitInfo
	Files     int    `json:"files"`               // live data files at this version
	// Files the commit added (changes/<N>/added) and removed
	// (changes/<N>/removed); none where not known: the commit is gone or damaged.
	Added   *int   `json:"added,omitempty"`
	Removed *int   `json:"removed,omitempty"`
	Error   string `json:"error,omitempty"` // why the version could not be read (a damaged log)
}

// AbsoluteReader is implemented by Tables that can read deletion vector
// files stored at absolute paths or URIs (storage type 'p'). uri is the
// descriptor's pathOrInlineDv as written in the log; the Table maps it to an
// object it is willing to read, or refuses it with an error. Without it,
// files with such vectors cannot be served (EIO).
type AbsoluteReader interface {
	ReadAbsolute(ctx context.Context, uri string, off, n int64) ([]byte, error)
}

// LocalFiler is implemented by Tables whose data files are files on this
// machine. The mount checks a file's stored size at open, and lets the
// kernel read a plain data file straight from its file (FUSE passthrough),
// as fast as reading it directly; path is replay.File.Path, and ok is
// false for a file to be read through the Table. open opens it under the
// same rules as every read of the Table (no link followed, nothing outside
// the table, only a regular file) and returns its size.
// HasLocalFiles reports whether the table's files are files on this
// machine at all (a local table), as opposed to objects in a store.
type LocalFiler interface {
	LocalFile(path string) (open func() (f *os.File, size int64, err error), ok bool)
	HasLocalFiles() bool
}

// ExternalServer is implemented by a Table that reads some files outside
// the table root (absolute URIs in the log, as a shallow clone's): the
// versions show those it serves, and hide the others.
type ExternalServer interface {
	ServesExternal(path string) bool
}
