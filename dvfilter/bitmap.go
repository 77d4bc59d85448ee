package dvfilter

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
)

// Magic is the little-endian number that starts a serialized vector in the
// RoaringBitmapArray "portable" format, the one PROTOCOL.md specifies
// ("Deletion Vector Format").
const Magic uint32 = 1681511377

// nativeMagic starts the older "native" RoaringBitmapArray format, stored
// big-endian. PROTOCOL.md's own inline example uses it, so it is read too.
const nativeMagic uint32 = 1681511376

// minBucketBytes is the smallest encoding of one bucket: a 4-byte key (or
// length) and an empty 32-bit bitmap (cookie and container count). It bounds
// the number of buckets a buffer can hold before anything is allocated.
const minBucketBytes = 4 + 8

// ParseBitmap decodes a serialized deletion vector. The format PROTOCOL.md
// specifies is the 4-byte little-endian Magic, then a 64-bit roaring bitmap
// in the "portable" layout: an int64 LE bucket count, then per bucket a
// uint32 LE high key and a 32-bit roaring bitmap of the low 32 bits. Keys
// must be strictly ascending and, as Delta requires, below 2^31.
//
// The older "native" layout (big-endian magic 1681511376, int32 BE bitmap
// count, then per bitmap an int32 BE length and a 32-bit roaring bitmap whose
// high key is its index) is accepted as well.
//
// All of data must be consumed. Errors wrap ErrCorrupt.
func ParseBitmap(data []byte) (*Vector, error) {
	v, err := parseBitmap(data)
	if err != nil {
		return nil, fmt.Errorf("deletion vector: %w", err)
	}
	return v, nil
}

func parseBitmap(data []byte) (*Vector, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("%d bytes, too short for a magic number: %w", len(data), ErrCorrupt)
	}
	switch {
	case binary.LittleEndian.Uint32(data) == Magic:
		return parsePortable(data)
	case binary.BigEndian.Uint32(data) == nativeMagic:
		return parseNative(data)
	default:
		return nil, fmt.Errorf("bad magic %d, want %d: %w", binary.LittleEndian.Uint32(data), Magic, ErrCorrupt)
	}
}

func parsePortable(data []byte) (*Vector, error) {
	r := &byteReader{buf: data, pos: 4}
	nb, err := r.next(8, "bucket count")
	if err != nil {
		return nil, corrupt(err)
	}
	numBuckets := int64(binary.LittleEndian.Uint64(nb))
	if numBuckets < 0 || numBuckets > int64(r.remaining()/minBucketBytes) {
		return nil, fmt.Errorf("bucket count %d impossible in %d remaining bytes: %w",
			numBuckets, r.remaining(), ErrCorrupt)
	}
	v := &Vector{buckets: make([]bucket, 0, numBuckets)}
	var prev uint32
	for i := int64(0); i < numBuckets; i++ {
		key, err := r.u32("bucket key")
		if err != nil {
			return nil, corrupt(err)
		}
		if key >= 1<<31 {
			return nil, fmt.Errorf("bucket %d key %#x has its most significant bit set: %w", i, key, ErrCorrupt)
		}
		if i > 0 && key <= prev {
			return nil, fmt.Errorf("bucket %d key %d is not above previous key %d: %w", i, key, prev, ErrCorrupt)
		}
		prev = key
		bm, n, err := readRoaring32(r.buf[r.pos:])
		if err != nil {
			return nil, fmt.Errorf("bucket %d (key %d): %v: %w", i, key, err, ErrCorrupt)
		}
		r.pos += n
		v.add(key, bm)
	}
	if r.remaining() != 0 {
		return nil, fmt.Errorf("%d trailing bytes after %d buckets: %w", r.remaining(), numBuckets, ErrCorrupt)
	}
	return v, nil
}

func parseNative(data []byte) (*Vector, error) {
	r := &byteReader{buf: data, pos: 4}
	b, err := r.next(4, "bitmap count")
	if err != nil {
		return nil, corrupt(err)
	}
	count := int64(int32(binary.BigEndian.Uint32(b)))
	if count < 0 || count > int64(r.remaining()/minBucketBytes) {
		return nil, fmt.Errorf("bitmap count %d impossible in %d remaining bytes: %w",
			count, r.remaining(), ErrCorrupt)
	}
	v := &Vector{}
	for i := int64(0); i < count; i++ {
		b, err := r.next(4, "bitmap length")
		if err != nil {
			return nil, corrupt(err)
		}
		length := int64(int32(binary.BigEndian.Uint32(b)))
		if length < 0 || length > int64(r.remaining()) {
			return nil, fmt.Errorf("bitmap %d length %d impossible in %d remaining bytes: %w",
				i, length, r.remaining(), ErrCorrupt)
		}
		bm, n, err := readRoaring32(r.buf[r.pos : r.pos+int(length)])
		if err != nil {
			return nil, fmt.Errorf("bitmap %d: %v: %w", i, err, ErrCorrupt)
		}
		if int64(n) != length {
			return nil, fmt.Errorf("bitmap %d is %d bytes, its length field says %d: %w", i, n, length, ErrCorrupt)
		}
		r.pos += n
		v.add(uint32(i), bm)
	}
	if r.remaining() != 0 {
		return nil, fmt.Errorf("%d trailing bytes after %d bitmaps: %w", r.remaining(), count, ErrCorrupt)
	}
	return v, nil
}

// add appends a bucket above all existing ones; empty bitmaps are dropped.
func (v *Vector) add(high uint32, bm *roaring.Bitmap) {
	if c := bm.GetCardinality(); c > 0 {
		v.buckets = append(v.buckets, bucket{high: high, bm: bm})
		v.card += c
	}
}

// readRoaring32 validates and decodes the 32-bit bitmap at the start of buf
// and returns it with its encoded length.
func readRoaring32(buf []byte) (bm *roaring.Bitmap, n int, err error) {
	n, card, err := scanRoaring32(buf)
	if err != nil {
		return nil, 0, err
	}
	// The input has been validated; recovering is only a last resort
	// against a library panic on input the scan did not foresee.
	defer func() {
		if p := recover(); p != nil {
			bm, n, err = nil, 0, fmt.Errorf("roaring decoder panicked: %v", p)
		}
	}()
	bm = roaring.New()
	read, err := bm.ReadFrom(bytes.NewReader(buf[:n]))
	if err != nil {
		return nil, 0, err
	}
	if read != int64(n) {
		return nil, 0, fmt.Errorf("roaring decoder read %d bytes, scan measured %d", read, n)
	}
	if got := bm.GetCardinality(); got != card {
		return nil, 0, fmt.Errorf("roaring decoder found %d values, scan counted %d", got, card)
	}
	return bm, n, nil
}

func corrupt(err error) error {
	return fmt.Errorf("%v: %w", err, ErrCorrupt)
}
