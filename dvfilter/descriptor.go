package dvfilter

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/deltafs/deltafs/replay/action"
)

// StorageType says where a deletion vector is stored.
type StorageType byte

// The storage types of PROTOCOL.md, "Deletion Vector Descriptor Schema".
const (
	// StorageRelative ('u'): a file under the table root whose name is derived
	// from a UUID, optionally inside a random-prefix directory.
	StorageRelative StorageType = 'u'
	// StorageInline ('i'): the serialized vector itself, Z85-encoded in the log.
	StorageInline StorageType = 'i'
	// StorageAbsolute ('p'): a file at an absolute path or URI.
	StorageAbsolute StorageType = 'p'
)

// uuidZ85Len is the length of the Z85 text of a 16-byte UUID.
const uuidZ85Len = 20

// defaultOffset is where the first vector of a file starts when the
// descriptor has no offset: right after the 1-byte format version.
const defaultOffset = 1

// Location is where a deletion vector lives, as decoded from its descriptor.
type Location struct {
	Type StorageType
	// Path is, for StorageRelative, the slash-separated path of the DV file
	// relative to the table root: "<prefix>/deletion_vector_<uuid>.bin", or
	// "deletion_vector_<uuid>.bin" without a prefix. For StorageAbsolute it
	// is pathOrInlineDv exactly as written in the log (an absolute path or
	// URI, possibly URI-encoded like add paths): mapping it to a storage key
	// is the caller's job. Empty for StorageInline.
	Path string
	// Absolute is true for StorageAbsolute.
	Absolute bool
	// Offset is the byte offset in the file of the vector's 4-byte size
	// field: the descriptor's offset, or 1 when absent. Zero for inline.
	Offset int64
	// Size is sizeInBytes: the length of the serialized vector (magic
	// included), without the size field and CRC that frame it in a file.
	Size int64
	// Inline is, for StorageInline, the serialized vector (Z85-decoded and
	// cut to Size).
	Inline []byte
}

// Locate validates a descriptor and says where its vector lives. It does no
// I/O. Errors wrap ErrInvalidDescriptor (or ErrSizeMismatch when inline data
// does not match sizeInBytes).
func Locate(dv *action.DeletionVector) (Location, error) {
	loc, err := locate(dv)
	if err != nil {
		return Location{}, fmt.Errorf("deletion vector: %w", err)
	}
	return loc, nil
}

func locate(dv *action.DeletionVector) (Location, error) {
	if dv == nil {
		return Location{}, fmt.Errorf("nil descriptor: %w", ErrInvalidDescriptor)
	}
	if dv.SizeInBytes < 0 {
		return Location{}, fmt.Errorf("negative sizeInBytes %d: %w", dv.SizeInBytes, ErrInvalidDescriptor)
	}
	if dv.Cardinality < 0 {
		return Location{}, fmt.Errorf("negative cardinality %d: %w", dv.Cardinality, ErrInvalidDescriptor)
	}
	if dv.MaxRowIndex != nil && *dv.MaxRowIndex < 0 {
		return Location{}, fmt.Errorf("negative maxRowIndex %d: %w", *dv.MaxRowIndex, ErrInvalidDescriptor)
	}
	loc := Location{Size: int64(dv.SizeInBytes)}
	if len(dv.StorageType) != 1 {
		return Location{}, fmt.Errorf("unknown storage type %q: %w", dv.StorageType, ErrInvalidDescriptor)
	}
	loc.Type = StorageType(dv.StorageType[0])
	switch loc.Type {
	case StorageInline:
		data, err := DecodeZ85(dv.PathOrInlineDv)
		if err != nil {
			return Location{}, fmt.Errorf("inline vector: %v: %w", err, ErrInvalidDescriptor)
		}
		// Exact (Rust tail form) or zero-padded to a multiple of 4 (Java).
		if n := int64(len(data)); n != loc.Size && n != (loc.Size+3)/4*4 {
			return Location{}, fmt.Errorf("inline vector decodes to %d bytes, sizeInBytes is %d: %w",
				n, loc.Size, ErrSizeMismatch)
		}
		loc.Inline = data[:loc.Size]
		return loc, nil
	case StorageRelative, StorageAbsolute:
		off := int64(defaultOffset)
		if dv.Offset != nil {
			off = int64(*dv.Offset)
		}
		if off < 0 {
			return Location{}, fmt.Errorf("negative offset %d: %w", off, ErrInvalidDescriptor)
		}
		loc.Offset = off
		if loc.Type == StorageAbsolute {
			if dv.PathOrInlineDv == "" {
				return Location{}, fmt.Errorf("empty absolute path: %w", ErrInvalidDescriptor)
			}
			loc.Path, loc.Absolute = dv.PathOrInlineDv, true
			return loc, nil
		}
		p, err := relativePath(dv.PathOrInlineDv)
		if err != nil {
			return Location{}, err
		}
		loc.Path = p
		return loc, nil
	default:
		return Location{}, fmt.Errorf("unknown storage type %q: %w", dv.StorageType, ErrInvalidDescriptor)
	}
}

// relativePath turns "<random prefix><20-char Z85 UUID>" into the DV file
// path relative to the table root.
func relativePath(s string) (string, error) {
	if len(s) < uuidZ85Len {
		return "", fmt.Errorf("relative path %q is shorter than a %d-character UUID: %w", s, uuidZ85Len, ErrInvalidDescriptor)
	}
	prefix, enc := s[:len(s)-uuidZ85Len], s[len(s)-uuidZ85Len:]
	raw, err := DecodeZ85(enc)
	if err != nil {
		return "", fmt.Errorf("UUID %q: %v: %w", enc, err, ErrInvalidDescriptor)
	}
	if len(raw) != 16 {
		// The '#' tail form of Z85 can shorten 20 characters.
		return "", fmt.Errorf("UUID %q decodes to %d bytes, not 16: %w", enc, len(raw), ErrInvalidDescriptor)
	}
	if err := checkPrefix(prefix); err != nil {
		return "", err
	}
	name := "deletion_vector_" + formatUUID(raw) + ".bin"
	if prefix == "" {
		return name, nil
	}
	return prefix + "/" + name, nil
}

// checkPrefix refuses random prefixes that could name something outside the
// table root: absolute paths, empty, "." or ".." segments, backslashes, NUL.
func checkPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if strings.ContainsAny(prefix, "\\\x00") {
		return fmt.Errorf("random prefix %q has a forbidden character: %w", prefix, ErrInvalidDescriptor)
	}
	for _, seg := range strings.Split(prefix, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("random prefix %q is not a safe relative path: %w", prefix, ErrInvalidDescriptor)
		}
	}
	return nil
}

// formatUUID renders 16 bytes in the canonical 8-4-4-4-12 lowercase form.
func formatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
