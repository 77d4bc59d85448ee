// Package replay rebuilds the state of a Delta table at one version from its
// transaction log: it names the log's files (LogSegment), reads a checkpoint
// and the JSON commits after it, and reconciles their actions exactly as
// PROTOCOL.md states into an immutable Snapshot.
//
// Reconciliation keys a logical file by (path, deletion-vector unique id).
// Commits are applied newest first, so the first action seen for a logical
// file decides it; checkpoint rows are then kept only when no newer commit
// named their logical file. Only commit actions enter a hash set; the
// (possibly millions of) checkpoint rows never do.
package replay
