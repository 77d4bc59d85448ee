package deltagen

import (
	"fmt"
	"path/filepath"
)

// CheckpointInfo describes a checkpoint just written.
type CheckpointInfo struct {
	Version int64
	// Size is the number of actions in the checkpoint (the "size" field of
	// _last_checkpoint). For v2 checkpoints it counts the checkpointMetadata
	// and sidecar actions plus the file actions in the sidecars.
	Size int64
	// Parts is the number of parts of a multi-part checkpoint, else 0.
	Parts int
	// NumAdds is the number of add actions.
	NumAdds int64
	// Files are the checkpoint files written, in part order (absolute paths);
	// for v2 checkpoints the top-level file only.
	Files []string
	// Sidecars are the v2 sidecar files written (absolute paths).
	Sidecars []string
	// SizeInBytes is the total size of Files.
	SizeInBytes int64
}

// ClassicCheckpointPath is the path of the classic checkpoint of version v.
func (t *Table) ClassicCheckpointPath(v int64) string {
	return filepath.Join(t.LogDir(), fmt.Sprintf("%020d.checkpoint.parquet", v))
}

// CheckpointPartPath is the path of part (1-based) of a multi-part
// checkpoint of version v in parts parts.
func (t *Table) CheckpointPartPath(v int64, part, parts int) string {
	return filepath.Join(t.LogDir(), fmt.Sprintf("%020d.checkpoint.%010d.%010d.parquet", v, part, parts))
}

// Checkpoint writes the classic checkpoint %020d.checkpoint.parquet of the
// reconciled state at version v.
func (t *Table) Checkpoint(v int64, opts ...CheckpointOption) (*CheckpointInfo, error) {
	st, err := t.StateAt(v)
	if err != nil {
		return nil, err
	}
	rows := toCpRows(append(nonFileActions(st), fileActions(st)...))
	name := t.ClassicCheckpointPath(v)
	size, err := writeParquet(name, newPQConfig(opts), sliceSource(rows))
	if err != nil {
		return nil, fmt.Errorf("deltagen: checkpoint v%d: %w", v, err)
	}
	return &CheckpointInfo{
		Version: v, Size: st.NumActions(), NumAdds: int64(len(st.Adds)),
		Files: []string{name}, SizeInBytes: size,
	}, nil
}

// MultiPartCheckpoint writes the state at version v as a multi-part
// checkpoint of parts files %020d.checkpoint.%010d.%010d.parquet. The
// non-file actions go to part 1; the file actions are split into contiguous
// runs of near-equal length over all parts (a part may hold no rows when
// there are fewer file actions than parts). Remove a part with os.Remove on
// CheckpointPartPath to make the checkpoint incomplete.
func (t *Table) MultiPartCheckpoint(v int64, parts int, opts ...CheckpointOption) (*CheckpointInfo, error) {
	if parts < 1 {
		return nil, fmt.Errorf("deltagen: multi-part checkpoint v%d: %d parts", v, parts)
	}
	st, err := t.StateAt(v)
	if err != nil {
		return nil, err
	}
	head, files := toCpRows(nonFileActions(st)), toCpRows(fileActions(st))
	info := &CheckpointInfo{Version: v, Size: st.NumActions(), Parts: parts, NumAdds: int64(len(st.Adds))}
	cfg := newPQConfig(opts)
	for p := 1; p <= parts; p++ {
		lo, hi := split(len(files), parts, p-1)
		var rows []cpRow
		if p == 1 {
			rows = append(rows, head...)
		}
		rows = append(rows, files[lo:hi]...)
		name := t.CheckpointPartPath(v, p, parts)
		size, err := writeParquet(name, cfg, sliceSource(rows))
		if err != nil {
			return nil, fmt.Errorf("deltagen: checkpoint v%d part %d: %w", v, p, err)
		}
		info.Files = append(info.Files, name)
		info.SizeInBytes += size
	}
	return info, nil
}

// split returns the bounds of chunk i (0-based) of n items cut into k
// near-equal contiguous chunks.
func split(n, k, i int) (lo, hi int) {
	return i * n / k, (i + 1) * n / k
}
