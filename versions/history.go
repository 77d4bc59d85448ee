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
	Version   int64  `json:"version"`
	Timestamp int64  `json:"timestamp"` // ms since the epoch
	Operation string `json:"operation"`
}

// History describes every rebuildable version, ascending. The timestamp is
// the in-commit timestamp when the commit has one, else commitInfo's, else
// the commit file's modification time.
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
	out := make([]Commit, len(versions))
	errs := make([]error, len(versions))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i, v := range versions {
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
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func describeCommit(ctx context.Context, st Store, f replay.LogFile, c *Commit) error {
	data, err := st.Read(ctx, f.Key)
	if err != nil {
		return err
	}
	err = action.ParseLines(data, func(a *action.Action) error {
		if ci := a.CommitInfo; ci != nil {
			c.Operation = ci.Operation
			switch {
			case ci.InCommitTimestamp != nil:
				c.Timestamp = *ci.InCommitTimestamp
			case ci.Timestamp != nil:
				c.Timestamp = *ci.Timestamp
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("commit %d: %w", f.Version, err)
	}
	return nil
}
