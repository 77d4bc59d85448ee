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

// pageLevels splits a data page into its definition levels (nil for a
// required column) and its encoded values, decompressed.
func pageLevels(h *format.PageHeader, body []byte, isV2 bool, codec compress.Codec, leaf leafInfo) (defs []byte, vals []byte, err error) {
	var entries int
	if isV2 {
		dh := h.DataPageHeaderV2.V
		entries = int(dh.NumValues)
		dl, rl := int(dh.DefinitionLevelsByteLength), int(dh.RepetitionLevelsByteLength)
		if rl != 0 || dl < 0 || dl > len(body) || (leaf.maxDef == 0 && dl != 0) {
			return nil, nil, fmt.Errorf("v2 level lengths %d, %d: %w", rl, dl, errNoSplice)
		}
		levels := body[:dl]
		vals = body[dl:]
		if c, ok := dh.IsCompressed.Get(); !ok || c {
			if vals, err = decompress(codec, vals, int64(h.UncompressedPageSize)-int64(dl)); err != nil {
				return nil, nil, fmt.Errorf("decompress page: %v: %w", err, errNoSplice)
			}
		}
		if err := pagecodec.CheckValues(h, levels, pagecodec.Decoded(vals), leaf.column()); err != nil {
			return nil, nil, fmt.Errorf("page: %v: %w", err, ErrParquet)
		}
		if leaf.maxDef > 0 {
			enc := rle.Encoding{BitWidth: bits.Len(uint(leaf.maxDef))}
			if defs, err = enc.DecodeLevels(nil, levels); err != nil {
				return nil, nil, fmt.Errorf("definition levels: %v: %w", err, errNoSplice)
			}
		}
	} else {
		dh := h.DataPageHeader.V
		entries = int(dh.NumValues)
		data, err := decompress(codec, body, int64(h.UncompressedPageSize))
		if err != nil {
			return nil, nil, fmt.Errorf("decompress page: %v: %w", err, errNoSplice)
		}
		if err := pagecodec.CheckValues(h, nil, pagecodec.Decoded(data), leaf.column()); err != nil {
			return nil, nil, fmt.Errorf("page: %v: %w", err, ErrParquet)
		}
		if leaf.maxDef > 0 {
			if dh.DefinitionLevelEncoding != format.RLE {
				return nil, nil, fmt.Errorf("definition levels encoded %v: %w", dh.DefinitionLevelEncoding, errNoSplice)
			}
			if len(data) < 4 {
				return nil, nil, fmt.Errorf("truncated levels: %w", errNoSplice)
			}
			n := int(binary.LittleEndian.Uint32(data))
			if n < 0 || n > len(data)-4 {
				return nil, nil, fmt.Errorf("levels of %d bytes: %w", n, errNoSplice)
			}
			enc := rle.Encoding{BitWidth: bits.Len(uint(leaf.maxDef))}
			if defs, err = enc.DecodeLevels(nil, data[4:4+n]); err != nil {
				return nil, nil, fmt.Errorf("definition levels: %v: %w", err, errNoSplice)
			}
			data = data[4+n:]
		}
		vals = data
	}
	if leaf.maxDef > 0 {
		if len(defs) < entries {
			return nil, nil, fmt.Errorf("%d definition levels, %d values: %w", len(defs), entries, errNoSplice)
		}
		defs = defs[:entries]
		for _, d := range defs {
			if int(d) > leaf.maxDef {
				return nil, nil, fmt.Errorf("definition level %d above %d: %w", d, leaf.maxDef, errNoSplice)
			}
		}
	}
	return defs, vals, nil
}

// pageNulls counts the nulls of a data page.
func pageNulls(h *format.PageHeader, body []byte, isV2 bool, codec compress.Codec, leaf leafInfo) (int64, error) {
	defs, _, err := pageLevels(h, body, isV2, codec, leaf)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, d := range defs {
		if int(d) < leaf.maxDef {
			n++
		}
	}
	return n, nil
}

