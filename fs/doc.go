// Package fs is the FUSE face of deltafs: the go-fuse nodes that show a
// Delta table as a read-only tree, and the one place that maps errors to
// errno values. It is the only package that imports go-fuse.
//
// The tree it serves:
//
//	latest         symlink to v/<N>, N the newest known version; a background
//	               refresher moves it when new commits land
//	v/             one directory per version the table can rebuild
//	v/<N>/...      the live data files of version N, as a Delta reader sees
//	               the table (versions/layout): <column>=<value>/ folders
//	               from the log, logical column names; or as stored
//	               (Options.PhysicalLayout)
//	at/<instant>   symlink to ../v/<N>, the version Delta resolves for that
//	               instant; at/ lists one canonical instant per version
//	changes/<N>/   what commit N did: added/ (as in v/<N>), removed/ (as in
//	               v/<N-1>), cdc/ (its change-data files)
//	history.jsonl  one JSON line per version: version, instant, timestamp,
//	               operation, files, added, removed
//
// The package knows nothing of logs or storage: it asks a Table (the
// versions layer, adapted) for versions, snapshots, history and byte ranges.
// A version directory is immutable, so its entries and attributes carry long
// kernel cache timeouts and its files are opened with FOPEN_KEEP_CACHE;
// latest, v/ and history.jsonl change and carry short ones. stat, ls and
// find are answered without a storage request: v/<N> and changes/<N> from
// the listing of the log (their snapshots are built at the first look
// inside), what is inside them from the snapshot.
//
// File bytes come from versions/serve (blocks through a cache, read-ahead
// per open file, views of files with deletion vectors or renamed columns):
// fs opens a serve.Reader per open file (per node, for reads without an
// open) and maps its errors to errno. A
// plain data file of a local table, 1 MiB or more, is handed to the kernel
// instead (FUSE passthrough), opened under the store's rules.
//
// One node kind per file: root.go, latest.go, versions.go (v/),
// versiondir.go (v/<N>, timed from the listing, built at the first look
// inside), dir.go (the inside of a version, and any tree served as one),
// file.go (data files), at.go, changes.go, history.go. Round trips are
// what a mount costs: links are cached by the kernel (refresh invalidates
// latest), directories are opened by the kernel, which keeps their
// listings (no_opendir; noopendir.go lists a directory without a handle),
// FLUSH is refused once, and extended attributes can be turned off
// (Options.NoXAttrs, noxattr.go). File opens are left to the kernel too
// (no_open) with Options.NoOpen, or where an open would hand it nothing
// (opens.go), and a mount's read-ahead is raised to 1 MiB READs
// (readahead.go). Shared state hangs off the root node; there are no
// package globals. Everything is read-only: operations that would change
// the tree return EROFS (readonly.go), and the mount itself is read-only.
package fs
