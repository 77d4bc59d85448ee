package serve

import (
	"context"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
)

// Lacks says whether f lacks columns rn (a Rename with FillMissing)
// fills, from its footer's schema; remembered, as the layouts of several
// versions ask of the same files (layout.Version.FindUncounted).
func (fs *Files) Lacks(ctx context.Context, f *replay.File, rn *parquetview.Rename) (bool, error) {
	key := viewKey(f, rn)
	if lacks, ok := fs.lacking.Get(key); ok {
		return lacks, nil
	}
	cols, err := parquetview.Lacking(ctx, fs.stored(f, false), f.Size, rn)
	if err != nil {
		return false, err
	}
	fs.lacking.Set(key, len(cols) > 0)
	return len(cols) > 0, nil
}
