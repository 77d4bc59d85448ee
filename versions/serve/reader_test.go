package serve

import (
	"bytes"
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testBlock = 64 << 10

// memStorage holds objects in memory and counts the reads of each.
type memStorage struct {
	objects map[string][]byte

	mu     sync.Mutex
	readAt map[string]int // "path@off" -> reads starting there
	reads  atomic.Int64
	bytes  atomic.Int64
}

func newMemStorage(files map[string]int) *memStorage {
	m := &memStorage{objects: map[string][]byte{}, readAt: map[string]int{}}
	for path, size := range files {
		data := make([]byte, size)
		rng := rand.New(rand.NewPCG(uint64(size), 7))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		m.objects[path] = data
	}
	return m
}

func (m *memStorage) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	m.reads.Add(1)
	m.mu.Lock()
	m.readAt[path+"@"+string(rune(off/testBlock))]++
	m.mu.Unlock()
	data := m.objects[path]
	off = min(off, int64(len(data))) // past the end: nothing, as storage answers
	end := min(off+n, int64(len(data)))
	m.bytes.Add(end - off)
	return bytes.Clone(data[off:end]), nil
}

func (m *memStorage) readsOf(path string, off int64) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.readAt[path+"@"+string(rune(off/testBlock))]
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 6000; i++ { // bounded: a minute at most
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("gave up waiting for %s", what)
}

// A sequential reader's next blocks are fetched before it asks for them,
// and a read of a prefetched block goes to no storage.
func TestReadAheadPrefetchesSequentialReads(t *testing.T) {
	st := newMemStorage(map[string]int{"big.bin": 5*testBlock + 123})
	files := New(context.Background(), st, Options{BlockSize: testBlock})
	defer files.Close()
	r := files.Open("big.bin", int64(len(st.objects["big.bin"])), nil)
	defer r.Close()
	buf := make([]byte, testBlock)
	for off := int64(0); off < 2*testBlock; off += testBlock {
		if _, _, err := r.Read(context.Background(), buf, off); err != nil {
			t.Fatal(err)
		}
	}
	waitUntil(t, "read-ahead of blocks 2 and 3", func() bool {
		return files.cached("big.bin", 2) && files.cached("big.bin", 3)
	})
	before := st.readsOf("big.bin", 2*testBlock)
	got, lease, err := r.Read(context.Background(), buf, 2*testBlock)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	if !bytes.Equal(got, st.objects["big.bin"][2*testBlock:3*testBlock]) {
		t.Fatal("prefetched block has wrong bytes")
	}
	if st.readsOf("big.bin", 2*testBlock) != before {
		t.Error("read of a prefetched block went to storage")
	}
}

// TestReadsSpanningBlocksFetchEachOnce: a read covering several blocks (as
// direct-I/O reads of 1 MiB over smaller blocks do) keeps the blocks it
// covers, read ahead or not, so that a sequential reader fetches every
// block exactly once even with no block cache to fall back on.
func TestReadsSpanningBlocksFetchEachOnce(t *testing.T) {
	readSequentially(t, 20*testBlock+99, 3*testBlock, 4)
}

// TestSequentialReadAheadAsksForSpans: once a reader is sequential, its
// read-ahead asks for several blocks per request (at most half the
// window), and still fetches every byte exactly once.
func TestSequentialReadAheadAsksForSpans(t *testing.T) {
	// 49 blocks: the first few one at a time while the window grows, then
	// spans of 4.
	if n := readSequentially(t, 48*testBlock+777, testBlock/2, 8); n > 20 {
		t.Errorf("%d requests for 49 blocks read in sequence", n)
	}
}

// readSequentially reads a file of size bytes front to back through one
// reader without a block cache, in reads of n bytes, checks the bytes and
// that every byte was fetched once (possibly several blocks per request).
// It returns the requests made.
func readSequentially(t *testing.T, size, n, readAhead int) int64 {
	t.Helper()
	st := newMemStorage(map[string]int{"f": size})
	files := New(context.Background(), st, Options{BlockSize: testBlock, CacheBytes: -1, ReadAhead: readAhead})
	defer files.Close()
	r := files.Open("f", int64(size), nil)
	defer r.Close()
	want := st.objects["f"]
	buf := make([]byte, n)
	var got []byte
	for off := int64(0); off < int64(len(want)); off += int64(n) {
		b, lease, err := r.Read(context.Background(), buf, off)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b...)
		lease.Release()
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes differing from the %d stored", len(got), len(want))
	}
	if d := st.bytes.Load(); d != int64(len(want)) {
		t.Errorf("fetched %d bytes for a file of %d", d, len(want))
	}
	return st.reads.Load()
}

