package versions

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// Changes is what one commit did to a table's data files. Each part is a
// snapshot of its own, with the metadata its files are served under, so
// that it is laid out and served as a version is.
type Changes struct {
	Version int64
	Added   Part // the files the commit added, as they are at Version
	Removed Part // the files the commit removed, as they were at Version-1
	CDC     Part // the change-data files the commit wrote
	// RemovedUnknown says why Removed is empty although the commit
	// removed files: the version before cannot be rebuilt.
	RemovedUnknown string
}

// Part is one kind of a commit's changes.
type Part struct {
	Snap  *replay.Snapshot    // its files; Protocol and Metadata of the version they are served as
	Of    *replay.Snapshot    // that version, whose names its files take (layout.NameAsIn); nil for the change-data files
	Parts []*replay.Partition // partition values, aligned with Snap.Files
	// NullCounted are the columns the files' stats count nulls of,
	// aligned with Snap.Files (layout.Of: which files lack columns).
	NullCounted []*action.ColumnSet
}

// ErrNoCommit is returned by Changes for a version that is not a commit the
// log holds (it is known from a checkpoint only, or cannot be rebuilt).
var ErrNoCommit = errors.New("no commit file for this version")

// Changes reads commit v and returns what it changed. The files the commit
// removed are looked up in the version before it, so that they are served
// as they were there (with the deletion vector they had).
func (t *Table) Changes(ctx context.Context, v int64) (*Changes, error) {
	vs, err := t.Versions(ctx)
	if err != nil {
		return nil, err
	}
	if _, ok := slices.BinarySearch(vs, v); !ok {
		return nil, fmt.Errorf("version %d: %w", v, ErrNoCommit)
	}
	snap, err := t.Snapshot(ctx, v)
	if err != nil {
		return nil, err
	}
	data, err := t.st.Read(ctx, replay.CommitKey(v))
	if err != nil {
		return nil, fmt.Errorf("version %d: %w (%w)", v, ErrNoCommit, err)
	}
	c := &Changes{Version: v, Added: emptyPart(snap), CDC: emptyPart(snap)}
	c.Added.Of = snap
	added := map[fileKey]bool{}
	var in action.Interner
	var removed []action.File // path and deletion vector: the key of what a remove takes out
	var when int64            // the commit's own timestamp
	err = action.ParseLines(data, func(a *action.Action) error {
		switch {
		case a.Add != nil:
			f, err := action.FileOf(a.Add, t.root)
			if err != nil {
				return err
			}
			if added[keyOf(&f)] {
				return nil // added twice, which the protocol forbids: replay keeps the first
			}
			added[keyOf(&f)] = true
			c.Added.add(f, a.Add.Partition(&in), a.Add.NullCounted())
		case a.Remove != nil:
			path, err := action.CleanPath(a.Remove.Path, t.root)
			if err != nil {
				return err
			}
			removed = append(removed, action.File{Path: path, DV: a.Remove.DeletionVector})
		case a.CDC != nil:
			path, err := action.CleanPath(a.CDC.Path, t.root)
			if err != nil {
				return err
			}
			c.CDC.add(action.File{Path: path, Size: a.CDC.Size}, in.InternMap(a.CDC.PartitionValues), nil)
		case a.CommitInfo != nil:
			when, _ = ownTimestamp(a.CommitInfo)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("commit %d: %w", v, err)
	}
	for i := range c.CDC.Snap.Files {
		c.CDC.Snap.Files[i].ModTime = when // a change-data file has no time of its own
	}
	if len(removed) == 0 {
		c.Removed = emptyPart(snap)
		return c, nil
	}
	if _, ok := slices.BinarySearch(vs, v-1); !ok {
		c.Removed = emptyPart(snap)
		files := fmt.Sprintf("%d files", len(removed))
		if len(removed) == 1 {
			files = "1 file"
		}
		c.RemovedUnknown = fmt.Sprintf("commit %d removed %s, but version %d cannot be rebuilt to serve them", v, files, v-1)
		return c, nil
	}
	prev, err := t.Snapshot(ctx, v-1)
	if err != nil {
		return nil, err
	}
	c.Removed = emptyPart(prev)
	c.Removed.Of = prev
	gone := map[fileKey]bool{}
	for _, r := range removed {
		f := liveIn(prev, r)
		if f == nil || gone[keyOf(f)] {
			continue // not live before, or removed twice: the remove changed nothing
		}
		gone[keyOf(f)] = true
		_, p, counted, _, err := prev.DetailsOf(ctx, r.Path)
		if err != nil {
			return nil, err
		}
		c.Removed.add(*f, p, counted)
	}
	return c, nil
}

// fileKey is reconciliation's key of a file: its path and deletion vector.
type fileKey struct{ path, dv string }

func keyOf(f *replay.File) fileKey { return fileKey{f.Path, f.DV.UniqueID()} }

// liveIn is the live file of s with r's key, or nil: the file a remove of
// r took out of s, the version before.
func liveIn(s *replay.Snapshot, r action.File) *replay.File {
	id := r.DV.UniqueID()
	if f := s.Find(r.Path); f == nil || f.DV.UniqueID() == id {
		return f
	}
	for i := range s.Files { // one path live under several vectors: rare
		if f := &s.Files[i]; f.Path == r.Path && f.DV.UniqueID() == id {
			return f
		}
	}
	return nil
}

func emptyPart(of *replay.Snapshot) Part {
	return Part{Snap: &replay.Snapshot{Version: of.Version, Protocol: of.Protocol, Metadata: of.Metadata}}
}

func (p *Part) add(f action.File, part *replay.Partition, counted *action.ColumnSet) {
	p.Snap.Files = append(p.Snap.Files, f)
	p.Parts = append(p.Parts, part)
	p.NullCounted = append(p.NullCounted, counted)
}

// ownTimestamp is a commit's own timestamp: its in-commit timestamp, else
// commitInfo's.
func ownTimestamp(ci *action.CommitInfo) (int64, bool) {
	switch {
	case ci.InCommitTimestamp != nil:
		return *ci.InCommitTimestamp, true
	case ci.Timestamp != nil:
		return *ci.Timestamp, true
	}
	return 0, false
}
