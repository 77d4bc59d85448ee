package versions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

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

// readLastCheckpoint reads the hint. A missing or corrupt hint is not an
// error: the caller then probes for checkpoints itself.
func readLastCheckpoint(ctx context.Context, st Store) (int64, HintState, error) {
	data, err := st.Read(ctx, LastCheckpointKey)
	if errors.Is(err, blobstore.ErrNotFound) {
		return -1, HintMissing, nil
	}
	if err != nil {
		return -1, "", fmt.Errorf("read %s: %w", LastCheckpointKey, err)
	}
	var lc lastCheckpoint
	if json.Unmarshal(data, &lc) != nil || lc.Version == nil || *lc.Version < 0 {
		return -1, HintCorrupt, nil
	}
	return *lc.Version, HintValid, nil
}
