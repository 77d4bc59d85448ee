package parquetview

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// The conversion of a leaf's values, page by page: INT96 instants to INT64
// microseconds (int96.go), a type to the wider one a table widened it to
// (widen.go). Only the leaf's column chunks change: a dictionary page's
// values, and the data pages that store values PLAIN; data pages of
// dictionary indexes are copied, and levels are kept as stored.

// pageConversion is how one leaf's PLAIN values are converted.
type pageConversion struct {
	out     format.Type                        // the physical type served
	convert func(plain []byte) ([]byte, error) // PLAIN values stored to PLAIN values served
	// keepSize: the file is served in its stored size (INT96), so a
	// page is made no larger than stored where an encoding can.
	keepSize bool
	// cannot wraps the errors of pages the conversion cannot take (an
	// encoding, a codec, a page type).
	cannot error
	// decodes: data pages of other encodings than PLAIN and dictionary
	// indexes (DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT) are decoded first.
	decodes bool
}

// errWhole marks a column chunk a conversion cannot take page by page: its
// row group is re-encoded whole, by parquet-go.
var errWhole = errors.New("re-encoded whole")

// int96Conversion converts INT96 instants.
var int96Conversion = &pageConversion{out: format.Int64, convert: int96Values, keepSize: true, cannot: errInt96}

// pageConversions returns, per leaf of schema, how its pages are
// converted (nil where they are not; nil when none is), and whether a
// widening cannot be done page by page (then every row group is
// re-encoded whole, by parquet-go).
func pageConversions(schema []format.SchemaElement, widen []*widening, int96 []bool) (conv []*pageConversion, whole bool) {
	leaf := 0
	for i := 1; i < len(schema); i++ {
		if schema[i].NumChildren.V > 0 {
			continue
		}
		var pc *pageConversion
		switch {
		case leaf < len(int96) && int96[leaf]:
			pc = int96Conversion
		case leaf < len(widen) && widen[leaf] != nil && !widen[leaf].sameValues:
			if pc = widen[leaf].pages(&schema[i]); pc == nil {
				return nil, true
			}
		}
		if pc != nil {
			if conv == nil {
				conv = make([]*pageConversion, max(len(widen), len(int96)))
			}
			conv[leaf] = pc
		}
		leaf++
	}
	return conv, false
}

// convertChunk lays out column chunk cc of a leaf with its values
// converted by pc: pages of dictionary indexes copied from src, the
// others converted in memory.
func convertChunk(ctx context.Context, src RangeReader, cc *format.ColumnChunk, leaf leafInfo, pc *pageConversion, dataEnd int64) (splicedChunk, error) {
	start, end, err := chunkRange(cc, dataEnd)
	if err != nil {
		return splicedChunk{}, err
	}
	// The chunk is read in one request (one column's values are a fraction
	// of the file); pages of dictionary indexes are then served from src.
	data, err := readFull(ctx, src, start, end-start)
	if err != nil {
		return splicedChunk{}, err
	}
	return convertPages(ctx, data, start, cc.MetaData, leaf, pc)
}

// convertSpliced converts a column chunk that splicing laid out (rows
// deleted), its pieces read from src.
func convertSpliced(ctx context.Context, src RangeReader, sc splicedChunk, leaf leafInfo, pc *pageConversion) (splicedChunk, error) {
	data := make([]byte, 0, sc.size)
	for _, p := range sc.pieces {
		b := p.data
		if b == nil {
			var err error
			if b, err = readFull(ctx, src, p.src, p.n); err != nil {
				return splicedChunk{}, err
			}
		}
		data = append(data, b...)
	}
	m := sc.meta
	m.DataPageOffset, m.DictionaryPageOffset = sc.dataOff, 0
	if sc.dictOff >= 0 {
		m.DictionaryPageOffset = sc.dictOff
	}
	return convertPages(ctx, data, -1, m, leaf, pc)
}

