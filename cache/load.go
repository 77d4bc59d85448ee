package cache

import (
	"context"
	"fmt"
)

// flight is one load in progress. Its result fields are written once, before
// done is closed, and only read after.
type flight[V any] struct {
	done    chan struct{}
	waiters int                // GUARDED_BY(Cache.mu): callers still waiting
	cancel  context.CancelFunc // cancels the load when no caller waits any more
	val     V
	err     error
}

// GetOrLoad returns the cached value for key or, on a miss, calls load and
// caches its result. Concurrent calls for the same key share one call of load
// (the first caller's); each caller gets its result. An error is returned to
// the callers that shared the load and is not cached.
//
// The load runs with a context that keeps the first caller's values but not
// its cancellation: it is cancelled only when every caller waiting for it has
// given up, so one impatient caller does not fail the others. A caller whose
// ctx ends returns ctx.Err() at once. A panic in load is returned as an error.
//
// A load started by another load (ctx is a load's context: a view's build
// reading a block) runs in the caller's goroutine, which would only wait
// for it: a goroutine hand-off each way was a third of the first read of a
// small file's view. That caller still leaves the load when its ctx ends.
func (c *Cache[K, V]) GetOrLoad(ctx context.Context, key K, load func(ctx context.Context) (V, error)) (V, error) {
	if v, ok := c.Get(key); ok {
		return v, nil
	}
	c.mu.Lock()
	f, joined := c.flights[key]
	if joined {
		f.waiters++
		c.shared.Add(1)
	} else {
		// Check again under the lock: a flight may have finished and stored
		// its value between the Get above and here.
		if v, ok := c.peek(key); ok {
			c.mu.Unlock()
			return v, nil
		}
		lctx, cancel := context.WithCancel(context.WithValue(context.WithoutCancel(ctx), inLoad{}, true))
		f = &flight[V]{done: make(chan struct{}), waiters: 1, cancel: cancel}
		c.flights[key] = f
		c.loads.Add(1)
		if ctx.Value(inLoad{}) != nil {
			c.mu.Unlock()
			stop := context.AfterFunc(ctx, func() { c.leave(key, f) })
			c.run(lctx, key, f, load)
			stop()
			return f.val, f.err
		}
		go c.run(lctx, key, f, load)
	}
	c.mu.Unlock()

	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		c.leave(key, f)
		var zero V
		return zero, ctx.Err()
	}
}

// leave is a caller of flight f giving up on it.
func (c *Cache[K, V]) leave(key K, f *flight[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f.waiters--
	if f.waiters == 0 {
		// Nobody wants this load any more: stop it, and let the next
		// caller start afresh rather than join a cancelled load.
		f.cancel()
		if c.flights[key] == f {
			delete(c.flights, key)
		}
	}
}

// inLoad marks the context of a load (GetOrLoad).
type inLoad struct{}

// peek is Get without touching the hit and miss counters.
func (c *Cache[K, V]) peek(key K) (V, bool) {
	c.rcMu.RLock()
	defer c.rcMu.RUnlock()
	if c.rc == nil {
		var zero V
		return zero, false
	}
	return c.rc.Get(key)
}

// run performs one flight's load, stores a successful result, and then
// releases the waiters. The flight leaves the map only after the value is
// stored, so a caller arriving in between either joins the flight or finds
// the value.
func (c *Cache[K, V]) run(ctx context.Context, key K, f *flight[V], load func(context.Context) (V, error)) {
	defer f.cancel()
	f.val, f.err = safeLoad(ctx, load)
	if f.err == nil {
		c.Set(key, f.val)
	} else {
		c.errs.Add(1)
	}
	c.mu.Lock()
	if c.flights[key] == f {
		delete(c.flights, key)
	}
	c.mu.Unlock()
	close(f.done)
}

func safeLoad[V any](ctx context.Context, load func(context.Context) (V, error)) (v V, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cache: load panicked: %v", r)
		}
	}()
	return load(ctx)
}
