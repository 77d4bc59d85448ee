package dvfilter

import (
	"bytes"
	"testing"
)

func TestDecodeZ85(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []byte
		wantErr bool
	}{
		{name: "empty", in: "", want: []byte{}},
		// The test vector of the Z85 specification (ZeroMQ RFC 32).
		{name: "spec HelloWorld", in: "HelloWorld", want: []byte{0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B}},
		{name: "zeros", in: "00000", want: []byte{0, 0, 0, 0}},
		{name: "max word", in: "%nSc0", want: []byte{0xFF, 0xFF, 0xFF, 0xFF}},
		{name: "native magic", in: "wi5b=", want: []byte{0x64, 0x39, 0xD3, 0xD0}},
		{name: "portable magic", in: "^Bg9^", want: []byte{0xD1, 0xD3, 0x39, 0x64}},
		// Tail form of the Rust z85 crate: "#" counts missing bytes.
		{name: "rust tail 2 bytes", in: "00000##093", want: []byte{0, 0, 0, 0, 0x03, 0x00}},
		{name: "rust tail 1 byte", in: "###03", want: []byte{0x03}},
		{name: "rust tail 3 bytes", in: "#0000", want: []byte{0, 0, 0}},
		{name: "rust tail all hash", in: "#####", wantErr: true},
		{name: "rust tail overflow", in: "###3/", wantErr: true},
		{name: "hash group not last", in: "##09300000", wantErr: true},
		{name: "length not multiple of 5", in: "Hello1", wantErr: true},
		{name: "short", in: "abcd", wantErr: true},
		{name: "bad char space", in: "Hell o", wantErr: true},
		{name: "bad char quote", in: "Hell\"", wantErr: true},
		{name: "bad char backslash", in: "ab\\cd", wantErr: true},
		{name: "bad char high byte", in: "abc\xffd", wantErr: true},
		{name: "overflow", in: "#####", wantErr: true},
		{name: "just over 32 bits", in: "%nSc1", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeZ85(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("DecodeZ85(%q) = %x, want error", tc.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeZ85(%q): %v", tc.in, err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("DecodeZ85(%q) = %x, want %x", tc.in, got, tc.want)
			}
		})
	}
}

func TestEncodeZ85(t *testing.T) {
	tests := []struct {
		in   []byte
		want string
	}{
		{nil, ""},
		{[]byte{0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B}, "HelloWorld"},
		{[]byte{0xFF, 0xFF, 0xFF, 0xFF}, "%nSc0"},
		// Padded like Delta's writer: one byte becomes a whole group.
		{[]byte{0x86}, "H5.hN"},
	}
	for _, tc := range tests {
		if got := EncodeZ85(tc.in); got != tc.want {
			t.Errorf("EncodeZ85(%x) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestZ85RoundTrip(t *testing.T) {
	for n := 0; n < 64; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*37 + n*11)
		}
		s := EncodeZ85(b)
		if len(s) != (n+3)/4*5 {
			t.Fatalf("len(EncodeZ85(%d bytes)) = %d", n, len(s))
		}
		got, err := DecodeZ85(s)
		if err != nil {
			t.Fatalf("decode %d bytes: %v", n, err)
		}
		if len(got) != (n+3)/4*4 || !bytes.Equal(got[:n], b) {
			t.Fatalf("round trip of %x gave %x", b, got)
		}
		for _, p := range got[n:] {
			if p != 0 {
				t.Fatalf("padding not zero: %x", got)
			}
		}
	}
}
