package serve

import (
	"context"
	"fmt"

	"github.com/deltafs/deltafs/cache"
	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// views builds and caches the views of data files, and the decoded
// deletion vectors they leave rows out by. Views are keyed by viewKey,
// vectors by unique id; concurrent requests for one share one build.
type views struct {
	st      Storage
	build   parquetview.BuildOptions
	views   *cache.Cache[string, *parquetview.View]
	vectors *cache.Cache[string, *dvfilter.Vector]
}

// viewCacheBytes and vectorCacheBytes are the default budgets of the two
// caches: views hold footers and small re-encoded row groups.
const (
	viewCacheBytes   = 64 << 20
	vectorCacheBytes = 16 << 20
)

func newViews(st Storage, cacheBytes int64, build parquetview.BuildOptions) *views {
	if cacheBytes == 0 {
		cacheBytes = viewCacheBytes
	}
	return &views{
		st: st, build: build,
		views:   cache.New[string, *parquetview.View](cacheBytes, (*parquetview.View).MemSize),
		vectors: cache.New[string, *dvfilter.Vector](vectorCacheBytes, func(v *dvfilter.Vector) int64 { return int64(v.MemSize()) }),
	}
}

// bytes is the memory the cached views and vectors take.
func (vs *views) bytes() int64 { return vs.views.Bytes() + vs.vectors.Bytes() }

func (vs *views) close() {
	vs.views.Close()
	vs.vectors.Close()
}

// vector returns the decoded deletion vector dv, loading it on first use.
func (vs *views) vector(ctx context.Context, dv *action.DeletionVector) (*dvfilter.Vector, error) {
	v, err := vs.vectors.GetOrLoad(ctx, dv.UniqueID(), func(ctx context.Context) (*dvfilter.Vector, error) {
		return dvfilter.Load(ctx, dvStorage{vs.st}, dv)
	})
	if err != nil {
		return nil, err
	}
	return v, dvfilter.Check(v, dv)
}

// get returns the view of f with its columns renamed by rn, building it on
// first use from src (f's stored bytes). Errors name the data file and the
// vector.
func (vs *views) get(ctx context.Context, f *replay.File, rn *parquetview.Rename, src parquetview.RangeReader) (*parquetview.View, error) {
	if !NeedsView(f, rn) {
		return nil, fmt.Errorf("%s needs no view", f.Path)
	}
	return vs.views.GetOrLoad(ctx, viewKey(f, rn), func(ctx context.Context) (*parquetview.View, error) {
		var rows parquetview.Rows
		if f.DV != nil {
			vec, err := vs.vector(ctx, f.DV)
			if err != nil {
				return nil, fmt.Errorf("data file %q: %w", f.Path, err)
			}
			rows = vec
		}
		opts := vs.build
		opts.Rename = rn
		v, err := parquetview.Build(ctx, src, f.Size, rows, opts)
		switch {
		case err != nil && f.DV != nil:
			return nil, fmt.Errorf("data file %q (deletion vector %s): %w", f.Path, dvfilter.Describe(f.DV), err)
		case err != nil:
			return nil, fmt.Errorf("data file %q: %w", f.Path, err)
		}
		return v, nil
	})
}
