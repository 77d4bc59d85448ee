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

// Check checks that body, the compressed bytes of a page stored with
// codec, decompresses into full bytes without parquet-go's decoder
// allocating much more: a Snappy block claims exactly full (body: its
// first bytes are enough), an LZ4 block decodes into exactly full, and
// zstd frames can give at most one block more than full (ZstdBound), or
// decode into full. It returns the page decoded when checking it took
// decoding it, nil otherwise. A Brotli stream is decoded, without being
// kept, up to one byte past full. How large full may be against the
// stored bytes is the caller's rule (gzip expands about 1000 times at
// most, and is not checked here).
func Check(codec format.CompressionCodec, body []byte, full int64) ([]byte, error) {
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
