package parquetview

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// Rewriting one data page without its deleted rows: splitting it into
// levels and values, and re-encoding what is kept.

// newPage is a re-encoded data page: header and body.
type newPage struct {
	bytes                    []byte
	compressed, uncompressed int
	entries                  int64
	removedNulls             int64
	nulls                    int64           // kept
	enc                      format.Encoding // of the values
}

// pageParts splits a data page into its definition levels, still
// hybrid-encoded (nil for a required column), and its encoded values,
// decompressed; entries is the page's count of levels.
func pageParts(h *format.PageHeader, body []byte, isV2 bool, codec compress.Codec, leaf leafInfo) (levels, vals []byte, entries int64, err error) {
	if isV2 {
		dh := h.DataPageHeaderV2.V
		entries = int64(dh.NumValues)
		dl, rl := int(dh.DefinitionLevelsByteLength), int(dh.RepetitionLevelsByteLength)
		if rl != 0 || dl < 0 || dl > len(body) || (leaf.maxDef == 0 && dl != 0) {
			return nil, nil, 0, fmt.Errorf("v2 level lengths %d, %d: %w", rl, dl, errNoSplice)
		}
		levels = body[:dl]
		vals = body[dl:]
		if c, ok := dh.IsCompressed.Get(); !ok || c {
			if vals, err = decompress(codec, vals, int64(h.UncompressedPageSize)-int64(dl)); err != nil {
				return nil, nil, 0, fmt.Errorf("decompress page: %v: %w", err, errNoSplice)
			}
		}
		if err := pagecodec.CheckValues(h, levels, pagecodec.Decoded(vals), leaf.column()); err != nil {
			return nil, nil, 0, fmt.Errorf("page: %v: %w", err, ErrParquet)
		}
	} else {
		dh := h.DataPageHeader.V
		entries = int64(dh.NumValues)
		data, err := decompress(codec, body, int64(h.UncompressedPageSize))
		if err != nil {
			return nil, nil, 0, fmt.Errorf("decompress page: %v: %w", err, errNoSplice)
		}
		if err := pagecodec.CheckValues(h, nil, pagecodec.Decoded(data), leaf.column()); err != nil {
			return nil, nil, 0, fmt.Errorf("page: %v: %w", err, ErrParquet)
		}
		if leaf.maxDef > 0 {
			if dh.DefinitionLevelEncoding != format.RLE {
				return nil, nil, 0, fmt.Errorf("definition levels encoded %v: %w", dh.DefinitionLevelEncoding, errNoSplice)
			}
			if len(data) < 4 {
				return nil, nil, 0, fmt.Errorf("truncated levels: %w", errNoSplice)
			}
			n := int(binary.LittleEndian.Uint32(data))
			if n < 0 || n > len(data)-4 {
				return nil, nil, 0, fmt.Errorf("levels of %d bytes: %w", n, errNoSplice)
			}
			levels, data = data[4:4+n], data[4+n:]
		}
		vals = data
	}
	return levels, vals, entries, nil
}

// pageLevels splits a data page into its definition levels, one byte each
// (nil for a required column), and its encoded values, decompressed.
func pageLevels(h *format.PageHeader, body []byte, isV2 bool, codec compress.Codec, leaf leafInfo) (defs []byte, vals []byte, err error) {
	levels, vals, entries, err := pageParts(h, body, isV2, codec, leaf)
	if err != nil {
		return nil, nil, err
	}
	defs, err = expandLevels(levels, entries, leaf)
	return defs, vals, err
}

// expandLevels decodes entries definition levels, one byte each (nil for
// a required column).
func expandLevels(levels []byte, entries int64, leaf leafInfo) ([]byte, error) {
	if leaf.maxDef == 0 {
		return nil, nil
	}
	enc := rle.Encoding{BitWidth: bits.Len(uint(leaf.maxDef))}
	defs, err := enc.DecodeLevels(nil, levels)
	if err != nil {
		return nil, fmt.Errorf("definition levels: %v: %w", err, errNoSplice)
	}
	if int64(len(defs)) < entries {
		return nil, fmt.Errorf("%d definition levels, %d values: %w", len(defs), entries, errNoSplice)
	}
	defs = defs[:entries]
	for _, d := range defs {
		if int(d) > leaf.maxDef {
			return nil, fmt.Errorf("definition level %d above %d: %w", d, leaf.maxDef, errNoSplice)
		}
	}
	return defs, nil
}

// pageNulls counts the nulls of a data page: level by level, or run by
// run where its runs claim more levels than its bytes (see denseEntries).
func pageNulls(h *format.PageHeader, body []byte, isV2 bool, codec compress.Codec, leaf leafInfo) (int64, error) {
	levels, vals, entries, err := pageParts(h, body, isV2, codec, leaf)
	if err != nil || leaf.maxDef == 0 {
		return 0, err
	}
	var nulls int64
	if entries <= denseEntries(len(levels)+len(vals)) {
		defs, err := expandLevels(levels, entries, leaf)
		for _, d := range defs {
			if int(d) < leaf.maxDef {
				nulls++
			}
		}
		return nulls, err
	}
	top := uint32(0)
	err = walkHybrid(levels, bits.Len(uint(leaf.maxDef)), entries, func(v uint32, n int64) {
		top = max(top, v)
		if int(v) < leaf.maxDef {
			nulls += n
		}
	})
	if err != nil {
		return 0, fmt.Errorf("definition levels: %w", err)
	}
	if int(top) > leaf.maxDef {
		return 0, fmt.Errorf("definition level %d above %d: %w", top, leaf.maxDef, errNoSplice)
	}
	return nulls, nil
}