// convertPages converts the pages of a column chunk (data, metadata m),
// whose first byte lies at start in the source, or nowhere there (-1): its
// pages of dictionary indexes are then copied from data.
func convertPages(ctx context.Context, data []byte, start int64, m format.ColumnMetaData, leaf leafInfo, pc *pageConversion) (splicedChunk, error) {
	leaf.typ = m.Type // as stored
	codec := pagecodec.Lookup(m.Codec)
	if codec.String() == "UNSUPPORTED" {
		return splicedChunk{}, fmt.Errorf("compression codec %v: %w", m.Codec, pc.cannot)
	}
	sc := splicedChunk{dictOff: -1, dataOff: -1}
	var uncompressed int64
	for off := int64(0); off < int64(len(data)); {
		if err := ctx.Err(); err != nil {
			return splicedChunk{}, err
		}
		h, hlen, err := readPageHeader(ctx, bytesRange(data), off, int64(len(data)))
		if err != nil {
			return splicedChunk{}, fmt.Errorf("%v: %w", err, ErrParquet)
		}
		size := int64(h.CompressedPageSize)
		if size < 0 || h.UncompressedPageSize < 0 || off+hlen+size > int64(len(data)) {
			return splicedChunk{}, fmt.Errorf("page %d bytes into its chunk overruns it: %w", off, ErrParquet)
		}
		body := off + hlen
		var enc format.Encoding
		switch h.Type {
		case format.DictionaryPage:
			enc = format.Plain
			sc.dictOff = sc.size
		case format.DataPage:
			enc = h.DataPageHeader.V.Encoding
		case format.DataPageV2:
			enc = h.DataPageHeaderV2.V.Encoding
		default:
			return splicedChunk{}, fmt.Errorf("page of type %v %d bytes into its chunk: %w", h.Type, off, pc.cannot)
		}
		if h.Type != format.DictionaryPage && sc.dataOff < 0 {
			sc.dataOff = sc.size
		}
		switch enc {
		case format.PlainDictionary, format.RLEDictionary:
			if h.Type != format.DictionaryPage {
				if start >= 0 {
					sc.pieces = append(sc.pieces, piece{src: start + off, n: hlen + size})
				} else {
					sc.pieces = append(sc.pieces, piece{n: hlen + size, data: data[off : body+size]})
				}
				sc.size += hlen + size
				uncompressed += hlen + int64(h.UncompressedPageSize)
				off = body + size
				continue
			}
		case format.Plain:
		default:
			if !pc.decodes || h.Type == format.DictionaryPage {
				return splicedChunk{}, fmt.Errorf("%v page encoded %v: %w", m.Type, enc, pc.cannot)
			}
		}
		page, enc, full, err := convertPage(h, data[body:body+size], codec, leaf, pc)
		if err != nil {
			return splicedChunk{}, err
		}
		if !slices.Contains(m.Encoding, enc) {
			m.Encoding = append(slices.Clone(m.Encoding), enc)
			m.EncodingStats = nil // what a stored chunk's say no longer holds
		}
		sc.pieces = append(sc.pieces, piece{n: int64(len(page)), data: page})
		sc.size += int64(len(page))
		uncompressed += full
		off = body + size
	}
	if sc.dataOff < 0 {
		return splicedChunk{}, fmt.Errorf("column chunk without data pages: %w", ErrParquet)
	}
	m.Type = pc.out
	m.TotalCompressedSize, m.TotalUncompressedSize = sc.size, uncompressed
	m.Statistics = format.Statistics{NullCount: m.Statistics.NullCount, DistinctCount: m.Statistics.DistinctCount}
	m.SizeStatistics = format.SizeStatistics{}
	sc.meta = m
	return sc, nil
}

