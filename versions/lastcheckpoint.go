package versions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
)

// LastCheckpointKey is the hint file pointing at a recent checkpoint.
const LastCheckpointKey = replay.LogDir + "_last_checkpoint"

// HintState says what became of _last_checkpoint.
type HintState string

const (
	HintValid   HintState = "valid"   // points at a complete checkpoint
	HintStale   HintState = "stale"   // valid, but a newer checkpoint exists
	HintMissing HintState = "missing" // no such file
	HintCorrupt HintState = "corrupt" // unreadable, or points at no complete checkpoint
)

// lastCheckpoint is the content of _last_checkpoint.
type lastCheckpoint struct {
	Version *int64 `json:"version"`
	Size    int64  `json:"size"`
	Parts   *int   `json:"parts,omitempty"`
}

// readLastCheckpoint reads the hint. A missing, unreadable or corrupt hint
// is not an error (why says what was wrong with one that is there): the
// caller then probes for checkpoints itself.
func readLastCheckpoint(ctx context.Context, st Store) (v int64, state HintState, why, err error) {
	data, err := st.Read(ctx, LastCheckpointKey)
	switch {
	case errors.Is(err, blobstore.ErrNotFound):
		return -1, HintMissing, nil, nil
	case unreadableHint(err):
		return -1, HintCorrupt, err, nil
	case err != nil:
		return -1, "", nil, fmt.Errorf("read %s: %w", LastCheckpointKey, err)
	}
	var lc lastCheckpoint
	if json.Unmarshal(data, &lc) != nil || lc.Version == nil || *lc.Version < 0 {
		return -1, HintCorrupt, errors.New("its content names no checkpoint version"), nil
	}
	return *lc.Version, HintValid, nil, nil
}

// unreadableHint says the hint is there but cannot be read as a file (a
// folder, a FIFO, a link the store will not follow, no permission): it is
// only a hint, so the log is listed instead, as for a garbled one. A
// storage failure is not: it would fail the listing too.
func unreadableHint(err error) bool {
	return errors.Is(err, blobstore.ErrRefused) || errors.Is(err, fs.ErrPermission)
}
