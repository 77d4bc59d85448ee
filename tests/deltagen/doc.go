// Package deltagen writes real Delta tables into a local directory, for tests
// and benchmarks of deltafs.
//
// A Table remembers every action it commits, so it can write checkpoints of
// the reconciled state at any committed version: classic, multi-part and v2
// (UUID-named, JSON or Parquet, with or without sidecars), plus
// _last_checkpoint files, good or corrupt. It also writes real Parquet data
// files and deletion-vector files in the protocol's binary format.
//
// BenchTable and LongLog write large logs fast (no data files) for
// benchmarks of log replay and listing.
//
// Nothing here is safe for concurrent use, and nothing here is used by deltafs
// itself: the package exists to produce inputs for tests. The reference for
// every format is PROTOCOL.md in the delta-io/delta repository.
package deltagen
