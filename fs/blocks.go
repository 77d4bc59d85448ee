package fs

import (
	"context"
	"fmt"
	"strconv"
)

// blockKey names block idx of the data file at path. A path holds the same
// bytes in every version, so the key needs no version.
func blockKey(path string, idx int64) string {
	return path + "\x00" + strconv.FormatInt(idx, 10)
}

// block returns block idx of the data file at path (size bytes long) from
// the cache, loading it with one ranged read on a miss. Concurrent readers
// of a block, and read-ahead, share one load.
func (r *root) block(ctx context.Context, path string, size, idx int64) ([]byte, error) {
	bs := r.opts.BlockSize
	off := idx * bs
	n := min(bs, size-off)
	if n <= 0 {
		return nil, nil
	}
	return r.blocks.GetOrLoad(ctx, blockKey(path, idx), func(ctx context.Context) ([]byte, error) {
		data, err := r.table.ReadRange(ctx, path, off, n)
		if err != nil {
			return nil, err
		}
		if int64(len(data)) != n {
			return nil, fmt.Errorf("short read: got %d bytes of %d at offset %d (object smaller than the log says?)",
				len(data), n, off)
		}
		return data, nil
	})
}

// readAhead loads blocks [from, to) of a file in the background, within the
// root's context and a small bound on loads in flight; blocks that would
// exceed the bound are skipped, not queued. Errors are left for the reader
// to meet, and log, when it gets there.
func (r *root) readAhead(path string, size, from, to int64) {
	for idx := from; idx < to && idx*r.opts.BlockSize < size; idx++ {
		if _, ok := r.blocks.Get(blockKey(path, idx)); ok {
			continue
		}
		select {
		case r.prefetch <- struct{}{}:
		default:
			return
		}
		go func() {
			defer func() { <-r.prefetch }()
			_, _ = r.block(r.ctx, path, size, idx)
		}()
	}
}
