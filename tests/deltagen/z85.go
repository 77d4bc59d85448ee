package deltagen

import (
	"encoding/binary"
	"fmt"
)

// z85Alphabet is the ZeroMQ Z85 alphabet (rfc.zeromq.org/spec/32).
const z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

// Z85Encode encodes data in Z85: every 4 bytes (a big-endian uint32) become
// 5 characters. Data whose length is not a multiple of 4 is padded with zero
// bytes first, as Delta does for inline deletion vectors (their sizeInBytes
// gives the unpadded length).
func Z85Encode(data []byte) string {
	if r := len(data) % 4; r != 0 {
		data = append(append([]byte(nil), data...), make([]byte, 4-r)...)
	}
	out := make([]byte, 0, len(data)/4*5)
	var chunk [5]byte
	for i := 0; i < len(data); i += 4 {
		v := binary.BigEndian.Uint32(data[i:])
		for j := 4; j >= 0; j-- {
			chunk[j] = z85Alphabet[v%85]
			v /= 85
		}
		out = append(out, chunk[:]...)
	}
	return string(out)
}

// Z85Decode decodes Z85 text (length a multiple of 5) into bytes.
func Z85Decode(s string) ([]byte, error) {
	if len(s)%5 != 0 {
		return nil, fmt.Errorf("z85: length %d is not a multiple of 5", len(s))
	}
	out := make([]byte, 0, len(s)/5*4)
	for i := 0; i < len(s); i += 5 {
		var v uint64
		for j := 0; j < 5; j++ {
			d := z85Index(s[i+j])
			if d < 0 {
				return nil, fmt.Errorf("z85: invalid character %q at %d", s[i+j], i+j)
			}
			v = v*85 + uint64(d)
		}
		if v > 0xffffffff {
			return nil, fmt.Errorf("z85: group at %d overflows", i)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(v))
	}
	return out, nil
}

func z85Index(c byte) int {
	for i := 0; i < len(z85Alphabet); i++ {
		if z85Alphabet[i] == c {
			return i
		}
	}
	return -1
}
