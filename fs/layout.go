package fs

import (
	"context"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions/layout"
)

// layout lays out a version as the mount serves it. A partitioned table's
// logical folders come from the files' partition values, which a snapshot
// reads on first use (from its checkpoint).
func (r *root) layout(ctx context.Context, snap *replay.Snapshot) (*layout.Version, error) {
	physical := layout.Physical(r.opts.PhysicalLayout)
	var parts []*replay.Partition
	if !physical && len(snap.Metadata.PartitionColumns) > 0 {
		var err error
		if parts, err = snap.Partitions(ctx); err != nil {
			return nil, err
		}
	}
	return layout.Of(snap, parts, physical)
}
