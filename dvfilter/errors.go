package dvfilter

import "errors"

// Sentinel errors wrapped by every error this package returns, so callers can
// classify failures with errors.Is.
var (
	// ErrInvalidDescriptor: the descriptor in the log is malformed (unknown
	// storage type, bad Z85, negative size or offset, unsafe path).
	ErrInvalidDescriptor = errors.New("invalid deletion vector descriptor")
	// ErrCorrupt: the serialized bitmap is malformed (bad magic, bad roaring
	// data, keys out of order, trailing bytes).
	ErrCorrupt = errors.New("corrupt deletion vector")
	// ErrChecksum: the CRC-32 stored after the vector does not match its data.
	ErrChecksum = errors.New("deletion vector checksum mismatch")
	// ErrSizeMismatch: the size stored in the file differs from sizeInBytes,
	// or inline data has the wrong length.
	ErrSizeMismatch = errors.New("deletion vector size mismatch")
	// ErrCardinalityMismatch: the decoded vector does not hold the number of
	// rows the descriptor promises (or exceeds maxRowIndex).
	ErrCardinalityMismatch = errors.New("deletion vector cardinality mismatch")
	// ErrTruncated: the file ends before the vector does (offset past end or
	// short read).
	ErrTruncated = errors.New("deletion vector truncated")
)