// checkRead reads len(buf) bytes at off through r, checks them against
// the file's bytes want and releases them.
func checkRead(t *testing.T, r *Reader, buf []byte, off int64, want []byte) {
	t.Helper()
	got, lease, err := r.Read(context.Background(), buf, off)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want[off:off+int64(len(got))]) {
		t.Fatalf("wrong bytes at %d", off)
	}
	lease.Release()
}

// TestClosedReaderGivesBlocksBack: every block a reader held, loaded or
// still loading, goes back to the budget once it is closed.
func TestClosedReaderGivesBlocksBack(t *testing.T) {
	st := newMemStorage(map[string]int{"f": 40 * testBlock})
	files := New(context.Background(), st, Options{BlockSize: testBlock, ReadAhead: 8})
	defer files.Close()
	r := files.Open("f", 40*testBlock, nil)
	buf := make([]byte, testBlock)
	for off := int64(0); off < 6*testBlock; off += testBlock {
		if _, _, err := r.Read(context.Background(), buf, off); err != nil {
			t.Fatal(err)
		}
	}
	if files.held.inUse() == 0 {
		t.Fatal("a sequential reader holds no block")
	}
	r.Close()
	waitUntil(t, "held blocks given back", func() bool { return files.held.inUse() == 0 })
}

// TestCopyLeavesTheCacheAlone: a file bigger than the cache, read in
// sequence from its start, is read ahead around the cache (each byte
// fetched once still), while a run that starts further in, and a file
// the cache can hold, are cached.
func TestCopyLeavesTheCacheAlone(t *testing.T) {
	const blocks, cacheBlocks = 120, 40
	st := newMemStorage(map[string]int{"big": blocks * testBlock, "small": 8 * testBlock})
	files := New(context.Background(), st, Options{BlockSize: testBlock, CacheBytes: cacheBlocks * testBlock, ReadAhead: 8})
	defer files.Close()
	read := func(path string, from, to int64) {
		t.Helper()
		want := st.objects[path]
		r := files.Open(path, int64(len(want)), nil)
		defer r.Close()
		buf := make([]byte, testBlock)
		for off := from * testBlock; off < to*testBlock; off += testBlock {
			checkRead(t, r, buf, off, want)
		}
	}
	read("big", 0, blocks)
	if d := st.bytes.Load(); d != blocks*testBlock {
		t.Errorf("fetched %d bytes for a file of %d", d, blocks*testBlock)
	}
	// Only the blocks read before read-ahead asked for spans: a few.
	if n := files.blocks.Bytes() / testBlock; n > 4 {
		t.Errorf("%d blocks of the copy in the cache", n)
	}
	for _, run := range []struct {
		path     string
		from, to int64
	}{{"small", 0, 8}, {"big", 60, 70}} {
		read(run.path, run.from, run.to)
		for idx := run.from; idx < run.to; idx++ {
			if !files.cached(run.path, idx) {
				t.Errorf("%s: block %d, read in a run from block %d, is not in the cache", run.path, idx, run.from)
			}
		}
	}
}

// Buffers given back to a pool in these tests are scribbled on, so that
// bytes used after their lease ended show as wrong bytes.
func init() { ScribbleOnRelease = true }

