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
	physical := layout.Physical(r.opts.PhysicalLayout)
	if physical {
		return layout.Of(snap, nil, nil, physical)
	}
	d, err := snap.Details(ctx)
	if err != nil {
		return nil, err
	}
	return layout.Of(snap, d.Partitions, d.NullCounted, physical)
}