// convertPage converts one page of PLAIN values (stored: its body as
// stored) and returns it, header included, with the encoding of its
// values and its uncompressed size (header included, as a chunk counts
// it). The page keeps its codec and version; statistics of the stored
// values are dropped.
func convertPage(h *format.PageHeader, stored []byte, codec compress.Codec, leaf leafInfo, pc *pageConversion) ([]byte, format.Encoding, int64, error) {
	var levels []byte // stored uncompressed ahead of the values (v2)
	compressed := true
	vals := stored
	if h.Type == format.DataPage && !h.DataPageHeader.Valid || h.Type == format.DataPageV2 && !h.DataPageHeaderV2.Valid {
		return nil, 0, 0, fmt.Errorf("data page without its header: %w", ErrParquet)
	}
	if h.Type == format.DataPageV2 {
		v2 := &h.DataPageHeaderV2.V
		n := int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
		if v2.RepetitionLevelsByteLength < 0 || v2.DefinitionLevelsByteLength < 0 || n > int64(len(stored)) || n > int64(h.UncompressedPageSize) {
			return nil, 0, 0, fmt.Errorf("v2 page: levels of %d bytes in %d: %w", n, len(stored), ErrParquet)
		}
		levels, vals = stored[:n], stored[n:]
		if c, ok := v2.IsCompressed.Get(); ok && !c {
			compressed = false
		}
		v2.Statistics = format.Statistics{NullCount: v2.Statistics.NullCount}
	}
	plain := vals
	if compressed {
		var err error
		if plain, err = decompress(codec, vals, int64(h.UncompressedPageSize)-int64(len(levels))); err != nil {
			return nil, 0, 0, err
		}
	}
	head := 0       // v1: bytes of levels ahead of the values, inside the compressed body
	var defs []byte // the definition levels, hybrid-encoded
	if h.Type == format.DataPageV2 && leaf.maxDef > 0 {
		defs = levels[h.DataPageHeaderV2.V.RepetitionLevelsByteLength:]
	}
	if h.Type == format.DataPage {
		dh := &h.DataPageHeader.V
		for i, present := range []bool{leaf.maxRep > 0, leaf.maxDef > 0} {
			if !present {
				continue
			}
			if len(plain)-head < 4 {
				return nil, 0, 0, fmt.Errorf("truncated levels: %w", ErrParquet)
			}
			n := int(binary.LittleEndian.Uint32(plain[head:]))
			if n < 0 || n > len(plain)-head-4 {
				return nil, 0, 0, fmt.Errorf("levels of %d bytes: %w", n, ErrParquet)
			}
			if i == 1 {
				defs = plain[head+4 : head+4+n]
			}
			head += 4 + n
		}
		if (leaf.maxRep > 0 && dh.RepetitionLevelEncoding != format.RLE) || (leaf.maxDef > 0 && dh.DefinitionLevelEncoding != format.RLE) {
			return nil, 0, 0, fmt.Errorf("levels encoded %v, %v: %w", dh.RepetitionLevelEncoding, dh.DefinitionLevelEncoding, pc.cannot)
		}
		dh.Statistics = format.Statistics{NullCount: dh.Statistics.NullCount}
	}
	vals = plain[head:]
	if enc := pageEncoding(h); h.Type != format.DictionaryPage && enc != format.Plain {
		var err error
		if vals, err = decodedValues(h, levels, defs, plain, vals, leaf); err != nil {
			return nil, 0, 0, fmt.Errorf("%v values: %w (%w)", enc, err, pc.cannot)
		}
	}
	values, err := pc.convert(vals)
	if err != nil {
		return nil, 0, 0, err
	}
	room := len(stored) - len(levels) // what the body may take
	if !pc.keepSize {
		room = math.MaxInt
	}
	enc, conv, body, err := smallerEncoding(h.Type != format.DictionaryPage && pc.out == format.Int64, plain[:head], values, room, compressed, codec)
	if err != nil {
		return nil, 0, 0, err
	}
	switch h.Type {
	case format.DataPage:
		h.DataPageHeader.V.Encoding = enc
	case format.DataPageV2:
		h.DataPageHeaderV2.V.Encoding = enc
	}
	h.UncompressedPageSize = int32(len(levels) + len(conv))
	h.CompressedPageSize = int32(len(levels) + len(body))
	h.CRC = 0
	header, err := thrift.Marshal(new(thrift.CompactProtocol), h)
	if err != nil {
		return nil, 0, 0, err
	}
	page := append(append(header, levels...), body...)
	return page, enc, int64(len(header)) + int64(h.UncompressedPageSize), nil
}

// decodedValues decodes vals, the values of a data page of definition
// levels defs (hybrid-encoded; nil for a required leaf), into PLAIN, once
// the page (a v2 page's levels, its decompressed body) is checked for
// what its encodings claim.
func decodedValues(h *format.PageHeader, levels, defs, body, vals []byte, leaf leafInfo) ([]byte, error) {
	if err := pagecodec.CheckValues(h, levels, pagecodec.Decoded(body), leaf.column()); err != nil {
		return nil, err
	}
	stored := pageEntries(h)
	if leaf.maxDef > 0 {
		expanded, err := expandLevels(defs, stored, leaf)
		if err != nil {
			return nil, err
		}
		stored = int64(bytes.Count(expanded, []byte{byte(leaf.maxDef)}))
	}
	return toPlain(pageEncoding(h), vals, int(stored), leaf)
}

