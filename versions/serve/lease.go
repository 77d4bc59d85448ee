package serve

import (
	"sync"
	"sync/atomic"
)

// A Lease keeps a reused block buffer from going back to its pool: the
// bytes Read returned lie in it, and must not be used after Release. Read
// gives one only for blocks read ahead around the cache
// (Reader.cachesReadAhead is false: a big file copied from its start).
// Their memory goes from one block to the next, so a copy touches the
// memory of its read-ahead window, not a new buffer for every block of the
// file: in a fresh process each new buffer was faulted in page by page,
// a seventh of its CPU for a 1 GiB read from S3 (BENCHMARKS.md, "remote
// read"). A buffer goes back once its holders have all let go: the Reader
// holding the block, and each reply carrying its bytes, until sent.
type Lease struct {
	data []byte // cap BlockSize
	refs atomic.Int32
	pool *bufferPool
}

// Release ends the lease; a nil Lease has nothing to release.
func (l *Lease) Release() {
	if l == nil {
		return
	}
	switch n := l.refs.Add(-1); {
	case n == 0:
		l.pool.put(l)
	case n < 0:
		panic("serve: lease released twice")
	}
}

// hold adds a holder; the caller is one already, or holds the Reader's
// lock while the block holding the buffer is in the Reader's held map.
func (l *Lease) hold() *Lease {
	if l != nil {
		l.refs.Add(1)
	}
	return l
}

// bufferPool keeps block buffers given back, until the collector takes
// them (sync.Pool: an idle mount gives their memory back within two
// collections). Safe for concurrent use.
type bufferPool struct {
	size int64
	pool sync.Pool
	made atomic.Int64 // buffers allocated, ever
	used atomic.Int64 // buffers handed out, ever
}

// ScribbleOnRelease, when true, overwrites every buffer given back to a
// pool, so that a test reading through the mount sees bytes still in use
// being reused. Only for tests; set before any Files is used.
var ScribbleOnRelease bool

// get returns a buffer of the pool's size, held by the caller.
func (p *bufferPool) get() *Lease {
	l, _ := p.pool.Get().(*Lease)
	if l == nil {
		l = &Lease{data: make([]byte, p.size), pool: p}
		p.made.Add(1)
	}
	l.refs.Store(1)
	p.used.Add(1)
	return l
}

func (p *bufferPool) put(l *Lease) {
	if ScribbleOnRelease {
		for i := range l.data {
			l.data[i] = 0xA5
		}
	}
	p.pool.Put(l)
}
