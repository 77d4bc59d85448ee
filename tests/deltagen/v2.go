package deltagen

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/deltafs/deltafs/replay/action"
)

// SidecarDir is the directory of v2 sidecar files under the table root.
func (t *Table) SidecarDir() string { return filepath.Join(t.LogDir(), "_sidecars") }

// V2CheckpointPath is the path of the UUID-named v2 checkpoint of version v;
// format is "json" or "parquet".
func (t *Table) V2CheckpointPath(v int64, uuid, format string) string {
	return filepath.Join(t.LogDir(), fmt.Sprintf("%020d.checkpoint.%s.%s", v, uuid, format))
}

// V2Checkpoint writes the state at version v as a UUID-named v2 checkpoint
// %020d.checkpoint.<uuid>.<format>, format "json" or "parquet". It holds a
// checkpointMetadata action, protocol, metaData, txn and domainMetadata
// actions, and: with sidecars > 0, one sidecar action per sidecar file, the
// add and remove actions being split over sidecars Parquet files in
// _delta_log/_sidecars/<uuid>.parquet; with sidecars == 0, the add and
// remove actions themselves.
func (t *Table) V2Checkpoint(v int64, format string, sidecars int, opts ...CheckpointOption) (*CheckpointInfo, error) {
	if format != "json" && format != "parquet" {
		return nil, fmt.Errorf("deltagen: v2 checkpoint format %q, want json or parquet", format)
	}
	return t.v2Checkpoint(v, t.V2CheckpointPath(v, NewUUID(), format), format, sidecars, opts)
}

// V2ClassicCheckpoint writes v2 checkpoint content (checkpointMetadata and
// optional sidecars, as V2Checkpoint) in Parquet under the classic name
// %020d.checkpoint.parquet, as the protocol allows for v2Checkpoint tables.
func (t *Table) V2ClassicCheckpoint(v int64, sidecars int, opts ...CheckpointOption) (*CheckpointInfo, error) {
	return t.v2Checkpoint(v, t.ClassicCheckpointPath(v), "parquet", sidecars, opts)
}

func (t *Table) v2Checkpoint(v int64, name, format string, sidecars int, opts []CheckpointOption) (*CheckpointInfo, error) {
	st, err := t.StateAt(v)
	if err != nil {
		return nil, err
	}
	cfg := newPQConfig(opts)
	info := &CheckpointInfo{Version: v, NumAdds: int64(len(st.Adds))}
	cpm := action.CheckpointMetadata{Version: v}
	head := []action.Action{{CheckpointMetadata: &cpm}}
	head = append(head, nonFileActions(st)...)
	files := fileActions(st)
	var tail []action.Action
	if sidecars > 0 {
		scs, paths, err := t.writeSidecars(files, sidecars, cfg)
		if err != nil {
			return nil, fmt.Errorf("deltagen: v2 checkpoint v%d: %w", v, err)
		}
		info.Sidecars = paths
		for i := range scs {
			tail = append(tail, action.Action{Sidecar: &scs[i]})
		}
		info.Size = int64(len(head)+len(tail)) + int64(len(files))
	} else {
		tail = files
		info.Size = int64(len(head) + len(tail))
	}
	all := append(head, tail...)
	var size int64
	if format == "json" {
		data, err := EncodeActions(all)
		if err == nil {
			err = writeFileAtomic(name, data)
		}
		size = int64(len(data))
		if err != nil {
			return nil, fmt.Errorf("deltagen: v2 checkpoint v%d: %w", v, err)
		}
	} else {
		rows := make([]cpV2Row, len(all))
		for i := range all {
			rows[i] = toCpV2Row(&all[i])
		}
		size, err = writeParquet(name, cfg, sliceSource(rows))
		if err != nil {
			return nil, fmt.Errorf("deltagen: v2 checkpoint v%d: %w", v, err)
		}
	}
	info.Files = []string{name}
	info.SizeInBytes = size
	return info, nil
}

// writeSidecars splits the file actions into n Parquet sidecar files and
// returns the sidecar actions pointing at them (path: the bare file name).
func (t *Table) writeSidecars(files []action.Action, n int, cfg pqConfig) ([]action.Sidecar, []string, error) {
	var out []action.Sidecar
	var paths []string
	for i := 0; i < n; i++ {
		lo, hi := split(len(files), n, i)
		rows := make([]cpSidecarRow, 0, hi-lo)
		for _, a := range files[lo:hi] {
			r := toCpV2Row(&a)
			rows = append(rows, cpSidecarRow{Add: r.Add, Remove: r.Remove})
		}
		base := NewUUID() + ".parquet"
		name := filepath.Join(t.SidecarDir(), base)
		size, err := writeParquet(name, cfg, sliceSource(rows))
		if err != nil {
			return nil, nil, err
		}
		fi, err := os.Stat(name)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, action.Sidecar{Path: base, SizeInBytes: size, ModificationTime: fi.ModTime().UnixMilli()})
		paths = append(paths, name)
	}
	return out, paths, nil
}

// nonFileActions are protocol, metaData, txn and domainMetadata of a state.
func nonFileActions(st *State) []action.Action {
	var out []action.Action
	if st.Protocol != nil {
		out = append(out, action.Action{Protocol: st.Protocol})
	}
	if st.Metadata != nil {
		out = append(out, action.Action{Metadata: st.Metadata})
	}
	for i := range st.Txns {
		out = append(out, action.Action{Txn: &st.Txns[i]})
	}
	for i := range st.Domains {
		out = append(out, action.Action{DomainMetadata: &st.Domains[i]})
	}
	return out
}

// fileActions are the remove tombstones then the live adds of a state.
func fileActions(st *State) []action.Action {
	out := make([]action.Action, 0, len(st.Removes)+len(st.Adds))
	for i := range st.Removes {
		out = append(out, action.Action{Remove: &st.Removes[i]})
	}
	for i := range st.Adds {
		out = append(out, action.Action{Add: &st.Adds[i]})
	}
	return out
}

// toCpV2Row converts one action to a v2 checkpoint row.
func toCpV2Row(a *action.Action) cpV2Row {
	var r cpV2Row
	switch {
	case a.Add != nil:
		r.Add = toCpAdd(a.Add)
	case a.Remove != nil:
		r.Remove = toCpRemove(a.Remove)
	case a.Metadata != nil:
		r.MetaData = toCpMetadata(a.Metadata)
	case a.Protocol != nil:
		r.Protocol = toCpProtocol(a.Protocol)
	case a.Txn != nil:
		r.Txn = &cpTxn{AppID: a.Txn.AppID, Version: a.Txn.Version, LastUpdated: a.Txn.LastUpdated}
	case a.DomainMetadata != nil:
		d := a.DomainMetadata
		r.DomainMetadata = &cpDomain{Domain: d.Domain, Configuration: d.Configuration, Removed: d.Removed}
	case a.CheckpointMetadata != nil:
		r.CheckpointMetadata = &cpCheckpointMetadata{Version: a.CheckpointMetadata.Version, Tags: strMap(a.CheckpointMetadata.Tags)}
	case a.Sidecar != nil:
		s := a.Sidecar
		r.Sidecar = &cpSidecar{Path: s.Path, SizeInBytes: s.SizeInBytes, ModificationTime: s.ModificationTime, Tags: strMap(s.Tags)}
	}
	return r
}
