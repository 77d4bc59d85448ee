package fs

import (
	"context"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions/layout"
)

// layout lays out a version as the mount serves it. Under the logical
// layout a partitioned table's folders come from the files' partition
// values, and the files lacking columns are found from their stats: a
// snapshot reads both on first use (from its checkpoint).
func (r *root) layout(ctx context.Context, snap *replay.Snapshot) (*layout.Version, error) {
	if r.opts.PhysicalLayout {
		return layout.Of(snap, nil, nil, r.layoutOptions())
	}
	d, err := snap.Details(ctx)
	if err != nil {
		return nil, err
	}
	return layout.Of(snap, d.Partitions, d.NullCounted, r.layoutOptions())
}

// layoutOptions are the layout options the mount was given.
func (r *root) layoutOptions() layout.Options {
	return layout.Options{Physical: r.opts.PhysicalLayout, CheckFooters: r.opts.CheckFooters}
}
