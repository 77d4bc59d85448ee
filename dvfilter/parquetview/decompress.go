package parquetview

import (
	"context"
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
// size their buffers from the page headers, and what the pages' encoded
// levels and values claim (pagecodec.CheckValues), which they take on
// trust as well. It reads and decompresses every page. lv are the leaves
// of pf's schema, walked once per file by the caller (once per chunk made
// a file of 3,000 columns cost 9 million leaves). It reports how the
// chunk's pages hold its values.
func checkChunkPages(ctx context.Context, src RangeReader, pf *parquet.File, lv []leafInfo, rg, col int, dataEnd int64) (chunkValues, error) {
	md := pf.Metadata()
	if rg >= len(md.RowGroups) || col >= len(md.RowGroups[rg].Columns) {
		return 0, fmt.Errorf("no column chunk %d in row group %d: %w", col, rg, ErrParquet)
	}
	cc := &md.RowGroups[rg].Columns[col]
	if _, _, err := chunkRange(cc, dataEnd); err != nil {
		return 0, err
	}
	if col >= len(lv) {
		return 0, fmt.Errorf("no leaf column %d: %w", col, ErrParquet)
	}
	leaf := lv[col]
	leaf.typ = cc.MetaData.Type
	// The pages parquet-go reads: from the dictionary page's offset when
	// there is one, wherever it lies.
	start := cc.MetaData.DataPageOffset
	if d := cc.MetaData.DictionaryPageOffset; d != 0 {
		start = d
	}
	end := start + cc.MetaData.TotalCompressedSize
	if start < int64(len(magic)) || end > dataEnd || end < start {
		return 0, fmt.Errorf("column chunk at [%d, %d) lies outside the column data [4, %d): %w", start, end, dataEnd, ErrParquet)
	}
	// parquet-go decodes every row group's pages of a column with the
	// codec of the first row group's chunk, whatever the others say.
	codec := md.RowGroups[0].Columns[col].MetaData.Codec
	dictPage, values := false, false // a dictionary page; a data page of values, not indexes
	for off := start; off < end; {
		h, hlen, err := readPageHeader(ctx, src, off, end)
		if err != nil {
			return 0, fmt.Errorf("%v: %w", err, ErrParquet)
		}
		size := int64(h.CompressedPageSize)
		if size < 0 || off+hlen+size > end {
			return 0, fmt.Errorf("page at %d overruns its chunk: %w", off, ErrParquet)
		}
		body, err := readFull(ctx, src, off+hlen, size)
		if err != nil {
			return 0, err
		}
		off += hlen + size
		if err := checkPage(h, body, codec, leaf); err != nil {
			return 0, fmt.Errorf("page at %d: %w", off-size, err)
		}
		switch h.Type {
		case format.DictionaryPage:
			dictPage = true
		case format.DataPage, format.DataPageV2:
			values = values || !dictionaryEncoding(pageEncoding(h))
		}
	}
	switch {
	case !dictPage:
		return storedValues, nil
	case values:
		return dictionaryFallenBack, nil
	}
	return dictionaryOnly, nil
}

// checkPage checks a page's stored bytes as parquet-go will decompress
// them, and what its levels and values claim.
func checkPage(h *format.PageHeader, body []byte, codec format.CompressionCodec, leaf leafInfo) error {
	var levels []byte
	full := int64(h.UncompressedPageSize)
	if h.Type == format.DataPageV2 && h.DataPageHeaderV2.Valid {
		v2 := h.DataPageHeaderV2.V
		n := int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
		if n < 0 || n > int64(len(body)) || n > full {
			return fmt.Errorf("v2 page: levels of %d bytes in %d: %w", n, len(body), ErrParquet)
		}
		levels, body, full = body[:n], body[n:], full-n
		if c, ok := v2.IsCompressed.Get(); ok && !c {
			codec, full = format.Uncompressed, int64(len(body))
		}
	}
	decoded, err := checkCompressed(codec, body, int64(len(body)), full)
	if err != nil {
		return err
	}
	if err := pagecodec.CheckValues(h, levels, pagecodec.NewBody(codec, body, full, decoded), leaf.column()); err != nil {
		return fmt.Errorf("%v: %w", err, ErrParquet)
	}
	return nil
}

// chunkValues is how a column chunk's data pages hold its values.
type chunkValues uint8

const (
	storedValues         chunkValues = iota // no dictionary: each page holds its values
	dictionaryOnly                          // a dictionary page, and data pages of its indexes
	dictionaryFallenBack                    // a dictionary, then data pages of values: its writer fell back (pyarrow past 1 MiB of dictionary)
)
