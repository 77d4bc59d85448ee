package versions

import (
	"context"
	"fmt"
	"sync"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// Commit describes one version of the table.
type Commit struct {
	Version int64 `json:"version"`
	// Instant is when the version was committed by Delta's clock (what
	// time travel resolves against: Instants), ms since the epoch; nil for
	// a version with none (timed by in-commit timestamps, its commit gone).
	Instant   *int64 `json:"instant,omitempty"`
	Timestamp int64  `json:"timestamp"`           // the commit's own: in-commit timestamp, else commitInfo's, else the file's time
	Operation string `json:"operation,omitempty"` // commitInfo's; none without a commit or a commitInfo
	Files     int    `json:"files"`               // live data files at this version under the table root
	// Added is how many data files under the table root the commit added,
	// Removed how many live ones it removed; nil where that is not known:
	// the commit is gone (a version known from its checkpoint) or damaged.
	Added   *int `json:"added,omitempty"`
	Removed *int `json:"removed,omitempty"`
	// InCommitTimestamp and CommitInfoTimestamp are the commit's two
	// timestamps, when it has them (ms).
	InCommitTimestamp   *int64 `json:"inCommitTimestamp,omitempty"`
	CommitInfoTimestamp *int64 `json:"commitInfoTimestamp,omitempty"`
	// Error says why the commit, or the version's snapshot, could not be
	// read (a damaged log): its other fields are then partial.
	Error string `json:"error,omitempty"`

	changes []fileChange // the commit's file actions, for counting
}

// fileChange is an add or remove of a logical file under the table root.
type fileChange struct {
	key string
	add bool
}

// History describes every rebuildable version, ascending. The timestamp is
// the in-commit timestamp when the commit has one, else commitInfo's, else
// the commit file's modification time. A commit never changes: the
// versions described by an earlier call are kept, and only those after
// them read (history.jsonl is made again whenever latest moves; it read
// every commit each time).
func (t *Table) History(ctx context.Context) ([]Commit, error) {
	files, err := t.LogFiles(ctx)
	if err != nil {
		return nil, err
	}
	versions, err := t.Versions(ctx)
	if err != nil {
		return nil, err
	}
	byVersion := map[int64]replay.LogFile{}
	for _, f := range files {
		if f.Kind == replay.Commit || (f.Kind == replay.CheckpointFile && byVersion[f.Version].Key == "") {
			byVersion[f.Version] = f
		}
	}
	t.mu.Lock()
	described := t.described
	t.mu.Unlock()
	out := make([]Commit, len(versions))
	errs := make([]error, len(versions))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	kept := 0 // out[:kept] were described before
	for i, v := range versions {
		if c, ok := described[v]; ok && i == kept {
			out[i] = c
			kept++
			continue
		}
		f := byVersion[v]
		out[i] = Commit{Version: v, Timestamp: f.ModTime}
		if f.Kind != replay.Commit {
			continue // a version known only from its checkpoint
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = describeCommit(ctx, t.st, f, &out[i])
		}()
	}
	wg.Wait()
	// A damaged commit is one line of the history, not the end of it.
	for i, err := range errs {
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out[i].Error, out[i].changes = err.Error(), nil
			out[i].Added, out[i].Removed = nil, nil
		}
	}
	if err := t.countFiles(ctx, out, kept); err != nil {
		return nil, err
	}
	// Kept: the versions described without error (an error may have been
	// storage's, and pass), up to the first with one.
	keep := make(map[int64]Commit, len(out))
	for _, c := range out {
		if c.Error != "" {
			break
		}
		keep[c.Version] = c
	}
	t.mu.Lock()
	t.described = keep
	t.mu.Unlock()
	// Delta's clock is the newest version's (in-commit timestamps or
	// not): a newest version that cannot be rebuilt leaves every instant
	// unknown, not the history, which says what is damaged.
	if err := t.fillInstants(ctx, out); err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out, nil
}

