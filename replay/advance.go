package replay

import (
	"context"
	"fmt"

	"github.com/deltafs/deltafs/replay/action"
)

// Advance applies commits (ascending and contiguous from base.Version+1) to
// base and returns the snapshot at the last one. It reads only those
// commits: this is how latest follows a table cheaply.
func Advance(ctx context.Context, st Storage, base *Snapshot, commits []LogFile, root string) (*Snapshot, error) {
	if len(commits) == 0 {
		return base, nil
	}
	last := commits[len(commits)-1].Version
	for i, c := range commits {
		if c.Kind != Commit || c.Version != base.Version+1+int64(i) {
			return nil, fmt.Errorf("replay v%d from v%d: commits are not contiguous", last, base.Version)
		}
	}
	data, err := fetchCommits(ctx, st, commits)
	if err != nil {
		return nil, fmt.Errorf("replay v%d: %w", last, err)
	}
	r := newReconciler(root, fileActions(data))
	for i := len(data) - 1; i >= 0; i-- {
		if err := r.applyCommit(data[i]); err != nil {
			return nil, fmt.Errorf("replay v%d: commit %d: %w", last, commits[i].Version, err)
		}
	}
	kept := r.applyBase(base)
	snap, err := r.snapshot(last)
	if err != nil {
		return nil, fmt.Errorf("replay v%d: %w", last, err)
	}
	snap.tail = r.details
	snap.headTombstones = base.Tombstones
	snap.headDetails = func(ctx context.Context, partitionsOnly bool) (*Details, error) {
		all := &Details{}
		var err error
		if partitionsOnly {
			all.Partitions, err = base.Partitions(ctx)
		} else {
			all, err = base.Details(ctx)
		}
		if err != nil || kept == nil {
			return all, err
		}
		d := &Details{Partitions: make([]*action.Partition, len(kept))}
		for i, k := range kept {
			d.Partitions[i] = all.Partitions[k]
		}
		if !partitionsOnly {
			d.NumRecords = make([]int64, len(kept))
			d.NullCounted = make([]*action.ColumnSet, len(kept))
			for i, k := range kept {
				d.NumRecords[i] = all.NumRecords[k]
				d.NullCounted[i] = all.NullCounted[k]
			}
		}
		return d, nil
	}
	return snap, nil
}

// applyBase takes from an older snapshot what newer commits did not decide.
// It returns the indexes of the base files kept, or nil when all are.
func (r *reconciler) applyBase(base *Snapshot) []int32 {
	p, m := base.Protocol, base.Metadata
	r.applyOther(&action.Action{Protocol: &p})
	r.applyOther(&action.Action{Metadata: &m})
	for _, t := range base.Txns {
		r.applyOther(&action.Action{Txn: &t})
	}
	for _, d := range base.Domains {
		r.applyOther(&action.Action{DomainMetadata: &d})
	}
	files := make([]action.File, 0, len(base.Files)+len(r.files))
	var kept []int32
	for i := range base.Files {
		f := &base.Files[i]
		if r.seen.Has(f.Path, f.DV) {
			if kept == nil {
				kept = make([]int32, i, len(base.Files))
				for j := range kept {
					kept[j] = int32(j)
				}
			}
			continue
		}
		if kept != nil {
			kept = append(kept, int32(i))
		}
		files = append(files, *f)
	}
	r.files = append(files, r.files...)
	return kept
}
