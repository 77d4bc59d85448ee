package dvfilter

import (
	"context"
	"fmt"

	"github.com/deltafs/deltafs/cache"
	"github.com/deltafs/deltafs/replay/action"
)

// ViewsOptions tune a Views.
type ViewsOptions struct {
	// CacheBytes bounds the memory of cached views (their footers and
	// in-memory re-encoded row groups). Default 64 MiB; negative disables
	// caching (concurrent builds of one view are still shared).
	CacheBytes int64
	// VectorCacheBytes bounds the memory of decoded vectors. Default 16 MiB.
	VectorCacheBytes int64
	// Build is passed to Build.
	Build BuildOptions
}

// Views builds and caches the filtered views of data files with deletion
// vectors, and the decoded vectors themselves. Views are keyed by (data file
// path, vector unique id), vectors by unique id. It is safe for concurrent
// use; concurrent requests for one view share one build.
type Views struct {
	data, dvs Storage
	opts      ViewsOptions
	views     *cache.Cache[string, *View]
	vectors   *cache.Cache[string, *Vector]
}

// NewViews returns a Views reading data files from data (keys are the
// File.Path of the snapshot) and deletion vector files from dvs (keys as
// Load passes them).
func NewViews(data, dvs Storage, opts ViewsOptions) *Views {
	if opts.CacheBytes == 0 {
		opts.CacheBytes = 64 << 20
	}
	if opts.VectorCacheBytes == 0 {
		opts.VectorCacheBytes = 16 << 20
	}
	return &Views{
		data: data, dvs: dvs, opts: opts,
		views:   cache.New[string, *View](opts.CacheBytes, (*View).MemSize),
		vectors: cache.New[string, *Vector](opts.VectorCacheBytes, func(v *Vector) int64 { return int64(v.MemSize()) }),
	}
}

// Close releases the caches. Views already handed out stay usable.
func (vs *Views) Close() {
	vs.views.Close()
	vs.vectors.Close()
}

// Vector returns the decoded vector of dv, loading it on first use.
func (vs *Views) Vector(ctx context.Context, dv *action.DeletionVector) (*Vector, error) {
	v, err := vs.vectors.GetOrLoad(ctx, dv.UniqueID(), func(ctx context.Context) (*Vector, error) {
		return Load(ctx, vs.dvs, dv)
	})
	if err != nil {
		return nil, err
	}
	// The unique id names the bytes, not the descriptor's other fields: a
	// cached vector is checked against this descriptor's promises too.
	if v.Cardinality() != uint64(max(dv.Cardinality, 0)) {
		return nil, fmt.Errorf("dvfilter: deletion vector %s holds %d rows, descriptor says %d: %w",
			describe(dv), v.Cardinality(), dv.Cardinality, ErrCardinalityMismatch)
	}
	if m, ok := v.Max(); ok && dv.MaxRowIndex != nil && m > uint64(max(*dv.MaxRowIndex, 0)) {
		return nil, fmt.Errorf("dvfilter: deletion vector %s deletes row %d past maxRowIndex %d: %w",
			describe(dv), m, *dv.MaxRowIndex, ErrCardinalityMismatch)
	}
	return v, nil
}

// Source returns ranged reads of the stored bytes of f.
func (vs *Views) Source(f *action.File) RangeReader {
	return RangeReaderFunc(func(ctx context.Context, off, n int64) ([]byte, error) {
		return vs.data.ReadRange(ctx, f.Path, off, n)
	})
}

// Get returns the view of f, building it on first use: without the rows
// its deletion vector deletes, and with the columns rn serves (nil: as
// stored). f must have a deletion vector or rn be set. Errors name the data
// file and the vector.
func (vs *Views) Get(ctx context.Context, f *action.File, rn *Rename) (*View, error) {
	if f.DV == nil && rn == nil {
		return nil, fmt.Errorf("dvfilter: %s needs no view", f.Path)
	}
	key := f.Path
	if f.DV != nil {
		key += "\x00" + f.DV.UniqueID()
	}
	if rn != nil {
		key += "\x00" + rn.Key
	}
	return vs.views.GetOrLoad(ctx, key, func(ctx context.Context) (*View, error) {
		var vec *Vector
		if f.DV != nil {
			var err error
			if vec, err = vs.Vector(ctx, f.DV); err != nil {
				return nil, fmt.Errorf("data file %q: %w", f.Path, err)
			}
		}
		opts := vs.opts.Build
		opts.Rename = rn
		v, err := Build(ctx, vs.Source(f), f.Size, vec, opts)
		if err != nil {
			if f.DV == nil {
				return nil, fmt.Errorf("data file %q: %w", f.Path, err)
			}
			return nil, fmt.Errorf("data file %q (deletion vector %s): %w", f.Path, describe(f.DV), err)
		}
		return v, nil
	})
}

// describe names a vector in error messages without dumping inline data.
func describe(dv *action.DeletionVector) string {
	if dv.StorageType == string(StorageInline) {
		return fmt.Sprintf("inline, %d rows", dv.Cardinality)
	}
	id := dv.UniqueID()
	return fmt.Sprintf("%q, %d rows", id, dv.Cardinality)
}
