package parquetview

import (
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/format"
)

// Dropping deleted values from a page's encoded values, per encoding and
// physical type.

// filterValueRuns drops from encoded values, present of them, those at
// the positions gone. Dictionary indexes and RLE booleans are cut run by
// run and keep their encoding; others are cut value by value (filterValues),
// PLAIN ones only where their bytes hold as many (a bit each at least).
func filterValueRuns(enc format.Encoding, vals []byte, present int64, gone deletions, leaf leafInfo) ([]byte, format.Encoding, error) {
	switch {
	case dictionaryEncoding(enc):
		if present == gone.count() {
			return []byte{0}, enc, nil
		}
		if len(vals) == 0 {
			return nil, 0, fmt.Errorf("dictionary indexes missing: %w", errNoSplice)
		}
		width := int(vals[0])
		runs, err := decodeHybrid(vals[1:], width, present)
		if err != nil {
			return nil, 0, fmt.Errorf("dictionary indexes: %w", err)
		}
		return encodeHybrid([]byte{byte(width)}, dropRuns(runs, gone), width), enc, nil
	case enc == format.RLE && leaf.typ == format.Boolean:
		stored, err := booleanRuns(vals)
		if err != nil {
			return nil, 0, err
		}
		runs, err := decodeHybrid(stored, 1, present)
		if err != nil {
			return nil, 0, fmt.Errorf("RLE booleans: %w", err)
		}
		out := encodeHybrid(make([]byte, 4), dropRuns(runs, gone), 1)
		binary.LittleEndian.PutUint32(out, uint32(len(out)-4))
		return out, enc, nil
	case enc == format.Plain && present > 8*int64(len(vals)):
		return nil, 0, fmt.Errorf("%d PLAIN values in %d bytes: %w", present, len(vals), errNoSplice)
	}
	keep := make([]bool, present)
	cur := deletedCursor{gone}
	for i := range keep {
		keep[i] = !cur.deleted(int64(i))
	}
	return filterValues(enc, vals, keep, leaf)
}

// booleanRuns returns the hybrid-encoded runs (bit width 1) of RLE
// booleans, which a 4-byte length precedes.
func booleanRuns(vals []byte) ([]byte, error) {
	if len(vals) < 4 {
		return nil, fmt.Errorf("RLE booleans of %d bytes: %w", len(vals), errNoSplice)
	}
	m := int64(binary.LittleEndian.Uint32(vals))
	if m > int64(len(vals)-4) {
		return nil, fmt.Errorf("boolean runs of %d bytes: %w", m, errNoSplice)
	}
	return vals[4 : 4+m], nil
}

// filterValues drops the values keep marks false from encoded values and
// returns the rest with their encoding: dictionary indexes and PLAIN
// values keep theirs, others are decoded and become PLAIN.
func filterValues(enc format.Encoding, vals []byte, keep []bool, leaf leafInfo) ([]byte, format.Encoding, error) {
	switch enc {
	case format.PlainDictionary, format.RLEDictionary:
		if len(keep) == 0 {
			return []byte{0}, enc, nil
		}
		var de rle.DictionaryEncoding
		idx, err := de.DecodeInt32(nil, vals)
		if err != nil {
			return nil, 0, fmt.Errorf("dictionary indexes: %v: %w", err, errNoSplice)
		}
		if len(idx) < len(keep) {
			return nil, 0, fmt.Errorf("%d dictionary indexes, %d values: %w", len(idx), len(keep), errNoSplice)
		}
		out := idx[:0]
		for i, k := range keep {
			if k {
				out = append(out, idx[i])
			}
		}
		b, err := de.EncodeInt32(nil, out)
		if err != nil {
			return nil, 0, fmt.Errorf("dictionary indexes: %v: %w", err, errNoSplice)
		}
		return b, enc, nil
	case format.Plain:
		out, err := filterPlain(vals, keep, leaf)
		return out, enc, err
	}
	plain, err := toPlain(enc, vals, len(keep), leaf)
	if err != nil {
		return nil, 0, err
	}
	out, err := filterPlain(plain, keep, leaf)
	return out, format.Plain, err
}