// countFiles fills in the live file count of every version from commits[from]
// on (files under the table root: what a mount shows; files elsewhere are
// not served) by applying each commit to the set of live files of the
// version before; a version that does not follow its predecessor (the
// first, or one after a gap or a damaged version) starts from its
// snapshot, and so does the first counted after counted ones, from its
// predecessor's. A snapshot that cannot be built (a damaged commit at or
// below it) is that version's Error.
func (t *Table) countFiles(ctx context.Context, commits []Commit, from int) error {
	var live map[string]bool
	if from > 0 && from < len(commits) && commits[from-1].Version == commits[from].Version-1 {
		if snap, err := t.Snapshot(ctx, commits[from-1].Version); err == nil {
			live = liveKeys(snap)
		} else if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	for i := from; i < len(commits); i++ {
		c := &commits[i]
		chained := live != nil && (i == from || commits[i-1].Version == c.Version-1)
		if !chained || c.changes == nil {
			snap, err := t.Snapshot(ctx, c.Version)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if c.Error == "" {
					c.Error = err.Error()
				}
				live, c.changes = nil, nil
				c.Added, c.Removed = nil, nil
				continue
			}
			live = liveKeys(snap)
			for _, ch := range c.changes { // counted without the version before
				c.count(ch.add)
			}
		} else {
			for _, ch := range c.changes {
				switch {
				case ch.add:
					live[ch.key] = true
					c.count(true)
				case live[ch.key]:
					delete(live, ch.key)
					c.count(false)
				}
			}
		}
		c.Files, c.changes = len(live), nil
	}
	return nil
}

// liveKeys is the set of the logical keys of a snapshot's files under the
// table root.
func liveKeys(snap *replay.Snapshot) map[string]bool {
	live := make(map[string]bool, len(snap.Files))
	for _, f := range snap.Files {
		if !action.IsExternal(f.Path) {
			live[action.LogicalKey(f.Path, f.DV.UniqueID())] = true
		}
	}
	return live
}

// count counts one file the commit added or removed.
func (c *Commit) count(added bool) {
	if added {
		*c.Added++
	} else {
		*c.Removed++
	}
}

func describeCommit(ctx context.Context, st Store, f replay.LogFile, c *Commit) error {
	data, err := st.Read(ctx, f.Key)
	if err != nil {
		return err
	}
	root := st.Location()
	c.changes = []fileChange{}
	c.Added, c.Removed = new(0), new(0)
	// Files elsewhere are not served, and not counted: told apart by the
	// path, as the key may hold a deletion vector's absolute URI.
	change := func(path string, dv *action.DeletionVector, add bool) {
		if !action.IsExternal(path) {
			c.changes = append(c.changes, fileChange{action.LogicalKey(path, dv.UniqueID()), add})
		}
	}
	err = action.ParseLines(data, func(a *action.Action) error {
		if a.Add != nil {
			path, err := action.CleanPath(a.Add.Path, root)
			if err != nil {
				return err
			}
			change(path, a.Add.DeletionVector, true)
		}
		if a.Remove != nil {
			if path, err := action.CleanPath(a.Remove.Path, root); err == nil {
				change(path, a.Remove.DeletionVector, false)
			}
		}
		if ci := a.CommitInfo; ci != nil {
			c.Operation = ci.Operation
			c.InCommitTimestamp, c.CommitInfoTimestamp = ci.InCommitTimestamp, ci.Timestamp
			if ts, ok := ownTimestamp(ci); ok {
				c.Timestamp = ts
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("commit %d: %w", f.Version, err)
	}
	return nil
}

// fillInstants gives each commit its instant by Delta's clock. The in-commit
// timestamps the commits were read for are remembered, so that Instants
// reads none of them again.
func (t *Table) fillInstants(ctx context.Context, commits []Commit) error {
	t.mu.Lock()
	for _, c := range commits {
		if c.InCommitTimestamp != nil {
			t.ict[c.Version] = *c.InCommitTimestamp
		}
	}
	t.mu.Unlock()
	inst, err := t.Instants(ctx)
	if err != nil {
		return err
	}
	byVersion := indexInstants(inst)
	for i := range commits {
		if ms, ok := byVersion[commits[i].Version]; ok {
			commits[i].Instant = &ms
		}
	}
	return nil
}
