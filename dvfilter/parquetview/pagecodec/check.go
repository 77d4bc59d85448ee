package pagecodec

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// MaxDecoded is the most a page of stored bytes compressed with codec
// can decode to, and so the most its header may claim: what the codec's
// densest element gives (a Snappy copy 64 bytes from 3, an LZ4 match 255
// bytes a length byte, DEFLATE 258 bytes from about 2 bits, a zstd RLE
// block 128 KiB from 4 bytes), and a few bytes for a tiny page. Brotli
// can expand further (600,000 times, 64 MiB of zeros): it is held to
// zstd's figure, as is a codec parquet-go cannot decode.
func MaxDecoded(codec format.CompressionCodec, stored int64) int64 {
	ratio := int64(zstdBlockMax / 4)
	switch codec {
	case format.Uncompressed:
		ratio = 1
	case format.Snappy:
		ratio = 22
	case format.Lz4Raw, format.Lz4:
		ratio = 256
	case format.Gzip:
		ratio = 1033
	}
	return ratio*max(stored, 0) + 64
}

// Check checks that body, the compressed bytes of a page stored with
// codec, stored bytes long, decompresses into full bytes without
// parquet-go's decoder allocating much more: full is no more than
// MaxDecoded, a Snappy block claims exactly full (body: its first bytes
// are enough; of the others, all of it), an LZ4 block (or Hadoop's
// framing of them) decodes into exactly full, and zstd frames can give at
// most one block more than full (ZstdBound), or decode into full. A
// Brotli stream is decoded, without being kept, up to one byte past full.
// It returns the page decoded when checking it took decoding it, nil
// otherwise.
func Check(codec format.CompressionCodec, body []byte, stored, full int64) ([]byte, error) {
	if limit := MaxDecoded(codec, stored); full < 0 || full > limit {
		return nil, fmt.Errorf("%s page of %d bytes claims %d bytes decompressed (at most %d)", codec, stored, full, limit)
	}
	switch codec {
	case format.Snappy:
		if n, err := snappy.DecodedLen(body); err != nil || int64(n) != full {
			return nil, fmt.Errorf("Snappy block claims %d bytes (%v), its page %d", n, err, full)
		}
	case format.Lz4Raw:
		dst := make([]byte, full)
		if n, err := lz4.UncompressBlock(body, dst); err != nil || int64(n) != full {
			return nil, fmt.Errorf("LZ4 block does not decode into its page's %d bytes (%d, %v)", full, n, err)
		}
		return dst, nil
	case format.Lz4:
		return DecodeHadoopLZ4(body, full)
	case format.Zstd:
		if n, ok := ZstdBound(body); ok && n <= uint64(full)+zstdBlockMax {
			return nil, nil
		}
		return DecodeZstd(body, full) // frames that say more, or walk oddly: decoded, up to full
	case format.Brotli: // expands without a useful bound, and parquet-go decodes it all
		n, err := io.Copy(io.Discard, io.LimitReader(brotli.NewReader(bytes.NewReader(body)), full+1))
		if err != nil || n != full {
			return nil, fmt.Errorf("Brotli stream does not decode into its page's %d bytes (%d, %v)", full, n, err)
		}
	}
	return nil, nil
}

// zstdPages decodes zstd pages into at most the room given (DecodeAll is
// safe for concurrent use).
var zstdPages = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true))
})

// DecodeZstd decodes a zstd page of full bytes, refusing one that decodes
// to more, or less, without allocating more than full.
func DecodeZstd(body []byte, full int64) ([]byte, error) {
	d, err := zstdPages()
	if err != nil {
		return nil, err
	}
	out, err := d.DecodeAll(body, make([]byte, 0, full))
	if err != nil || int64(len(out)) != full {
		return nil, fmt.Errorf("zstd page does not decode into its %d bytes (%d, %v)", full, len(out), err)
	}
	return out, nil
}