// TestLeasesKeepBytesUntilReleased: a copy of a file bigger than the cache
// is read ahead into reused buffers (a few, not one per block), and the
// bytes of a read stay right while its lease is held, here for the next
// three reads, as a reply in flight would; readers that jump about on one
// Reader drop blocks whose bytes other reads still hold.
func TestLeasesKeepBytesUntilReleased(t *testing.T) {
	const blocks = 200
	st := newMemStorage(map[string]int{"f": blocks*testBlock + 99})
	files := New(context.Background(), st, Options{BlockSize: testBlock, CacheBytes: 8 * testBlock, ReadAhead: 8})
	defer files.Close()
	want := st.objects["f"]
	type held struct {
		got   []byte
		off   int
		lease *Lease
	}
	check := func(h held) {
		if !bytes.Equal(h.got, want[h.off:h.off+len(h.got)]) {
			t.Errorf("bytes at %d changed while their lease was held", h.off)
		}
		h.lease.Release()
	}
	r := files.Open("f", int64(len(want)), nil)
	var queue []held
	buf := make([]byte, testBlock/4)
	leased := 0
	for off := 0; off < len(want); off += len(buf) {
		got, lease, err := r.Read(context.Background(), buf, int64(off))
		if err != nil {
			t.Fatal(err)
		}
		if lease != nil {
			leased++
		}
		queue = append(queue, held{got, off, lease})
		if len(queue) > 3 {
			check(queue[0])
			queue = queue[1:]
		}
	}
	for _, h := range queue {
		check(h)
	}
	r.Close()
	// About 20 buffers; under -race, where sync.Pool drops a quarter of
	// what it is given, about 65.
	if made, used := files.BufferReuse(); leased == 0 || made > used/2 {
		t.Errorf("%d reads of leased bytes, %d buffers made for %d blocks read ahead", leased, made, used)
	}

	// Four readers of one Reader, each from its own place: their reads
	// break each other's runs, and the Reader drops blocks behind and
	// ahead of each, while other reads may hold them.
	r = files.Open("f", int64(len(want)), nil)
	defer r.Close()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, testBlock/2)
			var prev *held
			for off := i * len(want) / 4; off+len(buf) <= len(want); off += len(buf) {
				got, lease, err := r.Read(context.Background(), buf, int64(off))
				if err != nil {
					t.Error(err)
					return
				}
				if prev != nil {
					check(*prev)
				}
				prev = &held{got, off, lease}
			}
			if prev != nil {
				check(*prev)
			}
		}()
	}
	wg.Wait()
}

// slowStorage answers after a delay, or gives up when its caller does,
// counting the requests abandoned so.
type slowStorage struct {
	*memStorage
	delay     time.Duration
	abandoned atomic.Int64
}

func (s *slowStorage) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	select {
	case <-time.After(s.delay):
		return s.memStorage.ReadRange(ctx, path, off, n)
	case <-ctx.Done():
		s.abandoned.Add(1)
		return nil, ctx.Err()
	}
}

// TestInterleavedStreamsKeepTheirReadAhead: four readers sharing one open
// file, each reading its own quarter in sequence, their reads interleaved
// as the threads of one process send them, each get read ahead (followed
// as one run, every read broke it), none of it dropped while it loads
// (and fetched again), and every block is fetched once.
func TestInterleavedStreamsKeepTheirReadAhead(t *testing.T) {
	const quarter = 40 * testBlock
	st := &slowStorage{memStorage: newMemStorage(map[string]int{"f": 4 * quarter}), delay: time.Millisecond}
	files := New(context.Background(), st, Options{BlockSize: testBlock, ReadAhead: 32})
	defer files.Close()
	want := st.objects["f"]
	r := files.Open("f", int64(len(want)), nil)
	buf := make([]byte, testBlock/2)
	for step := int64(0); step < quarter; step += int64(len(buf)) {
		for q := int64(0); q < 4; q++ {
			checkRead(t, r, buf, q*quarter+step, want)
		}
	}
	if n := st.abandoned.Load(); n > 0 {
		t.Errorf("%d loads read ahead were abandoned while four streams read", n)
	}
	r.Close()
	waitUntil(t, "loads to end", func() bool { return files.held.inUse() == 0 })
	if got := st.bytes.Load(); got != int64(len(want)) {
		t.Errorf("fetched %d bytes for a file of %d", got, len(want))
	}
	// Read ahead in spans: fewer requests than blocks (about 110; one a
	// block, 158, when every read broke the run).
	if n := st.reads.Load(); n > 145 {
		t.Errorf("%d requests for 160 blocks read in four streams: little read-ahead", n)
	}
}

// TestReadAheadStopsAtCachedBlocks: a sequential reader whose read-ahead
// reaches blocks another open has read (in the cache) takes them from the
// cache; a span of read-ahead ends before them rather than fetching them
// again.
func TestReadAheadStopsAtCachedBlocks(t *testing.T) {
	const size = 32 * testBlock
	st := newMemStorage(map[string]int{"f": size})
	files := New(context.Background(), st, Options{BlockSize: testBlock, ReadAhead: 16})
	defer files.Close()
	want := st.objects["f"]
	read := func(from int64) {
		r := files.Open("f", size, nil)
		defer r.Close()
		buf := make([]byte, testBlock/2)
		for off := from; off < size; off += int64(len(buf)) {
			checkRead(t, r, buf, off, want)
		}
	}
	read(size / 2) // the second half, into the cache
	read(0)
	waitUntil(t, "loads to end", func() bool { return files.held.inUse() == 0 })
	if got := st.bytes.Load(); got != size {
		t.Errorf("fetched %d bytes for a file of %d", got, size)
	}
}
