package pagecodec

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"

	"github.com/deltafs/deltafs/tests/deltagen"
)

// streamed compresses b as streaming encoders do: frames that do not
// give their size.
func streamed(t *testing.T, b []byte) []byte {
	var out bytes.Buffer
	w, err := zstd.NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Flush() // the frame's header goes out before its size is known
	w.Close()
	var h zstd.Header
	if err := h.Decode(out.Bytes()); len(b) > 0 && (err != nil || h.HasFCS) {
		t.Fatalf("the frame gives its size (%v): %v", h.HasFCS, err)
	}
	return out.Bytes()
}

func pages() map[string][]byte {
	random := make([]byte, 1<<20)
	for i := range random {
		random[i] = byte(rand.N(256))
	}
	return map[string][]byte{
		"empty":  nil,
		"random": random,
		"zeros":  make([]byte, 16<<20),
		"text":   []byte(strings.Repeat("part-00000-c000.snappy.parquet ", 40000)),
	}
}

// TestHonestZstdPagesNeedNoDecode: pages a zstd encoder writes, whether
// their frame gives its size or not, are bounded by their headers alone.
func TestHonestZstdPagesNeedNoDecode(t *testing.T) {
	enc, _ := zstd.NewWriter(nil)
	for name, page := range pages() {
		for how, body := range map[string][]byte{"sized": enc.EncodeAll(page, nil), "streamed": streamed(t, page)} {
			n, ok := ZstdBound(body)
			if !ok || n < uint64(len(page)) || n > uint64(len(page))+zstdBlockMax {
				t.Errorf("%s, %s: bound %d (%v) for %d bytes", name, how, n, ok, len(page))
			}
			decoded, err := Check(format.Zstd, body, int64(len(body)), int64(len(page)))
			if err != nil || decoded != nil {
				t.Errorf("%s, %s: %v, decoded %v", name, how, err, decoded != nil)
			}
		}
	}
}

// TestZstdPagesOfSeveralFrames: a page of two frames bounded by more than
// its size is decoded, into its size, and kept when it fits.
func TestZstdPagesOfSeveralFrames(t *testing.T) {
	a, b := []byte(strings.Repeat("first ", 1000)), []byte(strings.Repeat("second ", 1000))
	body := append(streamed(t, a), streamed(t, b)...)
	decoded, err := Check(format.Zstd, body, int64(len(body)), int64(len(a)+len(b)))
	if err != nil || string(decoded) != string(a)+string(b) {
		t.Errorf("%d bytes decoded, %v", len(decoded), err)
	}
	if _, err := Check(format.Zstd, body, int64(len(body)), int64(len(a)+len(b)-1)); err == nil {
		t.Error("a page one byte shorter than its frames accepted")
	}
}

// TestBombsAreRefused: zstd frames or a Brotli stream that decode to far
// more than their page says are refused without being decoded past the
// page's size; zstd frames alone or after one that gives its size.
func TestBombsAreRefused(t *testing.T) {
	enc, _ := zstd.NewWriter(nil)
	bomb := deltagen.ZstdBomb(8192) // 1 GiB in 32 KiB
	var br bytes.Buffer
	bw := brotli.NewWriterLevel(&br, brotli.BestSpeed)
	bw.Write(make([]byte, 64<<20))
	bw.Close()
	for _, c := range []struct {
		name  string
		codec format.CompressionCodec
		body  []byte
	}{
		{"one frame", format.Zstd, bomb},
		{"after a sized one", format.Zstd, append(enc.EncodeAll([]byte("small"), nil), bomb...)},
		{"trailing garbage", format.Zstd, append(bytes.Clone(bomb), 0xff, 0xff, 0xff, 0xff, 0xff)},
		{"a frame that lies", format.Zstd, append([]byte{0x28, 0xb5, 0x2f, 0xfd, 0xc0}, 0, 0, 0, 0, 8, 0, 0, 0)}, // claims 32 GiB
		{"Brotli", format.Brotli, br.Bytes()},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Check(c.codec, c.body, int64(len(c.body)), 100_000)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("%s: allocated %d bytes", c.name, grew)
		}
	}
}

func TestSnappyLZ4AndBrotliClaims(t *testing.T) {
	page := []byte(strings.Repeat("abc", 1000))
	s := snappy.Encode(nil, page)
	var br bytes.Buffer
	bw := brotli.NewWriter(&br)
	bw.Write(page)
	bw.Close()
	l := make([]byte, lz4.CompressBlockBound(len(page)))
	n, err := lz4.CompressBlock(page, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	l = l[:n]
	for _, c := range []struct {
		codec format.CompressionCodec
		body  []byte
	}{{format.Snappy, s}, {format.Lz4Raw, l}, {format.Brotli, br.Bytes()}} {
		if _, err := Check(c.codec, c.body, int64(len(c.body)), int64(len(page))); err != nil {
			t.Errorf("%s: %v", c.codec, err)
		}
		if _, err := Check(c.codec, c.body, int64(len(c.body)), int64(len(page))+1); err == nil {
			t.Errorf("%s: a page one byte longer than its block accepted", c.codec)
		}
	}
}

// TestClaimsWithinTheCodec: a page of zeros, as dense as each codec gets,
// is within MaxDecoded; a claim past it is refused before any decoding.
func TestClaimsWithinTheCodec(t *testing.T) {
	zeros := make([]byte, 16<<20)
	for _, codec := range []compress.Codec{&parquet.Snappy, &parquet.Lz4Raw, &parquet.Gzip, &parquet.Zstd} {
		body, err := codec.Encode(nil, zeros)
		if err != nil {
			t.Fatal(err)
		}
		id, stored := codec.CompressionCodec(), int64(len(body))
		if _, err := Check(id, body, stored, int64(len(zeros))); err != nil {
			t.Errorf("%s: %d bytes from %d: %v", codec, len(zeros), stored, err)
		}
		if _, err := Check(id, body, stored, MaxDecoded(id, stored)+1); err == nil || !strings.Contains(err.Error(), "claims") {
			t.Errorf("%s: a claim past the codec's densest: %v", codec, err)
		}
	}
}

// FuzzZstdBound: whatever the input, the decoder never gives more than
// ZstdBound says it can, and one block.
func FuzzZstdBound(f *testing.F) {
	enc, _ := zstd.NewWriter(nil)
	f.Add(enc.EncodeAll([]byte("hello, hello, hello"), nil))
	f.Add(deltagen.ZstdBomb(3))
	f.Add(append(deltagen.ZstdBomb(1), enc.EncodeAll(make([]byte, 300000), nil)...))
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(256<<20))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		n, ok := ZstdBound(src)
		if !ok {
			return
		}
		if out, _ := dec.DecodeAll(src, nil); uint64(len(out)) > n+zstdBlockMax {
			t.Fatalf("decoded %d bytes, bound %d", len(out), n)
		}
	})
}
