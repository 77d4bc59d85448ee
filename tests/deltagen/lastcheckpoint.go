package deltagen

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// LastCheckpointPath is the path of _delta_log/_last_checkpoint.
func (t *Table) LastCheckpointPath() string {
	return filepath.Join(t.LogDir(), "_last_checkpoint")
}

// lastCheckpoint is the JSON of _last_checkpoint.
type lastCheckpoint struct {
	Version       int64  `json:"version"`
	Size          int64  `json:"size"`
	Parts         *int   `json:"parts,omitempty"`
	SizeInBytes   *int64 `json:"sizeInBytes,omitempty"`
	NumOfAddFiles *int64 `json:"numOfAddFiles,omitempty"`
}

// WriteLastCheckpoint writes _last_checkpoint as {"version":N,"size":M},
// adding "parts" when parts > 0.
func (t *Table) WriteLastCheckpoint(version, size int64, parts int) error {
	lc := lastCheckpoint{Version: version, Size: size}
	if parts > 0 {
		lc.Parts = &parts
	}
	return t.writeLastCheckpoint(lc)
}

// WriteLastCheckpointFor writes _last_checkpoint describing a checkpoint
// written by this package, with parts, sizeInBytes and numOfAddFiles.
func (t *Table) WriteLastCheckpointFor(info *CheckpointInfo) error {
	lc := lastCheckpoint{Version: info.Version, Size: info.Size, SizeInBytes: &info.SizeInBytes, NumOfAddFiles: &info.NumAdds}
	if info.Parts > 0 {
		lc.Parts = &info.Parts
	}
	return t.writeLastCheckpoint(lc)
}

func (t *Table) writeLastCheckpoint(lc lastCheckpoint) error {
	data, err := json.Marshal(lc)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(t.LastCheckpointPath(), append(data, '\n')); err != nil {
		return fmt.Errorf("deltagen: _last_checkpoint: %w", err)
	}
	return nil
}

// WriteLastCheckpointRaw writes content as _last_checkpoint verbatim, for
// stale, odd or corrupt variants.
func (t *Table) WriteLastCheckpointRaw(content string) error {
	return writeFileAtomic(t.LastCheckpointPath(), []byte(content))
}

// WriteCorruptLastCheckpoint writes a truncated, unparsable _last_checkpoint.
func (t *Table) WriteCorruptLastCheckpoint() error {
	return t.WriteLastCheckpointRaw(`{"version":1`)
}
