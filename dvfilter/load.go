package dvfilter

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/deltafs/deltafs/replay/action"
)

// Storage is the narrow read access Load needs. ReadRange returns length
// bytes of the object key starting at offset; fewer bytes (or an error) when
// the object is shorter.
type Storage interface {
	ReadRange(ctx context.Context, key string, offset, length int64) ([]byte, error)
}

// fileFormatVersion is the first byte of every DV file.
const fileFormatVersion = 1

// Load decodes the deletion vector a descriptor points at.
//
// Inline vectors ('i') are decoded from the descriptor without I/O. For
// vectors in files, Load does exactly one ranged read of the framed vector:
// the 4-byte big-endian size at the descriptor's offset (1 when absent),
// sizeInBytes bytes of data, and the 4-byte big-endian CRC-32 (IEEE) of the
// data. When the offset is 1 the read starts at 0 so the file's version byte
// is checked too.
//
// Keys passed to st: for 'u' vectors, the path relative to the table root
// ("<prefix>/deletion_vector_<uuid>.bin"); for 'p' vectors, pathOrInlineDv
// exactly as written in the log (an absolute path or URI). Storage must map
// such a URI to an object it is willing to read, or refuse it; Load does not
// interpret it.
//
// Load checks the size field against sizeInBytes, the CRC, the format, and
// that the vector's cardinality equals the descriptor's (and that no row
// exceeds maxRowIndex when set). Any failure is an error naming the object
// and wrapping one of the package's sentinel errors (or the storage error);
// no partial vector is ever returned.
func Load(ctx context.Context, st Storage, dv *action.DeletionVector) (*Vector, error) {
	loc, err := Locate(dv)
	if err != nil {
		return nil, err
	}
	data := loc.Inline
	where := "inline deletion vector"
	if loc.Type != StorageInline {
		where = fmt.Sprintf("deletion vector file %q at offset %d", loc.Path, loc.Offset)
		if data, err = readFramed(ctx, st, loc); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	v, err := parseBitmap(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if v.Cardinality() != uint64(dv.Cardinality) {
		return nil, fmt.Errorf("%s: vector holds %d rows, descriptor says %d: %w",
			where, v.Cardinality(), dv.Cardinality, ErrCardinalityMismatch)
	}
	if dv.MaxRowIndex != nil {
		if maxRow, ok := v.Max(); ok && maxRow > uint64(*dv.MaxRowIndex) {
			return nil, fmt.Errorf("%s: deleted row %d exceeds maxRowIndex %d: %w",
				where, maxRow, *dv.MaxRowIndex, ErrCardinalityMismatch)
		}
	}
	return v, nil
}

// readFramed reads size field, data and CRC in one ranged read, checks them
// and returns the data.
func readFramed(ctx context.Context, st Storage, loc Location) ([]byte, error) {
	frame := 4 + loc.Size + 4
	start, skip := loc.Offset, int64(0)
	if loc.Offset == defaultOffset {
		start, skip = 0, defaultOffset // include the version byte
	}
	length := skip + frame
	b, err := st.ReadRange(ctx, loc.Path, start, length)
	if err != nil {
		return nil, fmt.Errorf("read %d bytes at %d: %w", length, start, err)
	}
	if int64(len(b)) < length {
		return nil, fmt.Errorf("file ends after %d of the %d bytes at offset %d (offset or size past end of file): %w",
			len(b), length, start, ErrTruncated)
	}
	b = b[:length]
	if skip > 0 && b[0] != fileFormatVersion {
		return nil, fmt.Errorf("file format version %d, want %d: %w", b[0], fileFormatVersion, ErrCorrupt)
	}
	b = b[skip:]
	if size := binary.BigEndian.Uint32(b); int64(size) != loc.Size {
		return nil, fmt.Errorf("size field says %d bytes, descriptor sizeInBytes %d: %w", size, loc.Size, ErrSizeMismatch)
	}
	data := b[4 : 4+loc.Size]
	stored := binary.BigEndian.Uint32(b[4+loc.Size:])
	if sum := crc32.ChecksumIEEE(data); sum != stored {
		return nil, fmt.Errorf("bad CRC-32: stored %#08x, data has %#08x: %w", stored, sum, ErrChecksum)
	}
	return data, nil
}

// Check verifies a decoded vector against the promises of a descriptor
// (its cardinality and maxRowIndex). A cached vector is found by the
// descriptor's unique id, which names the bytes, not the other fields: it
// is checked against each descriptor that asks for it.
func Check(v *Vector, dv *action.DeletionVector) error {
	if v.Cardinality() != uint64(max(dv.Cardinality, 0)) {
		return fmt.Errorf("deletion vector %s holds %d rows, descriptor says %d: %w",
			Describe(dv), v.Cardinality(), dv.Cardinality, ErrCardinalityMismatch)
	}
	if m, ok := v.Max(); ok && dv.MaxRowIndex != nil && m > uint64(max(*dv.MaxRowIndex, 0)) {
		return fmt.Errorf("deletion vector %s deletes row %d past maxRowIndex %d: %w",
			Describe(dv), m, *dv.MaxRowIndex, ErrCardinalityMismatch)
	}
	return nil
}

// Describe names a vector in error messages without dumping inline data.
func Describe(dv *action.DeletionVector) string {
	if dv.StorageType == string(StorageInline) {
		return fmt.Sprintf("inline, %d rows", dv.Cardinality)
	}
	return fmt.Sprintf("%q, %d rows", dv.UniqueID(), dv.Cardinality)
}
