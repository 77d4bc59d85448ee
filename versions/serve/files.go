package serve

import (
	"context"
	"sync"

	"github.com/deltafs/deltafs/cache"
	"github.com/deltafs/deltafs/dvfilter/parquetview"
)

// Options tune Files. The zero value of every field means its default.
type Options struct {
	// BlockSize is the unit of data file reads and of the block cache.
	// Default 1 MiB.
	BlockSize int64
	// CacheBytes is the block cache's budget. Default 256 MiB; negative
	// disables caching (concurrent reads of a block are still shared).
	CacheBytes int64
	// ReadAhead is the most blocks prefetched past a sequential reader
	// (Reader.Read says how the window grows). Default 2; negative
	// disables read-ahead. Open readers together hold at most
	// 2*(ReadAhead+2) blocks beyond the cache.
	ReadAhead int
	// ViewCacheBytes bounds the memory of cached views (footers and small
	// re-encoded row groups). Default 64 MiB.
	ViewCacheBytes int64
	// SpillDir is where large re-encoded row groups of views are spilled
	// (unlinked temporary files). Default os.TempDir().
	SpillDir string
	// FooterBlocks has a view built for reading (Files.View) read the
	// footer as blocks through the cache, where the reader's own footer
	// read finds them: one round trip where it would be two, for
	// storage a request crosses the network to. Files on local disk are
	// better read by ranged reads (and, served as stored, passed through).
	FooterBlocks bool
}

func (o Options) withDefaults() Options {
	if o.BlockSize <= 0 {
		o.BlockSize = 1 << 20
	}
	if o.CacheBytes == 0 {
		o.CacheBytes = 256 << 20
	}
	if o.ReadAhead == 0 {
		o.ReadAhead = 2
	}
	return o
}

// Files serves the data files of one table. It is safe for concurrent use.
type Files struct {
	st   Storage
	opts Options

	blocks  *cache.Cache[string, []byte]               // data file blocks, keyed by blockKey
	views   *views                                     // views of files with deletion vectors or renamed columns
	sizes   *cache.Cache[string, int64]                // served sizes of views, keyed by viewKey
	lacking *cache.Cache[string, bool]                 // whether files lack columns a fill fills, by viewKey (Lacks)
	chunks  *cache.Cache[string, []parquetview.Extent] // column chunks of data files, by path (chunks.go)
	held    *blockBudget                               // blocks held by open readers

	into    IntoStorage // st, reading blocks into the memory given
	buffers *bufferPool // block buffers of read-ahead around the cache (Lease)

	sizing   chan struct{} // the tokens of the views SizeAhead is building
	sizingMu sync.Mutex    // held to take tokens

	ctx    context.Context // background loads end with it
	cancel context.CancelFunc
}

// New returns the Files of the table st reads. Background loads end when
// ctx does, or at Close.
func New(ctx context.Context, st Storage, opts Options) *Files {
	o := opts.withDefaults()
	f := &Files{
		st:      st,
		opts:    o,
		blocks:  cache.New[string, []byte](o.CacheBytes, func(b []byte) int64 { return int64(len(b)) }),
		sizes:   cache.New[string, int64](1<<20, nil), // about a million sizes
		lacking: cache.New[string, bool](1<<16, nil),
		chunks:  cache.New[string, []parquetview.Extent](chunkCacheBytes, func(e []parquetview.Extent) int64 { return 64 + 16*int64(len(e)) }),
		held:    newBlockBudget(heldBlocks(o)),

		into:    intoOf(st),
		buffers: &bufferPool{size: o.BlockSize},
		sizing:  make(chan struct{}, sizeAheadTokens),
	}
	f.views = newViews(st, o.ViewCacheBytes, parquetview.BuildOptions{SpillDir: o.SpillDir, Decoding: newDecodingBudget(decodingBytes)})
	f.ctx, f.cancel = context.WithCancel(ctx)
	return f
}

// heldBlocks is how many blocks open readers may hold at once.
func heldBlocks(o Options) int { return 2 * (max(o.ReadAhead, 0) + 2) }

// MemoryBound is the most memory data file bytes take under opts: the
// block cache, the blocks readers hold, the cached views, the footers of
// views being built.
func MemoryBound(opts Options) int64 {
	o := opts.withDefaults()
	return max(o.CacheBytes, 0) + int64(heldBlocks(o))*o.BlockSize + o.ViewCacheBytes + decodingBytes
}

// BlockSize is the unit of reads.
func (f *Files) BlockSize() int64 { return f.opts.BlockSize }

// HeldBlocks is the number of blocks open readers hold, loaded or loading.
func (f *Files) HeldBlocks() int { return f.held.inUse() }

// BufferReuse is how many reusable block buffers (Lease) were ever made,
// and how many times one was handed out to a block.
func (f *Files) BufferReuse() (made, used int64) {
	return f.buffers.made.Load(), f.buffers.used.Load()
}

// Close ends background loads and frees the caches. Readers and views
// handed out stay usable for what they hold.
func (f *Files) Close() {
	f.cancel()
	f.blocks.Close()
	f.views.close()
	f.sizes.Close()
	f.chunks.Close()
}

// chunkCacheBytes bounds the column chunks kept (16 bytes each).
const chunkCacheBytes = 4 << 20
