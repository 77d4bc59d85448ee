package pagecodec

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// hadoopFrame frames page as parquet-mr does: blocks of at most block
// bytes, each its length and then its chunks of at most chunk bytes, each
// its compressed length and an LZ4 block.
func hadoopFrame(t testing.TB, page []byte, block, chunk int) []byte {
	var out []byte
	for b := range slicesOf(page, block) {
		out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
		for c := range slicesOf(b, chunk) {
			dst := make([]byte, lz4.CompressBlockBound(len(c)))
			n, err := lz4.CompressBlock(c, dst, nil)
			if err != nil || n == 0 {
				t.Fatalf("compress: %d, %v", n, err)
			}
			out = binary.BigEndian.AppendUint32(out, uint32(n))
			out = append(out, dst[:n]...)
		}
	}
	return out
}

func slicesOf(b []byte, n int) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(b) > 0 {
			k := min(n, len(b))
			if !yield(b[:k]) {
				return
			}
			b = b[k:]
		}
	}
}

func TestDecodeHadoopLZ4(t *testing.T) {
	page := []byte(strings.Repeat("part-00000-c000.snappy.parquet 1234567 ", 20000))
	raw := make([]byte, lz4.CompressBlockBound(len(page)))
	n, err := lz4.CompressBlock(page, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{
		"one block, one chunk":  hadoopFrame(t, page, len(page), len(page)),
		"blocks of 256 KiB":     hadoopFrame(t, page, 256<<10, 256<<10),
		"blocks in many chunks": hadoopFrame(t, page, 256<<10, 64<<10),
		"a bare block":          raw[:n],
	} {
		got, err := DecodeHadoopLZ4(body, int64(len(page)))
		if err != nil || !bytes.Equal(got, page) {
			t.Errorf("%s: %d bytes, %v", name, len(got), err)
		}
		if _, err := DecodeHadoopLZ4(body, int64(len(page))-1); err == nil {
			t.Errorf("%s: decoded into a page one byte shorter", name)
		}
		if _, err := DecodeHadoopLZ4(body[:len(body)-3], int64(len(page))); err == nil {
			t.Errorf("%s: truncated, decoded", name)
		}
	}
	// parquet-rs frames an empty page (a dictionary of a column of nulls)
	// as a block of nothing holding an LZ4 block of nothing.
	empty := []byte{0, 0, 0, 0, 0, 0, 0, 1, 0}
	if got, err := DecodeHadoopLZ4(empty, 0); err != nil || len(got) != 0 {
		t.Errorf("parquet-rs's empty page: %d bytes, %v", len(got), err)
	}
	for _, bad := range [][]byte{empty[:4], empty[:8], {0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 1, 0x10}} {
		if got, err := DecodeHadoopLZ4(bad, 0); err == nil {
			t.Errorf("% x: decoded into %d bytes", bad, len(got))
		}
	}
	for _, p := range [][]byte{page, nil, []byte("x"), make([]byte, 300000)} {
		enc, err := HadoopLZ4{}.Encode(nil, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := HadoopLZ4{}.Decode(make([]byte, len(p)), enc)
		if err != nil || !bytes.Equal(got, p) {
			t.Errorf("%d bytes encoded and decoded: %d bytes, %v", len(p), len(got), err)
		}
	}
}

// FuzzDecodeHadoopLZ4: whatever the input, decoding never panics, and
// what it gives is exactly the size asked for; what HadoopLZ4 encodes
// decodes back.
func FuzzDecodeHadoopLZ4(f *testing.F) {
	f.Add(hadoopFrame(f, []byte(strings.Repeat("abc", 1000)), 1024, 512), uint16(3000))
	f.Add([]byte{0, 0, 0, 4, 0, 0, 0, 5, 0x40, 'a', 'b', 'c', 'd'}, uint16(4))
	f.Fuzz(func(t *testing.T, body []byte, full uint16) {
		if out, err := DecodeHadoopLZ4(body, int64(full)); err == nil && len(out) != int(full) {
			t.Fatalf("%d bytes, asked for %d", len(out), full)
		}
		enc, err := HadoopLZ4{}.Encode(nil, body)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := DecodeHadoopLZ4(enc, int64(len(body))); err != nil || !bytes.Equal(back, body) {
			t.Fatalf("encoded %d bytes, decoded %d: %v", len(body), len(back), err)
		}
	})
}
