package fs

import (
	"context"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/versions/layout"
)

// layout lays out a version as the mount serves it. Under the logical
// layout a partitioned table's folders come from the files' partition
// values, and the files lacking columns are found from their stats (a
// snapshot reads both on first use, from its checkpoint), or from a few
// footers for columns no stats count.
func (r *root) layout(ctx context.Context, snap *replay.Snapshot) (*layout.Version, error) {
	if r.opts.PhysicalLayout {
		return layout.Of(snap, nil, nil, r.layoutOptions())
	}
	d, err := snap.Details(ctx)
	if err != nil {
		return nil, err
	}
	return r.layoutOf(ctx, snap, d.Partitions, d.NullCounted, nil)
}

// layoutOf lays out snap's files, given their partition values and the
// columns their stats count (index-aligned with snap.Files), then finds
// by their footers the files lacking columns their stats do not tell of.
// adjust, if any, changes the layout before that search (the change-data
// files' extra column).
func (r *root) layoutOf(ctx context.Context, snap *replay.Snapshot, parts []*replay.Partition, counted []*action.ColumnSet, adjust func(*layout.Version)) (*layout.Version, error) {
	v, err := layout.Of(snap, parts, counted, r.layoutOptions())
	if err != nil {
		return nil, err
	}
	if adjust != nil {
		adjust(v)
	}
	if err := v.FindUncounted(func(f *replay.File) (bool, error) { return r.files.Lacks(ctx, f, v.Fill) }); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.logf("v%d: files are served as stored, whether or not they lack %s: %v", snap.Version, v.Unsure(), err)
	}
	return v, nil
}

// layoutOptions are the layout options the mount was given.
func (r *root) layoutOptions() layout.Options {
	o := layout.Options{Physical: r.opts.PhysicalLayout, CheckFooters: r.opts.CheckFooters}
	if ext, ok := r.table.(ExternalServer); ok {
		o.External = ext.ServesExternal
	}
	return o
}
