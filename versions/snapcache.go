package versions

import (
	"context"
	"sync"

	"github.com/deltafs/deltafs/replay"
)

// snapshotCache keeps built snapshots by version and makes concurrent
// requests for one version share a single build. It is not a cache.Cache:
// ristretto's admission policy may refuse a value, and following latest
// depends on finding the snapshot just built (nearestBelow), every time.
type snapshotCache struct {
	maxBytes int64

	mu      sync.Mutex
	entries map[int64]*snapEntry // GUARDED_BY(mu)
	order   []int64              // GUARDED_BY(mu); least recently built first
	bytes   int64                // GUARDED_BY(mu)
}

type snapEntry struct {
	done chan struct{}
	snap *replay.Snapshot
	err  error
	cost int64
}

func newSnapshotCache(maxBytes int64) *snapshotCache {
	if maxBytes <= 0 {
		maxBytes = 1 << 30
	}
	return &snapshotCache{maxBytes: maxBytes, entries: map[int64]*snapEntry{}}
}

func (c *snapshotCache) getOrBuild(ctx context.Context, v int64, build func(context.Context) (*replay.Snapshot, error)) (*replay.Snapshot, error) {
	c.mu.Lock()
	e, ok := c.entries[v]
	if !ok {
		e = &snapEntry{done: make(chan struct{})}
		c.entries[v] = e
	}
	c.mu.Unlock()
	if ok {
		select {
		case <-e.done:
			return e.snap, e.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	e.snap, e.err = build(ctx)
	close(e.done)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.err != nil {
		delete(c.entries, v) // errors are not cached
		return nil, e.err
	}
	e.cost = e.snap.MemoryBytes()
	c.bytes += e.cost
	c.order = append(c.order, v)
	for c.bytes > c.maxBytes && len(c.order) > 1 {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= c.entries[old].cost
		delete(c.entries, old)
	}
	return e.snap, nil
}

// nearestBelow returns the cached snapshot with the highest version below v
// and at most maxGap under it, or nil.
func (c *snapshotCache) nearestBelow(v, maxGap int64) *replay.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *replay.Snapshot
	for w, e := range c.entries {
		if w >= v || v-w > maxGap {
			continue
		}
		select {
		case <-e.done:
		default:
			continue // still building
		}
		if e.snap != nil && (best == nil || w > best.Version) {
			best = e.snap
		}
	}
	return best
}
