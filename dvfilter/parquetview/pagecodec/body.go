package pagecodec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/parquet-go/parquet-go/format"
)

// Body is a page's stored bytes (its values, and a v1 page's levels),
// decompressed only as far as asked: checking a v1 page's levels needs
// the first bytes, and a Snappy page gives them without decoding the
// rest (decoding every page of a checkpoint twice, once to check it and
// once by parquet-go, took a third more time).
type Body struct {
	codec   format.CompressionCodec
	stored  []byte
	Full    int64  // the decompressed size, as its header gives it (checked by Check)
	decoded []byte // all of it, once decoded
}

// NewBody is the body of a page stored with codec, full bytes
// decompressed, that Check has passed; decoded is what Check returned.
func NewBody(codec format.CompressionCodec, stored []byte, full int64, decoded []byte) *Body {
	if codec == format.Uncompressed {
		decoded = stored
	}
	return &Body{codec: codec, stored: stored, Full: full, decoded: decoded}
}

// Decoded is a body decompressed already.
func Decoded(b []byte) *Body { return NewBody(format.Uncompressed, b, int64(len(b)), b) }

// All returns the whole body decompressed.
func (b *Body) All() ([]byte, error) {
	if b.decoded != nil {
		return b.decoded, nil
	}
	var out []byte
	var err error
	if b.codec == format.Zstd {
		out, err = DecodeZstd(b.stored, b.Full) // bounded, whatever its frames say
	} else {
		out, err = Lookup(b.codec).Decode(make([]byte, b.Full), b.stored)
	}
	if err != nil {
		return nil, err
	}
	if int64(len(out)) != b.Full {
		return nil, fmt.Errorf("page decompresses to %d bytes, its header says %d", len(out), b.Full)
	}
	b.decoded = out
	return out, nil
}

// Prefix returns the first n bytes of the body decompressed (fewer if it
// is shorter).
func (b *Body) Prefix(n int) ([]byte, error) {
	n = int(min(int64(n), b.Full))
	if b.decoded == nil && b.codec == format.Snappy {
		if p, err := snappyPrefix(b.stored, n); err == nil {
			return p, nil
		} // else decoded whole, as parquet-go's decoder would take it
	}
	all, err := b.All()
	if err != nil {
		return nil, err
	}
	return all[:min(n, len(all))], nil
}

var errSnappy = errors.New("snappy block corrupt")

// snappyPrefix decodes the first n bytes of a Snappy block: its elements
// are literals and copies of what precedes them, so a prefix needs only
// the elements that make it.
func snappyPrefix(src []byte, n int) ([]byte, error) {
	_, k := binary.Uvarint(src) // the block's length, checked by Check
	if k <= 0 {
		return nil, errSnappy
	}
	src = src[k:]
	dst := make([]byte, 0, n+64)
	for len(dst) < n {
		if len(src) == 0 {
			return nil, errSnappy
		}
		tag := src[0]
		var length, offset int
		switch tag & 3 {
		case 0: // a literal
			length = int(tag>>2) + 1
			src = src[1:]
			if length > 60 { // its length follows in length-60 bytes
				nb := length - 60
				if len(src) < nb {
					return nil, errSnappy
				}
				var l uint32
				for i := nb - 1; i >= 0; i-- {
					l = l<<8 | uint32(src[i])
				}
				length, src = int(l)+1, src[nb:]
			}
			if length <= 0 || length > len(src) {
				return nil, errSnappy
			}
			dst = append(dst, src[:min(length, n-len(dst))]...)
			src = src[length:]
			continue
		case 1:
			if len(src) < 2 {
				return nil, errSnappy
			}
			length, offset = 4+int(tag>>2)&7, int(tag&0xe0)<<3|int(src[1])
			src = src[2:]
		case 2:
			if len(src) < 3 {
				return nil, errSnappy
			}
			length, offset = 1+int(tag>>2), int(binary.LittleEndian.Uint16(src[1:]))
			src = src[3:]
		case 3:
			if len(src) < 5 {
				return nil, errSnappy
			}
			length, offset = 1+int(tag>>2), int(binary.LittleEndian.Uint32(src[1:]))
			src = src[5:]
		}
		if offset <= 0 || offset > len(dst) {
			return nil, errSnappy
		}
		for range length {
			dst = append(dst, dst[len(dst)-offset])
		}
	}
	return dst[:n], nil
}
