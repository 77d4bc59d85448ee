// Package dvfilter owns Delta Lake deletion vectors: where a vector lives
// (descriptor), how it is encoded (Z85 text, the RoaringBitmapArray binary
// format, the on-disk framing with size and CRC-32), and the decoded set of
// deleted row indexes (Vector) that a filtered Parquet view is built on. The
// view itself is dvfilter/parquetview, which takes a Vector as the rows to
// leave out; versions/serve caches vectors and views.
//
// The flow is:
//
//	action.DeletionVector --Locate------> Location (relative key, absolute URI, or inline bytes)
//	Location + Storage    --Load--------> framed bytes, size and CRC checked, one ranged read
//	bytes                 --ParseBitmap-> *Vector (immutable, safe for concurrent use)
//
// The package never talks to storage itself: Load reads through the narrow
// Storage interface. Relative ('u') vectors are read by their path relative
// to the table root; absolute ('p') vectors by their URI as written in the
// log, which the Storage implementation must map (or refuse).
//
// Decoding follows PROTOCOL.md of delta-io/delta ("Deletion Vectors",
// "Deletion Vector Format") and accepts what real writers produce beyond
// it: Z85 tails in the Rust z85 crate's '#' form (delta-rs, delta-kernel-rs)
// and the "native" RoaringBitmapArray layout of PROTOCOL.md's own inline
// example.
//
// Every malformed input, from the log or from a file, yields an error that
// names what is wrong and wraps one of the sentinel errors (ErrInvalidDescriptor,
// ErrCorrupt, ErrChecksum, ErrSizeMismatch, ErrCardinalityMismatch,
// ErrTruncated). Decoding never panics and never returns a partial vector:
// the 32-bit roaring data is validated in linear time before the roaring
// library sees it, and every count is checked against the bytes present
// before anything is allocated.
package dvfilter
