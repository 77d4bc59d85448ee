package main

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay"
)

// memoryHeadroom is what a mount needs beyond its data and snapshots: the
// runtime, listings, requests in flight.
const memoryHeadroom = 128 << 20

// setMemoryLimit gives the Go runtime a soft memory limit from the flags
// (unless GOMEMLIMIT sets one): the bound on data file bytes, twice the
// latest snapshot, and headroom. Without it the heap grows to twice what
// it holds before collecting, and a sequential reader discards blocks at
// the speed it reads: a 1 GiB read took the process to about 900 MiB
// against a bound of 544 MiB (BENCHMARKS.md). Past the limit the runtime
// collects more often; it never fails an allocation. The limit follows
// the live heap up (keepMemoryLimit) until ctx ends.
func setMemoryLimit(ctx context.Context, opts fs.Options, snap *replay.Snapshot) {
	if os.Getenv("GOMEMLIMIT") == "" {
		keepMemoryLimit(ctx, opts.MemoryBound()+2*snap.MemoryBytes()+memoryHeadroom, opts.MemoryBound())
	}
}

// keepMemoryLimit sets the soft memory limit to bound, and after every
// collection to twice the live heap less data, the most of it that can be
// data file bytes (blocks, views), when that is more. The bound alone is
// less than a mount holds once the kernel has looked up a million files
// (their nodes and listings): the heap sat at the limit and the collector
// ran back to back, half the CPU of a `find` over a 1M-file version. What
// is not data then gets the room the collector gives it anyway (GOGC=100:
// as much again as is live), while discarded blocks still go before the
// heap doubles.
func keepMemoryLimit(ctx context.Context, bound, data int64) {
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
				debug.SetMemoryLimit(max(bound, 2*int64(live[0].Value.Uint64())-data))
			}
			arm()
		}, struct{}{})
	}
	arm()
}
