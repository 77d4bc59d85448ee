package serve

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The limit is the bound while the live heap is small, follows twice the
// live heap less the data past it, and stops following when the mount's
// context ends.
func TestKeepMemoryLimitFollowsTheLiveHeap(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const bound, data = 64 << 20, 16 << 20
	keepMemoryLimit(ctx, bound, func() int64 { return data })
	limitAfterGC := func(want func(int64) bool) int64 {
		var got int64
		for range 200 { // the cleanup runs after a collection, on its own goroutine
			runtime.GC()
			time.Sleep(5 * time.Millisecond)
			if got = debug.SetMemoryLimit(-1); want(got) {
				break
			}
		}
		return got
	}
	if got := limitAfterGC(func(l int64) bool { return l == bound }); got != bound {
		t.Fatalf("small heap: limit %d, want the bound %d", got, bound)
	}
	held := make([]byte, 3*bound/2)
	for i := range held {
		held[i] = byte(i)
	}
	if got := limitAfterGC(func(l int64) bool { return l >= 3*bound-data }); got < 3*bound-data {
		t.Fatalf("with %d bytes live: limit %d, want at least twice that less %d", len(held), got, data)
	}
	runtime.KeepAlive(held)
	held = nil
	if got := limitAfterGC(func(l int64) bool { return l == bound }); got != bound {
		t.Fatalf("heap small again: limit %d, want the bound %d", got, bound)
	}
	cancel()
	for range 3 { // let a cleanup already past its check finish
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	big := make([]byte, 3*bound/2)
	if got := limitAfterGC(func(l int64) bool { return l != math.MaxInt64 }); got != math.MaxInt64 {
		t.Fatalf("after the mount ended the limit moved to %d", got)
	}
	runtime.KeepAlive(big)
}

// DataBytes counts the blocks a reader holds and the cache keeps, within
// the bound, and drops to what the cache keeps when the reader closes.
func TestDataBytesCountsBlocks(t *testing.T) {
	st := newMemStorage(map[string]int{"f": 40 * testBlock})
	files := New(context.Background(), st, Options{BlockSize: testBlock, ReadAhead: 8})
	defer files.Close()
	if got := files.DataBytes(); got != 0 {
		t.Fatalf("before any read: DataBytes() = %d", got)
	}
	r := files.Open("f", 40*testBlock, nil)
	buf := make([]byte, testBlock)
	for off := int64(0); off < 6*testBlock; off += testBlock {
		if _, _, err := r.Read(context.Background(), buf, off); err != nil {
			t.Fatal(err)
		}
	}
	held := int64(files.held.inUse()) * testBlock
	if got := files.DataBytes(); got < held || got > MemoryBound(files.opts) {
		t.Fatalf("reading: DataBytes() = %d, want from the %d bytes held to the bound %d", got, held, MemoryBound(files.opts))
	}
	r.Close()
	waitUntil(t, "held blocks given back", func() bool { return files.held.inUse() == 0 })
	if got, cached := files.DataBytes(), files.blocks.Bytes(); got != cached || cached == 0 {
		t.Fatalf("closed: DataBytes() = %d, the cache holds %d", got, cached)
	}
}
