// Package cache owns deltafs's in-memory caches: a typed, byte-costed cache
// on top of ristretto with load de-duplication.
//
// A Cache maps keys to values whose cost (normally their size in bytes) a
// caller-supplied function reports; ristretto's admission and eviction keep
// the sum of costs under the configured budget. GetOrLoad runs one load per
// key at a time: concurrent callers for the same key wait for the same load
// and share its result. Errors are returned to every waiter of that load but
// are never cached, so the next call loads again.
//
// The caches are not persistent and hold nothing that cannot be rebuilt from
// storage; callers must treat a miss as normal.
package cache
