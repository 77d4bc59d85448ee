package deltagen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/deltafs/deltafs/replay/action"
)

// CommitPath is the path of the commit file of version v under the log dir.
func (t *Table) CommitPath(v int64) string {
	return filepath.Join(t.LogDir(), fmt.Sprintf("%020d.json", v))
}

// Commit writes the actions as the next version's commit file, one JSON
// action per line, and returns that version.
func (t *Table) Commit(actions ...action.Action) (int64, error) {
	v := t.next
	return v, t.CommitAt(v, actions...)
}

// CommitAt writes the actions as the commit file of version v, which may
// leave a gap after the previous version or overwrite an earlier commit (the
// in-memory state follows). The next Commit writes v+1 unless a higher
// version was already written.
func (t *Table) CommitAt(v int64, actions ...action.Action) error {
	if v < 0 {
		return fmt.Errorf("deltagen: negative version %d", v)
	}
	data, err := EncodeActions(actions)
	if err != nil {
		return fmt.Errorf("deltagen: commit v%d: %w", v, err)
	}
	if err := writeFileAtomic(t.CommitPath(v), data); err != nil {
		return fmt.Errorf("deltagen: commit v%d: %w", v, err)
	}
	t.commits[v] = append([]action.Action(nil), actions...)
	if v >= t.next {
		t.next = v + 1
	}
	return nil
}

// EncodeActions renders actions as newline-delimited JSON, one per line.
// A metaData action always carries "format":{"provider":..,"options":{..}}
// (as Spark writes it; delta-kernel-rs rejects a format without options),
// and "configuration" is always present.
func EncodeActions(actions []action.Action) ([]byte, error) {
	var buf bytes.Buffer
	for _, a := range actions {
		var line []byte
		var err error
		if a.Metadata != nil {
			line, err = json.Marshal(struct {
				Metadata metadataJSON `json:"metaData"`
			}{newMetadataJSON(a.Metadata)})
		} else {
			line, err = json.Marshal(a)
		}
		if err != nil {
			return nil, err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// metadataJSON is action.Metadata with format options and configuration
// written even when empty.
type metadataJSON struct {
	ID               string            `json:"id"`
	Name             string            `json:"name,omitempty"`
	Description      string            `json:"description,omitempty"`
	Format           formatJSON        `json:"format"`
	SchemaString     string            `json:"schemaString"`
	PartitionColumns []string          `json:"partitionColumns"`
	Configuration    map[string]string `json:"configuration"`
	CreatedTime      *int64            `json:"createdTime,omitempty"`
}

type formatJSON struct {
	Provider string            `json:"provider"`
	Options  map[string]string `json:"options"`
}

func newMetadataJSON(m *action.Metadata) metadataJSON {
	out := metadataJSON{
		ID: m.ID, Name: m.Name, Description: m.Description,
		Format:           formatJSON{Provider: m.Format.Provider, Options: m.Format.Options},
		SchemaString:     m.SchemaString,
		PartitionColumns: m.PartitionColumns,
		Configuration:    m.Configuration,
		CreatedTime:      m.CreatedTime,
	}
	if out.Format.Options == nil {
		out.Format.Options = map[string]string{}
	}
	if out.Configuration == nil {
		out.Configuration = map[string]string{}
	}
	if out.PartitionColumns == nil {
		out.PartitionColumns = []string{}
	}
	return out
}
