package cache

import (
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/ristretto/v2"
)

// Key is the set of key types a Cache accepts: comparable types ristretto can
// hash.
type Key interface {
	~string | ~uint64 | ~int64 | ~int | ~uint | ~uint32 | ~int32 | ~byte
}

// Stats counts what a Cache has done since New.
type Stats struct {
	Hits   int64 // Get or GetOrLoad found the value in the cache
	Misses int64 // Get or GetOrLoad did not find it
	Loads  int64 // loads started (one per flight, however many callers share it)
	Shared int64 // GetOrLoad calls that joined a load another call started
	Errors int64 // loads that returned an error
}

// Cache is a byte-costed cache from K to V with load de-duplication. It is
// safe for concurrent use. The zero value is not usable; call New.
type Cache[K Key, V any] struct {
	cost func(V) int64

	// rcMu makes Close safe against concurrent use: ristretto's Close must
	// not run while a Set or Wait is in progress. Lock order: mu, then rcMu.
	rcMu sync.RWMutex
	rc   *ristretto.Cache[K, V] // GUARDED_BY(rcMu); nil when the budget is zero or after Close

	mu      sync.Mutex
	flights map[K]*flight[V] // GUARDED_BY(mu)

	hits, misses, loads, shared, errs atomic.Int64
}

// New returns a cache that keeps at most about maxBytes of values, as
// measured by cost. A maxBytes of zero or less disables storage: GetOrLoad
// then only de-duplicates concurrent loads. A nil cost counts every value as
// one byte.
func New[K Key, V any](maxBytes int64, cost func(V) int64) *Cache[K, V] {
	if cost == nil {
		cost = func(V) int64 { return 1 }
	}
	c := &Cache[K, V]{cost: cost, flights: make(map[K]*flight[V])}
	if maxBytes <= 0 {
		return c
	}
	rc, err := ristretto.NewCache(&ristretto.Config[K, V]{
		NumCounters:        numCounters(maxBytes),
		MaxCost:            maxBytes,
		BufferItems:        64,
		IgnoreInternalCost: true, // costs are the caller's bytes, not ristretto's bookkeeping
		Metrics:            true, // for Bytes
	})
	if err != nil {
		// Only a malformed config fails, and the one above is not.
		panic("cache: " + err.Error())
	}
	c.rc = rc
	return c
}

// numCounters sizes ristretto's admission counters: about ten per item the
// budget can hold, assuming items of 64 KiB on average, within sane bounds.
func numCounters(maxBytes int64) int64 {
	n := maxBytes / (64 << 10) * 10
	return min(max(n, 10_000), 10_000_000)
}

// Get returns the cached value for key, if present.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.rcMu.RLock()
	var (
		v  V
		ok bool
	)
	if c.rc != nil {
		v, ok = c.rc.Get(key)
	}
	c.rcMu.RUnlock()
	if ok {
		c.hits.Add(1)
		return v, true
	}
	c.misses.Add(1)
	var zero V
	return zero, false
}

// Set stores a value, subject to the cache's admission policy; it reports
// whether the value was accepted for storage. A value is visible to Get once
// Set returns true.
func (c *Cache[K, V]) Set(key K, v V) bool {
	cost := max(c.cost(v), 1)
	c.rcMu.RLock()
	defer c.rcMu.RUnlock()
	if c.rc == nil {
		return false
	}
	ok := c.rc.Set(key, v, cost)
	if ok {
		c.rc.Wait() // ristretto applies sets asynchronously; make this one visible
	}
	return ok
}

// Del removes a key from the cache.
func (c *Cache[K, V]) Del(key K) {
	c.rcMu.RLock()
	defer c.rcMu.RUnlock()
	if c.rc != nil {
		c.rc.Del(key)
	}
}

// Bytes is the cost of the values the cache holds now.
func (c *Cache[K, V]) Bytes() int64 {
	c.rcMu.RLock()
	defer c.rcMu.RUnlock()
	if c.rc == nil {
		return 0
	}
	m := c.rc.Metrics
	return int64(m.CostAdded() - m.CostEvicted())
}

// Stats returns the cache's counters.
func (c *Cache[K, V]) Stats() Stats {
	return Stats{
		Hits: c.hits.Load(), Misses: c.misses.Load(), Loads: c.loads.Load(),
		Shared: c.shared.Load(), Errors: c.errs.Load(),
	}
}

// Close releases the cache's storage and background goroutines. Later Gets
// miss and later GetOrLoads load every time (still de-duplicated).
func (c *Cache[K, V]) Close() {
	c.rcMu.Lock()
	rc := c.rc
	c.rc = nil
	c.rcMu.Unlock()
	if rc != nil {
		rc.Close()
	}
}
