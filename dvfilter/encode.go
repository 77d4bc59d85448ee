package dvfilter

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// NewVector builds a vector holding the given rows (in any order, duplicates
// allowed). It is meant for tests and for writing vectors, not for decoding.
func NewVector(rows ...uint64) *Vector {
	byHigh := map[uint32]*roaring.Bitmap{}
	for _, r := range rows {
		h := uint32(r >> 32)
		bm := byHigh[h]
		if bm == nil {
			bm = roaring.New()
			byHigh[h] = bm
		}
		bm.Add(uint32(r))
	}
	keys := make([]uint32, 0, len(byHigh))
	for h := range byHigh {
		keys = append(keys, h)
	}
	slices.Sort(keys)
	v := &Vector{buckets: make([]bucket, 0, len(keys))}
	for _, h := range keys {
		bm := byHigh[h]
		bm.RunOptimize()
		v.buckets = append(v.buckets, bucket{high: h, bm: bm})
		v.card += bm.GetCardinality()
	}
	return v
}

// MarshalBinary serializes the vector in the RoaringBitmapArray format that
// ParseBitmap reads (magic, then the portable 64-bit layout). Rows at or
// above 2^63 cannot be represented, as Delta requires keys below 2^31.
func (v *Vector) MarshalBinary() ([]byte, error) {
	var buf bytes.Buffer
	var scratch [8]byte
	binary.LittleEndian.PutUint32(scratch[:4], Magic)
	buf.Write(scratch[:4])
	binary.LittleEndian.PutUint64(scratch[:], uint64(len(v.buckets)))
	buf.Write(scratch[:])
	for _, b := range v.buckets {
		if b.high >= 1<<31 {
			return nil, fmt.Errorf("deletion vector: row index %d too large to serialize", uint64(b.high)<<32)
		}
		binary.LittleEndian.PutUint32(scratch[:4], b.high)
		buf.Write(scratch[:4])
		if _, err := b.bm.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("deletion vector: serialize bucket %d: %w", b.high, err)
		}
	}
	return buf.Bytes(), nil
}
