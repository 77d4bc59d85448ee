package serve

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
)

// Reader is one open of a data file. It tracks whether its reader moves
// sequentially, to decide read-ahead, and holds the file's view, if it is
// served as one, for as long as it is open.
//
// The Reader also holds blocks of the stored file: the ones its reader is
// in or was just in, and those read ahead of a sequential reader, each
// loading in the background until the reader gets there. Each held block
// costs one token of the Files' blockBudget, returned when the block is
// dropped (the reader moved past it or away, or the Reader was closed) and
// its load has ended. Lock order: Reader.mu, then the cache's locks (never
// held across storage I/O).
type Reader struct {
	files *Files
	path  string            // the stored file
	size  int64             // its size per the log
	view  *parquetview.View // nil: the stored bytes are served; immutable

	ctx    context.Context    // read-ahead of this open
	cancel context.CancelFunc // ends ctx at Close

	mu      sync.Mutex
	streams []*stream            // GUARDED_BY(mu): the runs of reads being followed (streams.go)
	clock   uint64               // GUARDED_BY(mu): counts reads, to find the stream read longest ago
	held    map[int64]*heldBlock // GUARDED_BY(mu): blocks held, by index
	closed  bool                 // GUARDED_BY(mu): holds nothing any more
}

// Open returns a reader of the data file at path, size bytes long per the
// log, serving view when it is not nil (Files.View), else the stored bytes.
func (f *Files) Open(path string, size int64, view *parquetview.View) *Reader {
	ctx, cancel := context.WithCancel(f.ctx)
	return &Reader{files: f, path: path, size: max(size, 0), view: view, ctx: ctx, cancel: cancel}
}

// Size is the size of what the reader serves.
func (h *Reader) Size() int64 {
	if h.view != nil {
		return h.view.Size()
	}
	return h.size
}

// pageSize is the kernel's page, to which it aligns reads.
const pageSize = 4096

// rampUp is how many times the bytes a reader has read in sequence it may
// have read ahead (up to Options.ReadAhead blocks). With 2 MiB blocks and 1
// MiB reads, the window is 4 blocks after the first read, and 64 (128 MiB)
// after 16 MiB.
const rampUp = 8

// heldBlock is a block a Reader holds: loaded, or loading in the
// background. data and err are written once, before done is closed.
type heldBlock struct {
	done   chan struct{}
	data   []byte
	err    error
	cancel context.CancelFunc // abandons the load; nil for a block the reader loaded
	lease  *Lease             // the reused buffer data lies in (nil: memory of its own); set before done

	loaded  bool // GUARDED_BY(Reader.mu): the load has ended
	dropped bool // GUARDED_BY(Reader.mu): no longer in held; give the token back once loaded
}

// readAhead records a read of [off, end) of the stored file (the file
// served, or the source of its view) and starts loading the blocks a
// sequential reader will want next. The read continues a stream of reads
// or starts one (streams.go). A stream's window grows with its run of
// sequential reads, to rampUp times the bytes read in the run, from one
// block at its first read up to Options.ReadAhead: a long sequential read
// soon keeps several blocks in flight, while a read that is not sequential
// (starting more than a block away from where a stream's previous one
// ended: the kernel's own read-ahead reorders a little) starts a stream
// with nothing ahead, so random access reads no more than it asks for. A
// run that starts in a column chunk of a Parquet file reads ahead to the
// chunk's end at once, and no further until the reader goes past it
// (chunks.go). Blocks behind every stream or past their windows are
// dropped. When the budget runs out the window stops short, and the next
// read tries again.
func (h *Reader) readAhead(off, end int64) {
	r, path, size := h.files, h.path, h.size
	bs, most := r.opts.BlockSize, int64(max(r.opts.ReadAhead, 0))
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	s := h.follow(off, end)
	cur := (s.next - 1) / bs
	if s.chunkEnd > 0 {
		s.window = int(min(max((s.chunkEnd-1)/bs-cur, 0), most))
	}
	h.trim(s, bs, most)
	if s.window == 0 {
		return
	}
	from := max(cur+1, s.scheduled)
	last := (size + bs - 1) / bs
	to := min(cur+1+int64(s.window), last)
	// Blocks are asked for a span at a time. A span is at most half the
	// window, so waiting until one is free still leaves half the window
	// in flight ahead of the reader.
	span := max(min(spanBytes/bs, int64(s.window)/2), 1)
	if to-from < span && to < last {
		return
	}
	for idx := from; idx < to; {
		if _, ok := h.held[idx]; ok {
			idx++
			s.scheduled = idx
			continue
		}
		if r.cached(path, idx) {
			if !h.take() {
				return
			}
			h.load(idx) // from the cache, no request
			idx++
			s.scheduled = idx
			continue
		}
		// A span ends at a block held or cached: another stream of the
		// reader may have read the blocks past this one.
		n := int64(1)
		if !h.take() {
			return
		}
		for n < span && idx+n < to && h.held[idx+n] == nil && !r.cached(path, idx+n) && h.take() {
			n++
		}
		h.loadSpan(idx, int(n), h.cachesReadAhead(s))
		idx += n
		s.scheduled = idx
	}
}

// cachesReadAhead reports whether the blocks read ahead for s now go into
// the block cache. A file bigger than the cache, read from its start in
// sequence, is being copied (cp, cat, a reader of every column): its
// blocks stay out. Each would push out a block worth more, and a second
// copy would find none of its own there (the copy is longer than the
// cache); the reader holds them while it needs them, and then their memory
// is free. Kept in the cache, they took a fresh 1 GiB read from S3 to its
// memory limit (750-770 MiB), a quarter of its CPU spent faulting that
// memory in (BENCHMARKS.md, "remote read"). A run that starts further in
// (a Parquet reader's column chunks) is cached as ever. h.mu is held.
func (h *Reader) cachesReadAhead(s *stream) bool {
	return s.runFrom >= h.files.opts.BlockSize || h.size <= h.files.opts.CacheBytes
}

