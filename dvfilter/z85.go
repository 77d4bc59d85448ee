package dvfilter

import "fmt"

// z85Alphabet is the Z85 character set (ZeroMQ RFC 32), the Base85 variant
// Delta uses because it is JSON-friendly.
const z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

// z85Value maps a byte to its digit value, or -1 when it is not in the alphabet.
var z85Value = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(z85Alphabet); i++ {
		t[z85Alphabet[i]] = int8(i)
	}
	return t
}()

// DecodeZ85 decodes Z85 text. The length of s must be a multiple of 5; every
// 5 characters become 4 bytes (big-endian within the group). Characters
// outside the alphabet and groups whose value exceeds 32 bits are errors.
//
// Two conventions for data whose length is not a multiple of 4 are in use
// and both are accepted:
//   - Delta's Java writers pad the data with zero bytes to a multiple of 4,
//     so the result may be up to 3 bytes longer than the data; callers cut it
//     to the known size (sizeInBytes for inline vectors).
//   - The Rust z85 crate (used by delta-rs and delta-kernel-rs) encodes a
//     final n-byte tail (n = 1..3) as the 5-character group of its value with
//     the 4-n leading characters, always '0', replaced by '#'. No standard
//     group starts with '#' (84*85^4 > 2^32), so the forms cannot be
//     confused; the result then has exactly the data's length.
func DecodeZ85(s string) ([]byte, error) {
	if len(s)%5 != 0 {
		return nil, fmt.Errorf("z85: length %d is not a multiple of 5", len(s))
	}
	out := make([]byte, 0, len(s)/5*4)
	for g := 0; g < len(s); g += 5 {
		group := s[g : g+5]
		missing := 0 // tail form: bytes missing from the final group
		if g+5 == len(s) {
			for missing < 4 && group[missing] == '#' {
				missing++
			}
			if missing == 4 {
				return nil, fmt.Errorf("z85: tail group at position %d holds no data", g)
			}
		}
		var v uint64
		for i := missing; i < 5; i++ {
			d := z85Value[group[i]]
			if d < 0 {
				return nil, fmt.Errorf("z85: invalid character %q at position %d", group[i], g+i)
			}
			v = v*85 + uint64(d)
		}
		keep := 4 - missing
		if v >= 1<<(8*keep) {
			if missing == 0 {
				return nil, fmt.Errorf("z85: group at position %d overflows 32 bits", g)
			}
			return nil, fmt.Errorf("z85: tail group at position %d overflows %d bytes", g, keep)
		}
		word := [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
		out = append(out, word[missing:]...)
	}
	return out, nil
}

// EncodeZ85 encodes b as Z85 text. Like Delta's writer it pads b with zero
// bytes to a multiple of 4 first, so the text always decodes to
// (len(b)+3)/4*4 bytes.
func EncodeZ85(b []byte) string {
	groups := (len(b) + 3) / 4
	out := make([]byte, groups*5)
	for g := 0; g < groups; g++ {
		var word [4]byte
		copy(word[:], b[g*4:])
		v := uint32(word[0])<<24 | uint32(word[1])<<16 | uint32(word[2])<<8 | uint32(word[3])
		for i := 4; i >= 0; i-- {
			out[g*5+i] = z85Alphabet[v%85]
			v /= 85
		}
	}
	return string(out)
}
