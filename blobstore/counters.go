package blobstore

import (
	"sync"
	"sync/atomic"
	"time"
)

// Counts is a snapshot of the requests a Store has made.
type Counts struct {
	Gets    int64 // whole or ranged object reads
	Lists   int64 // listing pages
	Heads   int64 // attribute requests
	Bytes   int64 // bytes read by Gets
	Rounds  int64 // sequential round trips: requests that overlap count once
	Retries int64 // requests made again after a failure that may pass (counted in Gets, Lists, Heads too)
}

// Requests is the total number of requests.
func (c Counts) Requests() int64 { return c.Gets + c.Lists + c.Heads }

// Sub returns the requests made between two snapshots.
func (c Counts) Sub(before Counts) Counts {
	return Counts{
		Gets: c.Gets - before.Gets, Lists: c.Lists - before.Lists, Heads: c.Heads - before.Heads,
		Bytes: c.Bytes - before.Bytes, Rounds: c.Rounds - before.Rounds, Retries: c.Retries - before.Retries,
	}
}

type counters struct {
	gets, lists, heads, bytes, retries atomic.Int64

	mu       sync.Mutex
	inFlight int   // GUARDED_BY(mu)
	rounds   int64 // GUARDED_BY(mu)
}

// Counts returns the requests made so far.
func (s *Store) Counts() Counts {
	s.counts.mu.Lock()
	rounds := s.counts.rounds
	s.counts.mu.Unlock()
	return Counts{
		Gets: s.counts.gets.Load(), Lists: s.counts.lists.Load(), Heads: s.counts.heads.Load(),
		Bytes: s.counts.bytes.Load(), Rounds: rounds, Retries: s.counts.retries.Load(),
	}
}

// begin counts one request of a kind and its round trip, applies the injected
// latency, and returns the function that ends the request. A request that
// starts while another is in flight shares its round trip.
func (s *Store) begin(kind *atomic.Int64) (end func()) {
	kind.Add(1)
	c := &s.counts
	c.mu.Lock()
	if c.inFlight == 0 {
		c.rounds++
	}
	c.inFlight++
	c.mu.Unlock()
	if s.latency > 0 {
		time.Sleep(s.latency)
	}
	return func() {
		c.mu.Lock()
		c.inFlight--
		c.mu.Unlock()
	}
}
