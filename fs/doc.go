// Package fs is the FUSE face of deltafs: the go-fuse nodes that show a
// Delta table as a read-only tree, and the one place that maps errors to
// errno values. It is the only package that imports go-fuse.
//
// The tree it serves:
//
//	latest         symlink to v/<N>, N the newest known version; a background
//	               refresher moves it when new commits land
//	v/             one directory per version the table can rebuild
//	v/<N>/...      the live data files of version N, in the directories their
//	               paths name (date=2024-01-01/part-0.parquet)
//	history.jsonl  one JSON line per version: version, timestamp, operation,
//	               files
//
// The package knows nothing of logs or storage: it asks a Table (the
// versions layer, adapted) for versions, snapshots, history and byte ranges.
// A version directory is immutable, so its entries and attributes carry long
// kernel cache timeouts and its files are opened with FOPEN_KEEP_CACHE;
// latest, v/ and history.jsonl change and carry short ones. stat, ls and
// find are answered from the snapshot alone, without a storage request.
//
// File bytes are read through a block cache (cache.Cache keyed by data file
// path and block index; the same path holds the same bytes in every
// version), with sequential read-ahead per open file.
//
// One node kind per file: root.go, latest.go, versions.go (v/), dir.go
// (version directories and their subdirectories), file.go (data files),
// history.go. Shared state hangs off the root node; there are no package
// globals. Everything is read-only: operations that would change the tree
// return EROFS (readonly.go), and the mount itself is read-only.
package fs