// toPlain decodes n values of another encoding (DELTA_*, BYTE_STREAM_SPLIT)
// with parquet-go's decoders and returns them PLAIN-encoded.
func toPlain(enc format.Encoding, vals []byte, n int, leaf leafInfo) ([]byte, error) {
	e := parquet.LookupEncoding(enc)
	if e.Encoding() != enc {
		return nil, fmt.Errorf("values encoded %v: %w", enc, errNoSplice)
	}
	short := func(got int) error {
		return fmt.Errorf("%d values decoded, %d expected (%v): %w", got, n, enc, errNoSplice)
	}
	var (
		out []byte
		err error
	)
	p := &parquet.Plain
	switch leaf.typ {
	case format.Boolean:
		// RLE booleans: a 4-byte length, then the hybrid encoding with
		// bit width 1. Decoded as levels: one byte per value.
		if enc != format.RLE {
			return nil, fmt.Errorf("booleans encoded %v: %w", enc, errNoSplice)
		}
		runs, err := booleanRuns(vals)
		if err != nil {
			return nil, err
		}
		var v []byte
		if v, err = (&rle.Encoding{BitWidth: 1}).DecodeLevels(nil, runs); err == nil {
			if len(v) < n {
				return nil, short(len(v))
			}
			out = make([]byte, (n+7)/8)
			for i, b := range v[:n] {
				if b > 1 {
					return nil, fmt.Errorf("boolean value %d: %w", b, errNoSplice)
				}
				out[i/8] |= b << (i % 8)
			}
		}
	case format.Int32:
		var v []int32
		if v, err = e.DecodeInt32(nil, vals); err == nil {
			if len(v) < n {
				return nil, short(len(v))
			}
			out, err = p.EncodeInt32(nil, v[:n])
		}
	case format.Int64:
		var v []int64
		if v, err = e.DecodeInt64(nil, vals); err == nil {
			if len(v) < n {
				return nil, short(len(v))
			}
			out, err = p.EncodeInt64(nil, v[:n])
		}
	case format.Float:
		var v []float32
		if v, err = e.DecodeFloat(nil, vals); err == nil {
			if len(v) < n {
				return nil, short(len(v))
			}
			out, err = p.EncodeFloat(nil, v[:n])
		}
	case format.Double:
		var v []float64
		if v, err = e.DecodeDouble(nil, vals); err == nil {
			if len(v) < n {
				return nil, short(len(v))
			}
			out, err = p.EncodeDouble(nil, v[:n])
		}
	case format.FixedLenByteArray:
		if leaf.typeLength <= 0 {
			return nil, fmt.Errorf("fixed-length byte array of length %d: %w", leaf.typeLength, errNoSplice)
		}
		var v []byte
		if v, err = e.DecodeFixedLenByteArray(nil, vals, leaf.typeLength); err == nil {
			if len(v) < n*leaf.typeLength {
				return nil, short(len(v) / leaf.typeLength)
			}
			out = v[:n*leaf.typeLength]
		}
	case format.ByteArray:
		var (
			v    []byte
			offs []uint32
		)
		if v, offs, err = e.DecodeByteArray(nil, vals, nil); err == nil {
			if len(offs) < n+1 {
				return nil, short(max(len(offs)-1, 0))
			}
			out = make([]byte, 0, int(offs[n]-offs[0])+4*n)
			for i := range n {
				lo, hi := offs[i], offs[i+1]
				if lo > hi || int(hi) > len(v) {
					return nil, fmt.Errorf("decoded byte array offsets out of range: %w", errNoSplice)
				}
				out = binary.LittleEndian.AppendUint32(out, hi-lo)
				out = append(out, v[lo:hi]...)
			}
		}
	default:
		return nil, fmt.Errorf("values of type %v encoded %v: %w", leaf.typ, enc, errNoSplice)
	}
	if err != nil {
		return nil, fmt.Errorf("decode %v values: %v: %w", enc, err, errNoSplice)
	}
	return out, nil
}

// filterPlain filters PLAIN-encoded values of the leaf's physical type.
func filterPlain(vals []byte, keep []bool, leaf leafInfo) ([]byte, error) {
	width := 0
	switch leaf.typ {
	case format.Boolean:
		if len(vals)*8 < len(keep) {
			return nil, fmt.Errorf("%d bytes of booleans for %d values: %w", len(vals), len(keep), errNoSplice)
		}
		out := make([]byte, 0, len(vals))
		k := 0
		for i, keepIt := range keep {
			if !keepIt {
				continue
			}
			if k%8 == 0 {
				out = append(out, 0)
			}
			if vals[i/8]>>(i%8)&1 != 0 {
				out[len(out)-1] |= 1 << (k % 8)
			}
			k++
		}
		return out, nil
	case format.Int32, format.Float:
		width = 4
	case format.Int64, format.Double:
		width = 8
	case format.Int96:
		width = 12
	case format.FixedLenByteArray:
		width = leaf.typeLength
		if width <= 0 {
			return nil, fmt.Errorf("fixed-length byte array of length %d: %w", width, errNoSplice)
		}
	case format.ByteArray:
		out := make([]byte, 0, len(vals))
		pos := 0
		for _, keepIt := range keep {
			if len(vals)-pos < 4 {
				return nil, fmt.Errorf("truncated byte array values: %w", errNoSplice)
			}
			n := int(binary.LittleEndian.Uint32(vals[pos:]))
			if n < 0 || n > len(vals)-pos-4 {
				return nil, fmt.Errorf("byte array value of %d bytes: %w", n, errNoSplice)
			}
			if keepIt {
				out = append(out, vals[pos:pos+4+n]...)
			}
			pos += 4 + n
		}
		return out, nil
	default:
		return nil, fmt.Errorf("physical type %v: %w", leaf.typ, errNoSplice)
	}
	if len(vals) < width*len(keep) {
		return nil, fmt.Errorf("%d bytes for %d values of %d bytes: %w", len(vals), len(keep), width, errNoSplice)
	}
	out := make([]byte, 0, len(vals))
	for i, keepIt := range keep {
		if keepIt {
			out = append(out, vals[i*width:(i+1)*width]...)
		}
	}
	return out, nil
}
