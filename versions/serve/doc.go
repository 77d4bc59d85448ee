// Package serve gives the bytes of a table's data files as a mount serves
// them, without FUSE: stored files read in blocks through a cache, with
// read-ahead for a sequential reader, and files served as views (deleted
// rows removed, columns renamed; dvfilter) read through the same blocks.
// The mount (fs) asks it for readers; the CLI asks it for served sizes.
//
// The flow of a read:
//
//	Files.Open --> Reader.Read --> held block | cache (GetOrLoad) | one ranged read (Storage)
//	                          \--> view (parquetview.View): its own bytes, or source ranges read as above
//
// A sequential reader's read-ahead grows with its run, except where the
// run began in a column chunk of a Parquet file (chunks.go): then it ends
// with the chunk. Blocks read ahead of a copy go into reused buffers
// (Lease) rather than the cache.
//
// Storage is the one door to the table's objects (StoreStorage adapts a
// blobstore.Store); everything here is safe for concurrent use, and no
// lock is held across a storage request.
package serve