// smallerEncoding encodes converted values (PLAIN) after head (a v1
// page's levels), compressed when compressed, no larger than the stored
// body (stored bytes) where it can: a data page of INT64 values (delta)
// also tries DELTA_BINARY_PACKED (small for timestamps close to each
// other, which may compress better as INT96 than as INT64), and Snappy its
// slower, denser mode. It returns the encoding, the uncompressed body and
// the body.
func smallerEncoding(tryDelta bool, head, values []byte, stored int, compressed bool, codec compress.Codec) (format.Encoding, []byte, []byte, error) {
	encode := func(vals []byte, dense bool) ([]byte, []byte, error) {
		raw := append(head[:len(head):len(head)], vals...)
		if !compressed {
			return raw, raw, nil
		}
		var body []byte
		var err error
		if dense {
			body, err = codec.Encode(nil, raw)
		} else {
			body, err = pagecodec.Encode(codec.CompressionCodec(), nil, raw)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("compress: %v: %w", err, ErrParquet)
		}
		return raw, body, nil
	}
	enc := format.Plain
	raw, body, err := encode(values, false)
	if err != nil || len(body) <= stored {
		return enc, raw, body, err
	}
	if tryDelta {
		ints := make([]int64, len(values)/8)
		for i := range ints {
			ints[i] = int64(binary.LittleEndian.Uint64(values[8*i:]))
		}
		dv, err := new(delta.BinaryPackedEncoding).EncodeInt64(nil, ints)
		if err != nil {
			return 0, nil, nil, fmt.Errorf("delta encode: %v: %w", err, ErrParquet)
		}
		if r, b, err := encode(dv, false); err == nil && len(b) < len(body) {
			enc, raw, body, values = format.DeltaBinaryPacked, r, b, dv
		}
	}
	if len(body) > stored && compressed && codec.CompressionCodec() == format.Snappy {
		if r, b, err := encode(values, true); err == nil && len(b) < len(body) {
			raw, body = r, b
		}
	}
	return enc, raw, body, nil
}

// convertChunks converts the chunks of the leaves conv converts (nil
// where none) of the row groups that lose no row to vec, on every core,
// and returns them by row group and column (nil where not converted). A
// row group one of whose chunks a conversion cannot take page by page
// (errWhole) is left nil, for parquet-go to re-encode it whole.
func convertChunks(ctx context.Context, src RangeReader, md *format.FileMetaData, vec Rows, conv []*pageConversion, lv []leafInfo, dataEnd int64) ([][]*splicedChunk, error) {
	type job struct{ i, j int }
	var jobs []job
	out := make([][]*splicedChunk, len(md.RowGroups))
	var first uint64
	for i := range md.RowGroups {
		rg := &md.RowGroups[i]
		if vec.CountRange(first, first+uint64(rg.NumRows)) == 0 {
			out[i] = make([]*splicedChunk, len(rg.Columns))
			for j := range rg.Columns {
				if j < len(conv) && conv[j] != nil && j < len(lv) {
					jobs = append(jobs, job{i, j})
				}
			}
		}
		first += uint64(rg.NumRows)
	}
	errs := make([]error, len(jobs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for k := int(next.Add(1)) - 1; k < len(jobs); k = int(next.Add(1)) - 1 {
				errs[k] = func() (err error) {
					jb := jobs[k]
					defer func() {
						if p := recover(); p != nil { // a bad file, not a reason to take the mount down
							err = fmt.Errorf("converting values panicked: %v: %w", p, ErrParquet)
						}
						if err != nil {
							err = fmt.Errorf("row group %d: column %d: %w", jb.i, jb.j, err)
						}
					}()
					sc, err := convertChunk(ctx, src, &md.RowGroups[jb.i].Columns[jb.j], lv[jb.j], conv[jb.j], dataEnd)
					out[jb.i][jb.j] = &sc
					return err
				}()
			}
		})
	}
	wg.Wait()
	for k, err := range errs {
		if errors.Is(err, errWhole) {
			out[jobs[k].i], errs[k] = nil, nil
		}
	}
	return out, errors.Join(errs...)
}
