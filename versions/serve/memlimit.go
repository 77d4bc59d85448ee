package serve

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// DataBytes is about the memory data file bytes take now: the block cache,
// the blocks open readers hold (most of them cached too, so counted twice)
// and the cached views, at most MemoryBound.
func (f *Files) DataBytes() int64 {
	n := f.blocks.Bytes() + int64(f.held.inUse())*f.opts.BlockSize + f.views.bytes()
	return min(n, MemoryBound(f.opts))
}

// KeepMemoryLimit gives the Go runtime the soft memory limit bound, raised
// after every collection, until ctx ends, to twice the live heap less the
// data bytes (DataBytes) when that is more. Without a limit the heap grows
// to twice what it holds before collecting, and a sequential reader
// discards blocks at the speed it reads (a 1 GiB read from S3 took a mount
// to about 900 MiB against a bound of 544 MiB); a fixed limit is less than
// a mount holds once the kernel has looked up a million files, and the
// collector then runs back to back (a cold `find` over such a version took
// half as long again, BENCHMARKS.md). So what is not data gets the room
// the collector gives it anyway (GOGC=100: as much again as is live),
// while discarded blocks still go early.
func (f *Files) KeepMemoryLimit(ctx context.Context, bound int64) {
	keepMemoryLimit(ctx, bound, f.DataBytes)
}

func keepMemoryLimit(ctx context.Context, bound int64, data func() int64) {
	debug.SetMemoryLimit(bound)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		// A cleanup runs after the collection that finds its object
		// unreachable: once per cycle, re-armed each time. (16 bytes: a
		// smaller object could share a block with live ones.)
		runtime.AddCleanup(new([16]byte), func(struct{}) {
			if ctx.Err() != nil {
				return
			}
			metrics.Read(live)
			if live[0].Value.Kind() == metrics.KindUint64 {
				debug.SetMemoryLimit(max(bound, 2*int64(live[0].Value.Uint64())-data()))
			}
			arm()
		}, struct{}{})
	}
	arm()
}
