package pagecodec

import (
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// DecodeHadoopLZ4 decodes a page stored with the LZ4 codec (format.Lz4),
// which parquet-go cannot: Hadoop's framing of LZ4 blocks, as parquet-mr
// writes it (Spark's "lz4"; its "lz4_raw" is LZ4_RAW). Each block of the
// page gives its decoded length, then is stored as one or more chunks,
// each its compressed length and an LZ4 block, big-endian lengths. A page
// that is not so framed is decoded as one LZ4 block, as early parquet-cpp
// wrote this codec. Either way it must decode into exactly full bytes, and
// nothing is decoded past them.
func DecodeHadoopLZ4(body []byte, full int64) ([]byte, error) {
	out := make([]byte, full)
	if n, ok := hadoopBlocks(body, out); ok && n == full {
		return out, nil
	}
	if n, err := lz4.UncompressBlock(body, out); err != nil || int64(n) != full {
		return nil, fmt.Errorf("LZ4 page decodes into %d bytes neither in Hadoop's framing nor as one block (%v), not its page's %d", n, err, full)
	}
	return out, nil
}

// hadoopBlocks decodes Hadoop-framed LZ4 blocks from src into out, and
// returns how many bytes they gave; ok is false if src is not so framed
// or gives more than out holds.
func hadoopBlocks(src, out []byte) (n int64, ok bool) {
	for len(src) > 0 {
		if len(src) < 4 {
			return 0, false
		}
		block := int64(binary.BigEndian.Uint32(src))
		src = src[4:]
		if block > int64(len(out))-n {
			return 0, false
		}
		// A block holds one chunk or more; one of nothing, an LZ4 block
		// of nothing, is how parquet-rs frames an empty page.
		for end, first := n+block, true; first || n < end; first = false {
			if len(src) < 4 {
				return 0, false
			}
			c := int64(binary.BigEndian.Uint32(src))
			src = src[4:]
			if c > int64(len(src)) || c == 0 {
				return 0, false
			}
			k, err := lz4.UncompressBlock(src[:c], out[n:end])
			if err != nil || k == 0 && block > 0 {
				return 0, false
			}
			n, src = n+int64(k), src[c:]
		}
	}
	return n, true
}

// HadoopLZ4 is the LZ4 codec parquet-go lacks, as a compress.Codec, for
// the pages deltafs rebuilds itself: Encode frames a page as Hadoop's
// writer does, in blocks of hadoopBlock bytes, each one chunk; Decode is
// DecodeHadoopLZ4 into len(dst) bytes, the page's size.
type HadoopLZ4 struct{}

// hadoopBlock is the most a block of HadoopLZ4.Encode holds: no more than
// Hadoop's own writer puts in one (its buffers are 256 KiB), which older
// Hadoop decoders expect; Spark 4 reads larger ones too.
const hadoopBlock = 128 << 10

func (HadoopLZ4) String() string                            { return "LZ4" }
func (HadoopLZ4) CompressionCodec() format.CompressionCodec { return format.Lz4 }

func (HadoopLZ4) Encode(dst, src []byte) ([]byte, error) {
	dst = dst[:0]
	buf := make([]byte, lz4.CompressBlockBound(min(len(src), hadoopBlock)))
	for len(src) > 0 { // an empty page: no block at all, as Hadoop frames nothing
		block := src[:min(len(src), hadoopBlock)]
		n, err := lz4.CompressBlock(block, buf, nil)
		if err != nil {
			return nil, err
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(block)))
		dst = binary.BigEndian.AppendUint32(dst, uint32(n))
		dst, src = append(dst, buf[:n]...), src[len(block):]
	}
	return dst, nil
}

func (HadoopLZ4) Decode(dst, src []byte) ([]byte, error) {
	return DecodeHadoopLZ4(src, int64(len(dst)))
}

// Lookup is parquet.LookupCompressionCodec, and HadoopLZ4 for the LZ4
// codec.
func Lookup(codec format.CompressionCodec) compress.Codec {
	if codec == format.Lz4 {
		return HadoopLZ4{}
	}
	return parquet.LookupCompressionCodec(codec)
}

// Encode compresses a page body in codec c, as Lookup's codec does, but
// for Snappy, encoded in s2's fast mode (parquet-go's takes its better,
// three times slower mode): for pages deltafs writes anew on a reader's
// first open.
func Encode(c format.CompressionCodec, dst, src []byte) ([]byte, error) {
	if c == format.Snappy {
		return s2.EncodeSnappy(dst[:cap(dst)], src), nil
	}
	return Lookup(c).Encode(dst, src)
}