// spanBytes is the size of a read-ahead request, in whole blocks: eight 2
// MiB blocks of an object store. A sequential reader of 8 MiB blocks with
// 20 ms per request got 0.73-0.75x of a single-stream download asking for
// two blocks at a time, against 0.66-0.71x asking for one (BENCHMARKS.md,
// "remote read"): the server works per request.
const spanBytes = 16 << 20

// block returns block idx of the file for a read through h: a held block
// (waiting for its load if need be), else one from the cache or storage,
// which h then holds if the budget allows. The caller releases the lease
// (nil but for a reused buffer) once done with the bytes.
func (h *Reader) block(ctx context.Context, idx int64) ([]byte, *Lease, error) {
	h.mu.Lock()
	e := h.held[idx]
	h.mu.Unlock()
	if e != nil {
		select {
		case <-e.done:
			if data, lease, ok := h.claim(e); ok {
				return data, lease, nil
			}
			// A failed or abandoned read-ahead: the reader tries itself,
			// and meets (and reports) any error that persists.
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	data, err := h.files.block(ctx, h.path, h.size, idx)
	if err != nil {
		return nil, nil, err
	}
	h.keep(idx, data)
	return data, nil, nil
}

// claim returns the bytes of a held block whose load has ended, with a
// hold on their buffer if it is leased; false if the load failed, or the
// buffer went back when the block was dropped meanwhile.
func (h *Reader) claim(e *heldBlock) ([]byte, *Lease, bool) {
	if e.err != nil {
		return nil, nil, false
	}
	if e.lease == nil {
		return e.data, nil, true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if e.dropped && e.loaded {
		return nil, nil, false
	}
	return e.data, e.lease.hold(), true
}

// keep holds a block the reader loaded, replacing a failed read-ahead of it.
func (h *Reader) keep(idx int64, data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	if e, ok := h.held[idx]; ok {
		select {
		case <-e.done:
			if e.err == nil {
				return
			}
		default:
			return // still loading
		}
		h.drop(idx, e)
	}
	if !h.take() {
		return
	}
	e := &heldBlock{done: make(chan struct{}), data: data, loaded: true}
	close(e.done)
	h.held[idx] = e
}

// take reserves a token for one more held block. h.mu is held.
func (h *Reader) take() bool {
	if h.held == nil {
		h.held = make(map[int64]*heldBlock)
	}
	return h.files.held.take()
}

// load starts loading block idx in the background into a new held block,
// whose token the caller has taken. h.mu is held.
func (h *Reader) load(idx int64) {
	ctx, cancel := context.WithCancel(h.ctx)
	e := &heldBlock{done: make(chan struct{}), cancel: cancel}
	h.held[idx] = e
	go func() {
		defer cancel()
		e.data, e.err = h.files.block(ctx, h.path, h.size, idx)
		close(e.done)
		h.mu.Lock()
		h.loaded(e)
		h.mu.Unlock()
	}()
}

// loadSpan starts loading blocks [first, first+n) in the background with
// one request, into new held blocks whose tokens the caller has taken, and
// into the cache if cache says so; else into leased buffers, unless h
// serves a view (which may keep the source bytes it is handed). The
// request is abandoned once all of them are dropped. h.mu is held.
func (h *Reader) loadSpan(first int64, n int, cache bool) {
	if n == 1 && cache {
		h.load(first) // through the cache's shared loads
		return
	}
	ctx, cancel := context.WithCancel(h.ctx)
	var live atomic.Int32
	live.Store(int32(n))
	abandon := func() {
		if live.Add(-1) == 0 {
			cancel()
		}
	}
	es := make([]*heldBlock, n)
	for i := range es {
		es[i] = &heldBlock{done: make(chan struct{}), cancel: abandon}
		h.held[first+int64(i)] = es[i]
	}
	go func() {
		defer cancel()
		var mem []*Lease
		if !cache && h.view == nil {
			mem = make([]*Lease, n)
			for i, e := range es {
				mem[i] = h.files.buffers.get()
				e.lease = mem[i]
			}
		}
		blocks, err := h.files.span(ctx, h.path, h.size, first, n, cache, mem)
		for i, e := range es {
			if err != nil {
				e.err = err
			} else {
				e.data = blocks[i]
			}
			close(e.done)
		}
		h.mu.Lock()
		for _, e := range es {
			h.loaded(e)
		}
		h.mu.Unlock()
	}()
}

// loaded records that e's load has ended: a block dropped meanwhile gives
// its token and buffer back now. h.mu is held.
func (h *Reader) loaded(e *heldBlock) {
	e.loaded = true
	if e.dropped {
		h.files.held.give()
		e.lease.Release()
	}
}

// drop lets go of a held block: its token goes back now if it is loaded,
// else its load is abandoned and gives the token back when it ends. h.mu
// is held.
func (h *Reader) drop(idx int64, e *heldBlock) {
	delete(h.held, idx)
	e.dropped = true
	if e.loaded {
		h.files.held.give()
		e.lease.Release()
	} else if e.cancel != nil {
		e.cancel()
	}
}

// Close ends the reader's read-ahead and lets go of its blocks.
func (h *Reader) Close() {
	h.mu.Lock()
	h.closed = true
	for idx, e := range h.held {
		h.drop(idx, e)
	}
	h.mu.Unlock()
	h.cancel()
}
