package deltagen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/deltafs/deltafs/replay/action"
)

// DVMagic is the magic number that starts a serialized RoaringBitmapArray in
// the portable 64-bit format (little-endian on disk).
const DVMagic = 1681511377

// SerializeDV renders the deleted row indexes as a Delta RoaringBitmapArray:
// the 4-byte little-endian magic, then the 64-bit portable roaring layout
// (int64 count of 32-bit buckets; per bucket a uint32 key and a 32-bit
// portable roaring bitmap). It also returns the cardinality and the largest
// row index (-1 when empty).
func SerializeDV(deleted []uint64) (data []byte, cardinality, maxRow int64, err error) {
	bm := roaring64.New()
	for _, r := range deleted {
		if r >= 1<<63 {
			return nil, 0, 0, fmt.Errorf("deltagen: row index %d out of range", r)
		}
		bm.Add(r)
	}
	return serializeBitmap(bm)
}

// InlineDVRuns is InlineDV of the rows of runs [lo, hi), kept as runs:
// 10 bytes for each 65,536 rows.
func InlineDVRuns(runs ...[2]uint64) (action.DeletionVector, error) {
	bm := roaring64.New()
	for _, r := range runs {
		bm.AddRange(r[0], r[1])
	}
	data, card, maxRow, err := serializeBitmap(bm)
	return inline(data, card, maxRow), err
}

// serializeBitmap is SerializeDV of the rows of bm.
func serializeBitmap(bm *roaring64.Bitmap) (data []byte, cardinality, maxRow int64, err error) {
	bm.RunOptimize()
	var buf bytes.Buffer
	buf.Write(binary.LittleEndian.AppendUint32(nil, DVMagic))
	if _, err := bm.WriteTo(&buf); err != nil {
		return nil, 0, 0, err
	}
	maxRow = -1
	if !bm.IsEmpty() {
		maxRow = int64(bm.Maximum())
	}
	return buf.Bytes(), int64(bm.GetCardinality()), maxRow, nil
}

// InlineDV returns an inline (storageType "i") descriptor: the Z85 of the
// serialized bitmap, sizeInBytes its unpadded length, no offset.
func InlineDV(deleted []uint64) (action.DeletionVector, error) {
	data, card, maxRow, err := SerializeDV(deleted)
	return inline(data, card, maxRow), err
}

// inline is the inline descriptor of a serialized bitmap.
func inline(data []byte, card, maxRow int64) action.DeletionVector {
	return action.DeletionVector{
		StorageType:    "i",
		PathOrInlineDv: Z85Encode(data),
		SizeInBytes:    int32(len(data)),
		Cardinality:    card,
		MaxRowIndex:    &maxRow,
	}
}

// DVFileName is the file name of the DV file of a UUID (canonical text).
func DVFileName(uuid string) string { return "deletion_vector_" + uuid + ".bin" }

// EncodeDVFile renders a DV file holding one vector per element of deleted:
// version byte 1, then per vector a 4-byte big-endian size, the serialized
// bitmap and the big-endian CRC-32 (IEEE) of the bitmap. It returns the file
// bytes and, per vector, its offset (of the size field), size and
// cardinality and largest row index.
func EncodeDVFile(deleted ...[]uint64) ([]byte, []action.DeletionVector, error) {
	file := []byte{1}
	var dvs []action.DeletionVector
	for _, rows := range deleted {
		data, card, maxRow, err := SerializeDV(rows)
		if err != nil {
			return nil, nil, err
		}
		off := int32(len(file))
		file = binary.BigEndian.AppendUint32(file, uint32(len(data)))
		file = append(file, data...)
		file = binary.BigEndian.AppendUint32(file, crc32.ChecksumIEEE(data))
		dvs = append(dvs, action.DeletionVector{
			Offset: &off, SizeInBytes: int32(len(data)), Cardinality: card, MaxRowIndex: &maxRow,
		})
	}
	return file, dvs, nil
}

// WriteDVFile writes one DV file holding a vector per element of deleted at
// <prefix>/deletion_vector_<uuid>.bin under the table root (prefix may be
// empty; it must be made of Z85-safe characters, e.g. letters and digits)
// and returns storageType "u" descriptors: pathOrInlineDv is prefix + the
// 20-character Z85 of the UUID's 16 bytes.
func (t *Table) WriteDVFile(prefix string, deleted ...[]uint64) ([]action.DeletionVector, error) {
	id := newUUIDBytes()
	file, dvs, err := EncodeDVFile(deleted...)
	if err != nil {
		return nil, err
	}
	name := filepath.Join(t.Dir, prefix, DVFileName(formatUUID(id)))
	if err := writeFileAtomic(name, file); err != nil {
		return nil, fmt.Errorf("deltagen: DV file: %w", err)
	}
	enc := prefix + Z85Encode(id[:])
	for i := range dvs {
		dvs[i].StorageType = "u"
		dvs[i].PathOrInlineDv = enc
	}
	return dvs, nil
}

// WriteDVFileAbsolute writes a DV file at relPath under the table root and
// returns storageType "p" descriptors whose pathOrInlineDv is the file's
// absolute file:// URI.
func (t *Table) WriteDVFileAbsolute(relPath string, deleted ...[]uint64) ([]action.DeletionVector, error) {
	file, dvs, err := EncodeDVFile(deleted...)
	if err != nil {
		return nil, err
	}
	name := filepath.Join(t.Dir, filepath.FromSlash(relPath))
	if err := writeFileAtomic(name, file); err != nil {
		return nil, fmt.Errorf("deltagen: DV file: %w", err)
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	uri := "file://" + EncodePath(filepath.ToSlash(abs))
	for i := range dvs {
		dvs[i].StorageType = "p"
		dvs[i].PathOrInlineDv = uri
	}
	return dvs, nil
}

// DVPath returns the path under the table root of the file of a "u"
// descriptor: <prefix>/deletion_vector_<uuid>.bin.
func DVPath(dv action.DeletionVector) (string, error) {
	if dv.StorageType != "u" || len(dv.PathOrInlineDv) < 20 {
		return "", fmt.Errorf("deltagen: not a relative DV descriptor: %+v", dv)
	}
	n := len(dv.PathOrInlineDv)
	raw, err := Z85Decode(dv.PathOrInlineDv[n-20:])
	if err != nil {
		return "", err
	}
	var id [16]byte
	copy(id[:], raw)
	return filepath.Join(dv.PathOrInlineDv[:n-20], DVFileName(formatUUID(id))), nil
}

// DeletedRows decodes a serialized RoaringBitmapArray (as SerializeDV
// writes it) back into sorted row indexes.
func DeletedRows(data []byte) ([]uint64, error) {
	if len(data) < 4 || binary.LittleEndian.Uint32(data) != DVMagic {
		return nil, fmt.Errorf("deltagen: bad DV magic")
	}
	bm := roaring64.New()
	if _, err := bm.ReadFrom(bytes.NewReader(data[4:])); err != nil {
		return nil, err
	}
	rows := bm.ToArray()
	slices.Sort(rows)
	return rows, nil
}