// rewritePage re-encodes a data page whose first row is row without the
// deleted rows (runs that lie in the page and are not all of it). Values
// keep their encoding (PLAIN, or dictionary indexes into the chunk's
// unchanged dictionary; RLE booleans cut run by run too; others become
// PLAIN); the page keeps its version and codec.
func rewritePage(h *format.PageHeader, body []byte, isV2 bool, codec compress.Codec, leaf leafInfo, deleted deletions, row int64) (newPage, error) {
	levels, vals, entries, err := pageParts(h, body, isV2, codec, leaf)
	if err != nil {
		return newPage{}, err
	}
	gone := make(deletions, len(deleted)) // positions in the page
	for i, r := range deleted {
		gone[i] = rowRun{r.lo - row, r.hi - row}
	}
	if k := len(gone) - 1; k < 0 || gone[0].lo < 0 || gone[k].hi > entries {
		return newPage{}, fmt.Errorf("deleted rows outside the page: %w", ErrParquet)
	}
	cut := cutValueByValue
	if entries > denseEntries(len(levels)+len(vals)) {
		cut = cutRunByRun
	}
	c, err := cut(levels, vals, entries, gone, pageEncoding(h), leaf)
	if err != nil {
		return newPage{}, err
	}
	kept := entries - gone.count()
	nh := format.PageHeader{Type: h.Type}
	var payload []byte
	if isV2 {
		dh := h.DataPageHeaderV2.V
		compressedVals := c.vals
		if compressed, ok := dh.IsCompressed.Get(); !ok || compressed {
			if compressedVals, err = codec.Encode(nil, c.vals); err != nil {
				return newPage{}, fmt.Errorf("compress page: %v: %w", err, errNoSplice)
			}
		}
		payload = append(append(make([]byte, 0, len(c.levels)+len(compressedVals)), c.levels...), compressedVals...)
		nh.UncompressedPageSize = int32(len(c.levels) + len(c.vals))
		nh.CompressedPageSize = int32(len(payload))
		ndh := format.DataPageHeaderV2{
			NumValues:                  int32(kept),
			NumNulls:                   int32(c.nulls),
			NumRows:                    int32(kept),
			Encoding:                   c.enc,
			DefinitionLevelsByteLength: int32(len(c.levels)),
			IsCompressed:               dh.IsCompressed,
			Statistics:                 format.Statistics{NullCount: c.nulls},
		}
		nh.DataPageHeaderV2.Set(ndh)
	} else {
		var raw []byte
		if leaf.maxDef > 0 {
			raw = binary.LittleEndian.AppendUint32(raw, uint32(len(c.levels)))
			raw = append(raw, c.levels...)
		}
		raw = append(raw, c.vals...)
		if payload, err = codec.Encode(nil, raw); err != nil {
			return newPage{}, fmt.Errorf("compress page: %v: %w", err, errNoSplice)
		}
		nh.UncompressedPageSize = int32(len(raw))
		nh.CompressedPageSize = int32(len(payload))
		ndh := format.DataPageHeader{
			NumValues:               int32(kept),
			Encoding:                c.enc,
			DefinitionLevelEncoding: format.RLE,
			RepetitionLevelEncoding: format.RLE,
			Statistics:              format.Statistics{NullCount: c.nulls},
		}
		nh.DataPageHeader.Set(ndh)
	}
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &nh)
	if err != nil {
		return newPage{}, fmt.Errorf("encode page header: %v: %w", err, errNoSplice)
	}
	out := append(hb, payload...)
	return newPage{
		bytes:        out,
		compressed:   len(payload),
		uncompressed: int(nh.UncompressedPageSize),
		entries:      int64(kept),
		removedNulls: c.removedNulls,
		nulls:        c.nulls,
		enc:          c.enc,
	}, nil
}

// pageEntries is the number of level entries a data page's header gives.
func pageEntries(h *format.PageHeader) int64 {
	if h.Type == format.DataPageV2 {
		return int64(h.DataPageHeaderV2.V.NumValues)
	}
	return int64(h.DataPageHeader.V.NumValues)
}

// pageEncoding is the encoding of a data page's values.
func pageEncoding(h *format.PageHeader) format.Encoding {
	if h.Type == format.DataPageV2 {
		return h.DataPageHeaderV2.V.Encoding
	}
	return h.DataPageHeader.V.Encoding
}

// dictionaryEncoding reports whether values encoded e are indexes into
// the chunk's dictionary.
func dictionaryEncoding(e format.Encoding) bool {
	return e == format.RLEDictionary || e == format.PlainDictionary
}
