package fs

import (
	"context"
	"fmt"
	"strconv"
)

// Data file bytes are read in blocks of Options.BlockSize, each one ranged
// read, shared through the root's block cache (cache.GetOrLoad: concurrent
// loads of a block are one request). On top of the cache, each open handle
// of a plain data file holds a few blocks itself (handle.go): the block its
// reader is in and the blocks read ahead of a sequential reader. Holding
// them makes read-ahead independent of the cache's admission policy, which
// may refuse a new block once the cache is full, and keeps small kernel
// reads (128 KiB) inside one large block from loading it again. The memory
// of held blocks is bounded by a per-mount budget (blockBudget); a handle
// that finds the budget spent reads without holding, through the cache.

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

// readAhead warms the cache with blocks [from, to) of a file in the
// background, within the root's context and a small bound on loads in
// flight; blocks that would exceed the bound are skipped, not queued.
// Errors are left for the reader to meet, and log, when it gets there.
// Files with deletion vectors use it (their reads go through the view);
// plain files read ahead into their handle (fileHandle.schedule).
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

// blockBudget bounds the blocks that open handles hold, in flight or
// loaded: one token per block. It never blocks: a handle that gets no token
// does without. Safe for concurrent use.
type blockBudget struct {
	tokens chan struct{}
}

func newBlockBudget(n int) *blockBudget {
	return &blockBudget{tokens: make(chan struct{}, max(n, 1))}
}

// take reserves one block, reporting whether one was free.
func (b *blockBudget) take() bool {
	select {
	case b.tokens <- struct{}{}:
		return true
	default:
		return false
	}
}

// give returns a block taken with take.
func (b *blockBudget) give() { <-b.tokens }

// inUse is the number of blocks held now (tests).
func (b *blockBudget) inUse() int { return len(b.tokens) }
