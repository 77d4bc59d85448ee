package parquetview

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// A page body is decompressed into exactly the size its header gives,
// checked first against what the stored bytes can hold. parquet-go's own
// decoders trust the data: its LZ4 decoder doubles its buffer for as long
// as a block fails to decode, so a corrupt LZ4 page took all memory, and
// a Snappy block or a zstd frame allocates the length it claims up front.
// Pages parquet-go itself will read are checked here first
// (checkChunkPages).

// maxExpansion bounds how many times larger than stored a page may claim
// to be: as much as a zstd block can expand (an RLE block gives 128 KiB
// from 4 bytes), which a page of one value repeated, without dictionary,
// reaches; the other codecs expand less.
const maxExpansion = 1 << 15

// decompress returns the page body src, stored with codec, decompressed
// into size bytes.
func decompress(codec compress.Codec, src []byte, size int64) ([]byte, error) {
	decoded, err := checkCompressed(codec.CompressionCodec(), src, int64(len(src)), size)
	if err != nil || decoded != nil {
		return decoded, err
	}
	if codec.CompressionCodec() == format.Zstd {
		return decodeZstd(src, size) // bounded, whatever its frames say
	}
	out, err := codec.Decode(make([]byte, size), src)
	if err != nil {
		return nil, err
	}
	if int64(len(out)) != size {
		return nil, fmt.Errorf("page decompresses to %d bytes, its header says %d", len(out), size)
	}
	return out, nil
}

// checkCompressed checks that a page body of stored bytes, stored with
// codec, can decompress into size bytes without a decoder allocating
// more: size is within maxExpansion of the stored bytes, a Snappy block
// claims exactly size and a zstd frame no more (src: at least their first
// bytes), an LZ4 block, or a zstd frame that gives no size, decodes into
// exactly size bytes (src: all of it). (A zstd page of several frames has
// only its first looked at.) It returns the page it decoded, if it did.
func checkCompressed(codec format.CompressionCodec, src []byte, stored, size int64) ([]byte, error) {
	if size < 0 || size > maxExpansion*stored+1<<20 {
		return nil, fmt.Errorf("page of %d bytes claims %d bytes decompressed: %w", stored, size, ErrParquet)
	}
	switch codec {
	case format.Snappy:
		if n, err := snappy.DecodedLen(src); err != nil || int64(n) != size {
			return nil, fmt.Errorf("Snappy block of %d bytes claims %d bytes (%v), its page header %d: %w", stored, n, err, size, ErrParquet)
		}
	case format.Lz4Raw:
		dst := make([]byte, size)
		if n, err := lz4.UncompressBlock(src, dst); err != nil || int64(n) != size {
			return nil, fmt.Errorf("LZ4 block of %d bytes does not decode into its page's %d bytes (%d, %v): %w", stored, size, n, err, ErrParquet)
		}
		return dst, nil
	case format.Zstd:
		if h, ok := zstdHeader(src); ok && h.HasFCS {
			if h.FrameContentSize > uint64(size) {
				return nil, fmt.Errorf("zstd frame claims %d bytes, its page %d: %w", h.FrameContentSize, size, ErrParquet)
			}
			return nil, nil // the decoder stops where a frame outgrows its claim
		}
		return decodeZstd(src, size) // a frame that does not say (or no frame): decoded, up to size
	}
	return nil, nil
}

// zstdHeader is the header of a zstd page's first frame, if it has one
// (an empty page has none).
func zstdHeader(src []byte) (zstd.Header, bool) {
	var h zstd.Header
	return h, h.Decode(src) == nil
}

// zstdPages decodes zstd pages into at most the room given (DecodeAll is
// safe for concurrent use).
var zstdPages = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true))
})

// decodeZstd decodes a zstd page of size bytes, refusing one that
// decodes to more, or less.
func decodeZstd(src []byte, size int64) ([]byte, error) {
	d, err := zstdPages()
	if err != nil {
		return nil, err
	}
	out, err := d.DecodeAll(src, make([]byte, 0, size))
	if err != nil || int64(len(out)) != size {
		return nil, fmt.Errorf("zstd page does not decode into its %d bytes (%d, %v): %w", size, len(out), err, ErrParquet)
	}
	return out, nil
}

// checkChunkPages checks every page of a column chunk as decompress
// would, before parquet-go decodes them with its own decoders, which
// size their buffers from the page headers. It reads the page headers,
// the start of a Snappy or zstd page (the length it claims) and the whole
// of an LZ4 page, or of a zstd page whose frame does not say its length.
func checkChunkPages(ctx context.Context, src RangeReader, pf *parquet.File, rg, col int, dataEnd int64) error {
	md := pf.Metadata()
	if rg >= len(md.RowGroups) || col >= len(md.RowGroups[rg].Columns) {
		return fmt.Errorf("no column chunk %d in row group %d: %w", col, rg, ErrParquet)
	}
	cc := &md.RowGroups[rg].Columns[col]
	if _, _, err := chunkRange(cc, dataEnd); err != nil {
		return err
	}
	// The pages parquet-go reads: from the dictionary page's offset when
	// there is one, wherever it lies.
	start := cc.MetaData.DataPageOffset
	if d := cc.MetaData.DictionaryPageOffset; d != 0 {
		start = d
	}
	end := start + cc.MetaData.TotalCompressedSize
	if start < int64(len(magic)) || end > dataEnd || end < start {
		return fmt.Errorf("column chunk at [%d, %d) lies outside the column data [4, %d): %w", start, end, dataEnd, ErrParquet)
	}
	// parquet-go decodes every row group's pages of a column with the
	// codec of the first row group's chunk, whatever the others say.
	codec := md.RowGroups[0].Columns[col].MetaData.Codec
	for off := start; off < end; {
		h, hlen, err := readPageHeader(ctx, src, off, end)
		if err != nil {
			return fmt.Errorf("%v: %w", err, ErrParquet)
		}
		size, full := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
		if size < 0 || off+hlen+size > end {
			return fmt.Errorf("page at %d overruns its chunk: %w", off, ErrParquet)
		}
		body := off + hlen // where the compressed bytes start
		off = body + size
		if h.Type == format.DataPageV2 && h.DataPageHeaderV2.Valid {
			v2 := h.DataPageHeaderV2.V
			levels := int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
			if levels < 0 || levels > size || levels > full {
				return fmt.Errorf("v2 page at %d: levels of %d bytes in %d: %w", body, levels, size, ErrParquet)
			}
			if c, ok := v2.IsCompressed.Get(); ok && !c {
				continue
			}
			body, size, full = body+levels, size-levels, full-levels
		}
		read := int64(0)
		switch codec {
		case format.Snappy:
			read = min(size, binary.MaxVarintLen32) // the length it claims
		case format.Zstd:
			read = min(size, zstd.HeaderMaxSize) // the frame's
		case format.Lz4Raw:
			read = size
		}
		b, err := readFull(ctx, src, body, read)
		if err != nil {
			return err
		}
		if h, ok := zstdHeader(b); codec == format.Zstd && !(ok && h.HasFCS) {
			if b, err = readFull(ctx, src, body, size); err != nil { // decoded whole: it does not say its size
				return err
			}
		}
		if _, err := checkCompressed(codec, b, size, full); err != nil {
			return err
		}
	}
	return nil
}
