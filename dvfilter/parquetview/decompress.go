package parquetview

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// A page body is decompressed into exactly the size its header gives,
// checked first against what the stored bytes can hold (pagecodec: what
// parquet-go's own decoders would take on trust). Pages parquet-go itself
// will read are checked here first (checkChunkPages).

// decompress returns the page body src, stored with codec, decompressed
// into size bytes.
func decompress(codec compress.Codec, src []byte, size int64) ([]byte, error) {
	if codec.CompressionCodec() == format.Zstd {
		if limit := pagecodec.MaxDecoded(format.Zstd, int64(len(src))); size < 0 || size > limit {
			return nil, fmt.Errorf("zstd page of %d bytes claims %d bytes decompressed: %w", len(src), size, ErrParquet)
		}
		out, err := pagecodec.DecodeZstd(src, size) // bounded, whatever its frames say
		if err != nil {
			return nil, fmt.Errorf("%v: %w", err, ErrParquet)
		}
		return out, nil
	}
	decoded, err := checkCompressed(codec.CompressionCodec(), src, int64(len(src)), size)
	if err != nil || decoded != nil {
		return decoded, err
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

// checkCompressed is pagecodec.Check, its error wrapping ErrParquet: a
// page body of stored bytes (src: the first bytes of a Snappy page, all
// of the others) can decompress into size bytes without a decoder
// allocating more. It returns the page it decoded, if it did.
func checkCompressed(codec format.CompressionCodec, src []byte, stored, size int64) ([]byte, error) {
	decoded, err := pagecodec.Check(codec, src, stored, size)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", err, ErrParquet)
	}
	return decoded, nil
}

// checkChunkPages checks every page of a column chunk as decompress
// would, before parquet-go decodes them with its own decoders, which
// size their buffers from the page headers. It reads the page headers,
// the start of a Snappy page (the length it claims) and the whole of an
// LZ4, zstd or Brotli page.
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
		case format.Zstd, format.Lz4Raw, format.Lz4, format.Brotli:
			read = size // a zstd page's every frame and block header; the others decoded
		}
		b, err := readFull(ctx, src, body, read)
		if err != nil {
			return err
		}
		if _, err := checkCompressed(codec, b, size, full); err != nil {
			return err
		}
	}
	return nil
}