// rewritePage re-encodes a data page whose first row is row without the
// deleted rows (which lie in the page and are not all of it). Values keep
// their encoding (PLAIN, or dictionary indexes into the chunk's unchanged
// dictionary); the page keeps its version and codec.
func rewritePage(h *format.PageHeader, body []byte, isV2 bool, codec compress.Codec, leaf leafInfo, deleted []int64, row int64) (newPage, error) {
	defs, vals, err := pageLevels(h, body, isV2, codec, leaf)
	if err != nil {
		return newPage{}, err
	}
	entries, enc := int(pageEntries(h)), pageEncoding(h)
	// keep[i]: value i (among the non-null ones) stays.
	present := entries
	if defs != nil {
		present = 0
		for _, d := range defs {
			if int(d) == leaf.maxDef {
				present++
			}
		}
	}
	keep := make([]bool, present)
	var newDefs []byte
	var removedNulls, nulls int64
	vi := 0
	di := 0
	for e := range entries {
		gone := di < len(deleted) && deleted[di] == row+int64(e)
		if gone {
			di++
		}
		isNull := defs != nil && int(defs[e]) < leaf.maxDef
		if isNull {
			if gone {
				removedNulls++
			} else {
				nulls++
			}
		} else {
			keep[vi] = !gone
			vi++
		}
		if defs != nil && !gone {
			newDefs = append(newDefs, defs[e])
		}
	}
	if di != len(deleted) {
		return newPage{}, fmt.Errorf("deleted rows outside the page: %w", ErrParquet)
	}
	kept := entries - len(deleted)
	newVals, err := filterValues(enc, vals, keep, leaf)
	if err != nil {
		return newPage{}, err
	}
	newEnc := enc
	switch enc {
	case format.Plain, format.PlainDictionary, format.RLEDictionary:
	default:
		newEnc = format.Plain // filterValues decoded them
	}
	var levels []byte
	if defs != nil {
		le := rle.Encoding{BitWidth: bits.Len(uint(leaf.maxDef))}
		if levels, err = le.EncodeLevels(nil, newDefs); err != nil {
			return newPage{}, fmt.Errorf("encode levels: %v: %w", err, errNoSplice)
		}
	}
	nh := format.PageHeader{Type: h.Type}
	var payload []byte
	if isV2 {
		dh := h.DataPageHeaderV2.V
		compressedVals := newVals
		if c, ok := dh.IsCompressed.Get(); !ok || c {
			if compressedVals, err = codec.Encode(nil, newVals); err != nil {
				return newPage{}, fmt.Errorf("compress page: %v: %w", err, errNoSplice)
			}
		}
		payload = append(append(make([]byte, 0, len(levels)+len(compressedVals)), levels...), compressedVals...)
		nh.UncompressedPageSize = int32(len(levels) + len(newVals))
		nh.CompressedPageSize = int32(len(payload))
		ndh := format.DataPageHeaderV2{
			NumValues:                  int32(kept),
			NumNulls:                   int32(nulls),
			NumRows:                    int32(kept),
			Encoding:                   newEnc,
			DefinitionLevelsByteLength: int32(len(levels)),
			IsCompressed:               dh.IsCompressed,
			Statistics:                 format.Statistics{NullCount: nulls},
		}
		nh.DataPageHeaderV2.Set(ndh)
	} else {
		var raw []byte
		if defs != nil {
			raw = binary.LittleEndian.AppendUint32(raw, uint32(len(levels)))
			raw = append(raw, levels...)
		}
		raw = append(raw, newVals...)
		if payload, err = codec.Encode(nil, raw); err != nil {
			return newPage{}, fmt.Errorf("compress page: %v: %w", err, errNoSplice)
		}
		nh.UncompressedPageSize = int32(len(raw))
		nh.CompressedPageSize = int32(len(payload))
		ndh := format.DataPageHeader{
			NumValues:               int32(kept),
			Encoding:                newEnc,
			DefinitionLevelEncoding: format.RLE,
			RepetitionLevelEncoding: format.RLE,
			Statistics:              format.Statistics{NullCount: nulls},
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
		removedNulls: removedNulls,
		nulls:        nulls,
		enc:          newEnc,
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
