package deltagen

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/deltafs/deltafs/replay/action"
)

// Table is a Delta table being written under Dir. It keeps every committed
// action in memory so that checkpoints can be computed for any version.
type Table struct {
	// Dir is the table root; the log is Dir/_delta_log.
	Dir string

	commits map[int64][]action.Action // version -> actions as committed
	next    int64                     // version Commit writes next
}

// New returns a Table rooted at dir. Nothing is written until the first
// commit or data file.
func New(dir string) *Table {
	return &Table{Dir: dir, commits: map[int64][]action.Action{}}
}

// LogDir is the table's _delta_log directory.
func (t *Table) LogDir() string { return filepath.Join(t.Dir, "_delta_log") }

// NextVersion is the version the next Commit will write.
func (t *Table) NextVersion() int64 { return t.next }

// Versions lists the committed versions in ascending order.
func (t *Table) Versions() []int64 {
	vs := make([]int64, 0, len(t.commits))
	for v := range t.commits {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	return vs
}

// fileKey identifies a logical file: its path and its deletion vector.
type fileKey struct{ path, dv string }

// State is the reconciled table state at one version, as a checkpoint holds
// it. Slices are in a deterministic order (files sorted by path).
type State struct {
	Version  int64
	Protocol *action.Protocol
	Metadata *action.Metadata
	Txns     []action.Txn
	Domains  []action.DomainMetadata
	Adds     []action.Add
	Removes  []action.Remove
}

// NumActions is the number of actions a checkpoint of the state holds (the
// "size" of _last_checkpoint), not counting v2 checkpointMetadata or sidecars.
func (s *State) NumActions() int64 {
	n := len(s.Txns) + len(s.Domains) + len(s.Adds) + len(s.Removes)
	if s.Protocol != nil {
		n++
	}
	if s.Metadata != nil {
		n++
	}
	return int64(n)
}

// StateAt replays the committed actions of every version up to and
// including v, following the protocol's reconciliation rules.
func (t *Table) StateAt(v int64) (*State, error) {
	if _, ok := t.commits[v]; !ok {
		return nil, fmt.Errorf("deltagen: no commit at version %d", v)
	}
	st := &State{Version: v}
	txns := map[string]action.Txn{}
	domains := map[string]action.DomainMetadata{}
	adds := map[fileKey]action.Add{}
	removes := map[fileKey]action.Remove{}
	for _, ver := range t.Versions() {
		if ver > v {
			break
		}
		for _, a := range t.commits[ver] {
			switch {
			case a.Protocol != nil:
				st.Protocol = a.Protocol
			case a.Metadata != nil:
				st.Metadata = a.Metadata
			case a.Txn != nil:
				txns[a.Txn.AppID] = *a.Txn
			case a.DomainMetadata != nil:
				if a.DomainMetadata.Removed {
					delete(domains, a.DomainMetadata.Domain)
				} else {
					domains[a.DomainMetadata.Domain] = *a.DomainMetadata
				}
			case a.Add != nil:
				k := fileKey{a.Add.Path, a.Add.DeletionVector.UniqueID()}
				delete(removes, k)
				adds[k] = *a.Add
			case a.Remove != nil:
				k := fileKey{a.Remove.Path, a.Remove.DeletionVector.UniqueID()}
				delete(adds, k)
				removes[k] = *a.Remove
			}
		}
	}
	for _, x := range txns {
		st.Txns = append(st.Txns, x)
	}
	sort.Slice(st.Txns, func(i, j int) bool { return st.Txns[i].AppID < st.Txns[j].AppID })
	for _, d := range domains {
		st.Domains = append(st.Domains, d)
	}
	sort.Slice(st.Domains, func(i, j int) bool { return st.Domains[i].Domain < st.Domains[j].Domain })
	for _, a := range adds {
		a.DataChange = false // as Spark writes checkpoints
		st.Adds = append(st.Adds, a)
	}
	sort.Slice(st.Adds, func(i, j int) bool {
		return st.Adds[i].Path+"\x00"+st.Adds[i].DeletionVector.UniqueID() <
			st.Adds[j].Path+"\x00"+st.Adds[j].DeletionVector.UniqueID()
	})
	for _, r := range removes {
		st.Removes = append(st.Removes, r)
	}
	sort.Slice(st.Removes, func(i, j int) bool {
		return st.Removes[i].Path+"\x00"+st.Removes[i].DeletionVector.UniqueID() <
			st.Removes[j].Path+"\x00"+st.Removes[j].DeletionVector.UniqueID()
	})
	return st, nil
}

// writeFileAtomic writes data to name (creating parent directories) through
// a temporary file and a rename, so a reader never sees a partial file.
func writeFileAtomic(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
