package serve

import (
	"context"
	"fmt"
	"strconv"
)

// Data file bytes are read in blocks of Options.BlockSize, each one ranged
// read, shared through the root's block cache (cache.GetOrLoad: concurrent
// loads of a block are one request). On top of the cache, each open Reader
// of a plain data file holds a few blocks itself (reader.go): the block its
// reader is in and the blocks read ahead of a sequential reader. Holding
// them makes read-ahead independent of the cache's admission policy, which
// may refuse a new block once the cache is full, and keeps small kernel
// reads (128 KiB) inside one large block from loading it again. The memory
// of held blocks is bounded by a per-table budget (blockBudget); a reader
// that finds the budget spent reads without holding, through the cache.

// blockKey names block idx of the data file at path. A path holds the same
// bytes in every version, so the key needs no version.
func blockKey(path string, idx int64) string {
	return path + "\x00" + strconv.FormatInt(idx, 10)
}

// block returns block idx of the data file at path (size bytes long) from
// the cache, loading it with one ranged read on a miss. Concurrent readers
// of a block, and read-ahead, share one load.
func (r *Files) block(ctx context.Context, path string, size, idx int64) ([]byte, error) {
	if idx*r.opts.BlockSize >= size {
		return nil, nil
	}
	return r.blocks.GetOrLoad(ctx, blockKey(path, idx), func(ctx context.Context) ([]byte, error) {
		blocks, err := r.fetch(ctx, path, size, idx, 1, nil)
		if err != nil {
			return nil, err
		}
		return blocks[0], nil
	})
}

// cached reports whether block idx of the file at path is in the cache.
func (r *Files) cached(path string, idx int64) bool {
	_, ok := r.blocks.Get(blockKey(path, idx))
	return ok
}

// span loads blocks [first, first+n) of a file with one ranged read and,
// if cache, puts them in the cache. A sequential reader's read-ahead asks
// for several blocks at a time: fewer, larger requests, while a random
// read still fetches one block. Block i goes into mem[i] when mem is
// given (leased buffers, never cached).
func (r *Files) span(ctx context.Context, path string, size, first int64, n int, cache bool, mem []*Lease) ([][]byte, error) {
	blocks, err := r.fetch(ctx, path, size, first, n, mem)
	if err != nil || !cache {
		return blocks, err
	}
	for i, b := range blocks {
		r.blocks.Set(blockKey(path, first+int64(i)), b)
	}
	return blocks, nil
}

// fetch reads blocks [first, first+n) of a file, all of them inside its
// size bytes, with one ranged read. Block i lies in mem[i] when mem is
// given, else in memory of its own (a cached block keeps no other in
// memory).
func (r *Files) fetch(ctx context.Context, path string, size, first int64, n int, mem []*Lease) ([][]byte, error) {
	bs := r.opts.BlockSize
	off, end := first*bs, min((first+int64(n))*bs, size)
	blocks := make([][]byte, 0, n)
	for i, b := 0, off; b < end; i, b = i+1, b+bs {
		ln := min(bs, end-b)
		if mem != nil {
			blocks = append(blocks, mem[i].data[:ln:ln])
		} else {
			blocks = append(blocks, make([]byte, ln))
		}
	}
	got, err := r.into.ReadRangeInto(ctx, path, off, size, blocks)
	if err != nil {
		return nil, err
	}
	if got != end-off {
		return nil, fmt.Errorf("short read: got %d bytes of %d at offset %d (object smaller than the log says?)", got, end-off, off)
	}
	return blocks, nil
}

// blockBudget bounds the blocks that open readers hold, in flight or
// loaded: one token per block. It never blocks: a reader that gets no token
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

// inUse is the number of blocks held now.
func (b *blockBudget) inUse() int { return len(b.tokens) }
