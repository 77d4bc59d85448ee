package dvfilter

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// pageSplicing enables the page-level path for row groups that lose some
// rows: pages holding no deleted row are copied byte for byte (as source
// ranges of the view) and only pages holding deleted rows are decoded,
// filtered and re-encoded. Row groups the path cannot handle (repeated
// columns, encodings other than PLAIN and dictionary, unusual headers) are
// re-encoded whole by the reencoder, as are all row groups when this is
// false.
const pageSplicing = true

// errNoSplice is wrapped by the reasons the page-level path declines a row
// group; Build then re-encodes the row group whole.
var errNoSplice = errors.New("row group not spliceable page by page")

// leafInfo is what page splicing needs to know about a leaf column.
type leafInfo struct {
	maxDef, maxRep int
	typeLength     int         // FIXED_LEN_BYTE_ARRAY width
	typ            format.Type // physical type, from the chunk
}

// leaves walks the flattened schema of a footer (depth first, NumChildren
// giving the shape) and returns its leaf columns in order.
func leaves(schema []format.SchemaElement) ([]leafInfo, error) {
	var out []leafInfo
	pos := 0
	var walk func(def, rep, depth int) error
	walk = func(def, rep, depth int) error {
		if pos >= len(schema) || depth > 1000 {
			return fmt.Errorf("schema ends early: %w", ErrParquet)
		}
		e := &schema[pos]
		pos++
		if depth > 0 { // the root's repetition does not count
			if rt, ok := e.RepetitionType.Get(); ok {
				switch rt {
				case format.Optional:
					def++
				case format.Repeated:
					def++
					rep++
				}
			}
		}
		n, _ := e.NumChildren.Get()
		if n <= 0 && depth > 0 {
			tl, _ := e.TypeLength.Get()
			out = append(out, leafInfo{maxDef: def, maxRep: rep, typeLength: int(tl)})
			return nil
		}
		for range n {
			if err := walk(def, rep, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(0, 0, 0); err != nil {
		return nil, err
	}
	if pos != len(schema) {
		return nil, fmt.Errorf("schema has %d elements past its tree: %w", len(schema)-pos, ErrParquet)
	}
	return out, nil
}

// piece is part of a spliced column chunk: a source range, or new bytes.
type piece struct {
	src, n int64
	data   []byte
}

// splicedChunk is a column chunk laid out by the page-level path, before
// it gets its place in the view.
type splicedChunk struct {
	meta      format.ColumnMetaData
	pieces    []piece
	dictOff   int64 // offset of the dictionary page in the chunk, -1 if none
	dataOff   int64 // offset of the first data page in the chunk
	size      int64
	rewritten int // pages re-encoded
}

// spliceRowGroup builds the filtered form of a row group (first row index
// first) page by page. It returns an error wrapping errNoSplice when the
// row group needs the whole-row-group path; any other error is final.
// Nothing is added to b unless it succeeds.
func spliceRowGroup(ctx context.Context, b *viewBuilder, src RangeReader, md *format.FileMetaData, rg *format.RowGroup, first int64, vec *Vector, dataEnd int64) (format.RowGroup, int, error) {
	lv, err := leaves(md.Schema)
	if err != nil {
		return format.RowGroup{}, 0, fmt.Errorf("%v: %w", err, errNoSplice)
	}
	if len(lv) != len(rg.Columns) || len(rg.Columns) == 0 {
		return format.RowGroup{}, 0, fmt.Errorf("%d leaf columns, %d chunks: %w", len(lv), len(rg.Columns), errNoSplice)
	}
	for _, l := range lv {
		if l.maxRep > 0 {
			return format.RowGroup{}, 0, fmt.Errorf("repeated column: %w", errNoSplice)
		}
	}
	var deleted []int64 // row indexes within the row group, ascending
	vec.ForEachInRange(uint64(first), uint64(first+rg.NumRows), func(r uint64) bool {
		deleted = append(deleted, int64(r)-first)
		return true
	})
	chunks := make([]splicedChunk, len(rg.Columns))
	errs := make([]error, len(rg.Columns))
	sem := make(chan struct{}, max(runtime.GOMAXPROCS(0), 1))
	var wg sync.WaitGroup
	for j := range rg.Columns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() {
				if p := recover(); p != nil {
					errs[j] = fmt.Errorf("splicing panicked: %v: %w", p, errNoSplice)
				}
				<-sem
				wg.Done()
			}()
			chunks[j], errs[j] = spliceChunk(ctx, src, &rg.Columns[j], lv[j], rg.NumRows, deleted, dataEnd)
		}()
	}
	wg.Wait()
	for j, err := range errs {
		if err != nil {
			return format.RowGroup{}, 0, fmt.Errorf("column %d: %w", j, err)
		}
	}
	nrg := *rg
	nrg.Columns = slices.Clone(rg.Columns)
	nrg.NumRows = rg.NumRows - int64(len(deleted))
	nrg.TotalCompressedSize = 0
	nrg.TotalByteSize = 0
	nrg.FileOffset = b.pos
	pages := 0
	for j := range nrg.Columns {
		cc := &nrg.Columns[j]
		sc := &chunks[j]
		start := b.pos
		for _, p := range sc.pieces {
			if p.data != nil {
				b.add(segment{n: int64(len(p.data)), data: p.data})
			} else {
				b.add(segment{n: p.n, src: p.src})
			}
		}
		if b.pos-start != sc.size {
			return format.RowGroup{}, 0, fmt.Errorf("column %d: laid out %d bytes, want %d: %w", j, b.pos-start, sc.size, ErrParquet)
		}
		cc.MetaData = sc.meta
		cc.MetaData.DataPageOffset = start + sc.dataOff
		cc.MetaData.DictionaryPageOffset = 0
		if sc.dictOff >= 0 {
			cc.MetaData.DictionaryPageOffset = start + sc.dictOff
		}
		cc.MetaData.IndexPageOffset = 0
		cc.FileOffset = start
		cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0
		cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0
		cc.MetaData.BloomFilterOffset, cc.MetaData.BloomFilterLength = 0, 0
		nrg.TotalCompressedSize += sc.size
		nrg.TotalByteSize += sc.meta.TotalUncompressedSize
		pages += sc.rewritten
	}
	return nrg, pages, nil
}

// pageHeaderWindows are the sizes of the successive reads tried for a page
// header (headers with large statistics need more).
var pageHeaderWindows = []int64{8 << 10, 256 << 10, 4 << 20}

// readPageHeader decodes the page header at off (chunk ends at end) and
// returns it with its encoded length.
func readPageHeader(ctx context.Context, src RangeReader, off, end int64) (*format.PageHeader, int64, error) {
	for _, w := range pageHeaderWindows {
		n := min(w, end-off)
		b, err := readFull(ctx, src, off, n)
		if err != nil {
			return nil, 0, err
		}
		b = bytes.Clone(b) // decoded byte fields alias the buffer
		pr := new(thrift.CompactProtocol).NewReaderFromBytes(b)
		h := new(format.PageHeader)
		derr := thrift.NewDecoder(pr).Decode(h)
		if derr == nil {
			br, ok := pr.(interface{ BytesRead() int })
			if !ok {
				return nil, 0, fmt.Errorf("thrift reader does not count bytes: %w", errNoSplice)
			}
			return h, int64(br.BytesRead()), nil
		}
		if n == end-off {
			return nil, 0, fmt.Errorf("page header at %d: %v: %w", off, derr, errNoSplice)
		}
	}
	return nil, 0, fmt.Errorf("page header at %d too large: %w", off, errNoSplice)
}

// spliceChunk lays out one column chunk of a row group of numRows rows
// without the rows deleted (indexes within the row group, ascending).
func spliceChunk(ctx context.Context, src RangeReader, cc *format.ColumnChunk, leaf leafInfo, numRows int64, deleted []int64, dataEnd int64) (splicedChunk, error) {
	start, end, err := chunkRange(cc, dataEnd)
	if err != nil {
		return splicedChunk{}, err
	}
	m := &cc.MetaData
	leaf.typ = m.Type
	codec := parquet.LookupCompressionCodec(m.Codec)
	if codec.String() == "UNSUPPORTED" {
		return splicedChunk{}, fmt.Errorf("compression codec %v: %w", m.Codec, errNoSplice)
	}
	sc := splicedChunk{dictOff: -1, dataOff: -1}
	var (
		row          int64 // first row of the next data page
		values       int64 // level entries kept
		uncompressed int64
		removedNulls int64
		keptNulls    int64
		// A source chunk without statistics has no null count to adjust:
		// the nulls of the kept pages are counted instead.
		countNulls = leaf.maxDef > 0 && !hasStats(&m.Statistics)
		encStats   = map[[2]int32]int32{}
		hasDict    bool
		encodings  = slices.Clone(m.Encoding)
	)
	addCopy := func(off, n int64) {
		if k := len(sc.pieces); k > 0 && sc.pieces[k-1].data == nil && sc.pieces[k-1].src+sc.pieces[k-1].n == off {
			sc.pieces[k-1].n += n
		} else {
			sc.pieces = append(sc.pieces, piece{src: off, n: n})
		}
		sc.size += n
	}
	for off := start; off < end; {
		if err := ctx.Err(); err != nil {
			return splicedChunk{}, err
		}
		h, hlen, err := readPageHeader(ctx, src, off, end)
		if err != nil {
			return splicedChunk{}, err
		}
		if h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 || off+hlen+int64(h.CompressedPageSize) > end {
			return splicedChunk{}, fmt.Errorf("page at %d overruns its chunk: %w", off, errNoSplice)
		}
		plen := hlen + int64(h.CompressedPageSize)
		var (
			rows  int64
			enc   format.Encoding
			isV2  bool
			entry int64 // level entries (num_values)
		)
		switch h.Type {
		case format.DictionaryPage:
			dh, ok := h.DictionaryPageHeader.Get()
			if !ok || hasDict || sc.dataOff >= 0 {
				return splicedChunk{}, fmt.Errorf("unexpected dictionary page at %d: %w", off, errNoSplice)
			}
			hasDict = true
			sc.dictOff = sc.size
			encStats[[2]int32{int32(format.DictionaryPage), int32(dh.Encoding)}]++
			uncompressed += hlen + int64(h.UncompressedPageSize)
			addCopy(off, plen)
			off += plen
			continue
		case format.DataPage:
			dh, ok := h.DataPageHeader.Get()
			if !ok {
				return splicedChunk{}, fmt.Errorf("data page at %d without its header: %w", off, errNoSplice)
			}
			entry, rows, enc = int64(dh.NumValues), int64(dh.NumValues), dh.Encoding
		case format.DataPageV2:
			dh, ok := h.DataPageHeaderV2.Get()
			if !ok || dh.NumRows != dh.NumValues {
				return splicedChunk{}, fmt.Errorf("data page v2 at %d without its header or rows: %w", off, errNoSplice)
			}
			entry, rows, enc, isV2 = int64(dh.NumValues), int64(dh.NumRows), dh.Encoding, true
		default:
			return splicedChunk{}, fmt.Errorf("page of type %v at %d: %w", h.Type, off, errNoSplice)
		}
		if rows <= 0 || row+rows > numRows {
			return splicedChunk{}, fmt.Errorf("data page at %d holds rows [%d, %d) of %d: %w", off, row, row+rows, numRows, errNoSplice)
		}
		if (enc == format.PlainDictionary || enc == format.RLEDictionary) && !hasDict {
			return splicedChunk{}, fmt.Errorf("dictionary-encoded page without dictionary: %w", errNoSplice)
		}
		// The deleted rows in [row, row+rows).
		lo, _ := slices.BinarySearch(deleted, row)
		hi, _ := slices.BinarySearch(deleted, row+rows)
		if lo == hi {
			if sc.dataOff < 0 {
				sc.dataOff = sc.size
			}
			encStats[[2]int32{int32(h.Type), int32(enc)}]++
			uncompressed += hlen + int64(h.UncompressedPageSize)
			values += entry
			addCopy(off, plen)
			if countNulls {
				body, err := readFull(ctx, src, off+hlen, int64(h.CompressedPageSize))
				if err != nil {
					return splicedChunk{}, err
				}
				n, err := pageNulls(h, body, isV2, codec, leaf)
				if err != nil {
					return splicedChunk{}, err
				}
				keptNulls += n
			}
		} else if hi-lo < int(rows) {
			body, err := readFull(ctx, src, off+hlen, int64(h.CompressedPageSize))
			if err != nil {
				return splicedChunk{}, err
			}
			np, err := rewritePage(h, body, isV2, codec, leaf, deleted[lo:hi], row)
			if err != nil {
				return splicedChunk{}, err
			}
			if sc.dataOff < 0 {
				sc.dataOff = sc.size
			}
			encStats[[2]int32{int32(h.Type), int32(np.enc)}]++
			if !slices.Contains(encodings, np.enc) {
				encodings = append(encodings, np.enc)
			}
			uncompressed += int64(len(np.bytes)) - int64(np.compressed) + int64(np.uncompressed)
			values += np.entries
			removedNulls += np.removedNulls
			keptNulls += np.nulls
			sc.pieces = append(sc.pieces, piece{data: np.bytes})
			sc.size += int64(len(np.bytes))
			sc.rewritten++
		} else if leaf.maxDef > 0 {
			// Every row of the page goes: the page goes too, but its nulls
			// must be counted for the chunk's statistics.
			body, err := readFull(ctx, src, off+hlen, int64(h.CompressedPageSize))
			if err != nil {
				return splicedChunk{}, err
			}
			nulls, err := pageNulls(h, body, isV2, codec, leaf)
			if err != nil {
				return splicedChunk{}, err
			}
			removedNulls += nulls
		}
		row += rows
		off += plen
	}
	if row != numRows || sc.dataOff < 0 {
		return splicedChunk{}, fmt.Errorf("data pages hold %d rows, row group %d: %w", row, numRows, errNoSplice)
	}
	meta := *m
	meta.NumValues = values
	meta.Encoding = encodings
	meta.TotalCompressedSize = sc.size
	meta.TotalUncompressedSize = uncompressed
	// Statistics: min, max and distinct count describe rows that may be
	// gone, so they are dropped; the null count is adjusted by the nulls
	// removed (the footer codec always writes a null count, so it must be
	// right: if the source's cannot be, the row group goes the slow way).
	var nulls int64
	switch {
	case leaf.maxDef == 0:
	case countNulls:
		nulls = keptNulls
	default:
		nulls = m.Statistics.NullCount - removedNulls
	}
	if nulls < 0 {
		return splicedChunk{}, fmt.Errorf("source null count %d, %d removed: %w", m.Statistics.NullCount, removedNulls, errNoSplice)
	}
	meta.Statistics = format.Statistics{NullCount: nulls}
	meta.SizeStatistics = format.SizeStatistics{}
	meta.GeospatialStatistics = format.GeospatialStatistics{}
	if len(m.EncodingStats) > 0 {
		var es []format.PageEncodingStats
		for _, s := range m.EncodingStats {
			k := [2]int32{int32(s.PageType), int32(s.Encoding)}
			if c, ok := encStats[k]; ok {
				es = append(es, format.PageEncodingStats{PageType: s.PageType, Encoding: s.Encoding, Count: c})
				delete(encStats, k)
			}
		}
		if len(encStats) > 0 {
			// Pages the source's statistics did not list: do not guess.
			es = nil
		}
		meta.EncodingStats = es
	}
	sc.meta = meta
	return sc, nil
}

// hasStats reports whether a chunk's statistics were written at all (the
// footer decoder cannot tell an absent null count from zero, so a chunk
// with none of the fields set is taken to have none).
func hasStats(st *format.Statistics) bool {
	return st.NullCount != 0 || st.DistinctCount != 0 || st.Max != nil || st.Min != nil ||
		st.MaxValue != nil || st.MinValue != nil
}

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
			if vals, err = codec.Decode(nil, vals); err != nil {
				return nil, nil, fmt.Errorf("decompress page: %v: %w", err, errNoSplice)
			}
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
		data, err := codec.Decode(nil, body)
		if err != nil {
			return nil, nil, fmt.Errorf("decompress page: %v: %w", err, errNoSplice)
		}
		if len(data) != int(h.UncompressedPageSize) {
			return nil, nil, fmt.Errorf("page decompresses to %d bytes, header says %d: %w", len(data), h.UncompressedPageSize, errNoSplice)
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
	var (
		entries int
		enc     format.Encoding
	)
	if isV2 {
		entries, enc = int(h.DataPageHeaderV2.V.NumValues), h.DataPageHeaderV2.V.Encoding
	} else {
		entries, enc = int(h.DataPageHeader.V.NumValues), h.DataPageHeader.V.Encoding
	}
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

// filterValues drops the values keep marks false from encoded values.
func filterValues(enc format.Encoding, vals []byte, keep []bool, leaf leafInfo) ([]byte, error) {
	switch enc {
	case format.PlainDictionary, format.RLEDictionary:
		if len(keep) == 0 {
			return []byte{0}, nil
		}
		var de rle.DictionaryEncoding
		idx, err := de.DecodeInt32(nil, vals)
		if err != nil {
			return nil, fmt.Errorf("dictionary indexes: %v: %w", err, errNoSplice)
		}
		if len(idx) < len(keep) {
			return nil, fmt.Errorf("%d dictionary indexes, %d values: %w", len(idx), len(keep), errNoSplice)
		}
		out := idx[:0]
		for i, k := range keep {
			if k {
				out = append(out, idx[i])
			}
		}
		b, err := de.EncodeInt32(nil, out)
		if err != nil {
			return nil, fmt.Errorf("dictionary indexes: %v: %w", err, errNoSplice)
		}
		return b, nil
	case format.Plain:
		return filterPlain(vals, keep, leaf)
	}
	plain, err := toPlain(enc, vals, len(keep), leaf)
	if err != nil {
		return nil, err
	}
	return filterPlain(plain, keep, leaf)
}

// toPlain decodes n values of another encoding (DELTA_*, BYTE_STREAM_SPLIT)
// with parquet-go's decoders and returns them PLAIN-encoded.
func toPlain(enc format.Encoding, vals []byte, n int, leaf leafInfo) ([]byte, error) {
	e := parquet.LookupEncoding(enc)
	if e.Encoding() != enc {
		return nil, fmt.Errorf("values encoded %v: %w", enc, errNoSplice)
	}
	short := func(got int) error {
		return fmt.Errorf("%d values decoded, %d expected (%v): %w", got, n, enc, errNoSplice)
	}
	var (
		out []byte
		err error
	)
	p := &parquet.Plain
	switch leaf.typ {
	case format.Boolean:
		// RLE booleans: a 4-byte length, then the hybrid encoding with
		// bit width 1. Decoded as levels: one byte per value.
		if enc != format.RLE || len(vals) < 4 {
			return nil, fmt.Errorf("booleans encoded %v: %w", enc, errNoSplice)
		}
		m := int(binary.LittleEndian.Uint32(vals))
		if m < 0 || m > len(vals)-4 {
			return nil, fmt.Errorf("boolean run of %d bytes: %w", m, errNoSplice)
		}
		var v []byte
		if v, err = (&rle.Encoding{BitWidth: 1}).DecodeLevels(nil, vals[4:4+m]); err == nil {
			if len(v) < n {
				return nil, short(len(v))
			}
			out = make([]byte, (n+7)/8)
			for i, b := range v[:n] {
				if b > 1 {
					return nil, fmt.Errorf("boolean value %d: %w", b, errNoSplice)
				}
				out[i/8] |= b << (i % 8)
			}
		}
	case format.Int32:
		var v []int32
		if v, err = e.DecodeInt32(nil, vals); err == nil {
			if len(v) < n {
				return nil, short(len(v))
			}
			out, err = p.EncodeInt32(nil, v[:n])
		}
	case format.Int64:
		var v []int64
		if v, err = e.DecodeInt64(nil, vals); err == nil {
			if len(v) < n {
				return nil, short(len(v))
			}
			out, err = p.EncodeInt64(nil, v[:n])
		}
	case format.Float:
		var v []float32
		if v, err = e.DecodeFloat(nil, vals); err == nil {
			if len(v) < n {
				return nil, short(len(v))
			}
			out, err = p.EncodeFloat(nil, v[:n])
		}
	case format.Double:
		var v []float64
		if v, err = e.DecodeDouble(nil, vals); err == nil {
			if len(v) < n {
				return nil, short(len(v))
			}
			out, err = p.EncodeDouble(nil, v[:n])
		}
	case format.FixedLenByteArray:
		if leaf.typeLength <= 0 {
			return nil, fmt.Errorf("fixed-length byte array of length %d: %w", leaf.typeLength, errNoSplice)
		}
		var v []byte
		if v, err = e.DecodeFixedLenByteArray(nil, vals, leaf.typeLength); err == nil {
			if len(v) < n*leaf.typeLength {
				return nil, short(len(v) / leaf.typeLength)
			}
			out = v[:n*leaf.typeLength]
		}
	case format.ByteArray:
		var (
			v    []byte
			offs []uint32
		)
		if v, offs, err = e.DecodeByteArray(nil, vals, nil); err == nil {
			if len(offs) < n+1 {
				return nil, short(max(len(offs)-1, 0))
			}
			out = make([]byte, 0, int(offs[n]-offs[0])+4*n)
			for i := range n {
				lo, hi := offs[i], offs[i+1]
				if lo > hi || int(hi) > len(v) {
					return nil, fmt.Errorf("decoded byte array offsets out of range: %w", errNoSplice)
				}
				out = binary.LittleEndian.AppendUint32(out, hi-lo)
				out = append(out, v[lo:hi]...)
			}
		}
	default:
		return nil, fmt.Errorf("values of type %v encoded %v: %w", leaf.typ, enc, errNoSplice)
	}
	if err != nil {
		return nil, fmt.Errorf("decode %v values: %v: %w", enc, err, errNoSplice)
	}
	return out, nil
}

// filterPlain filters PLAIN-encoded values of the leaf's physical type.
func filterPlain(vals []byte, keep []bool, leaf leafInfo) ([]byte, error) {
	width := 0
	switch leaf.typ {
	case format.Boolean:
		if len(vals)*8 < len(keep) {
			return nil, fmt.Errorf("%d bytes of booleans for %d values: %w", len(vals), len(keep), errNoSplice)
		}
		out := make([]byte, 0, len(vals))
		k := 0
		for i, keepIt := range keep {
			if !keepIt {
				continue
			}
			if k%8 == 0 {
				out = append(out, 0)
			}
			if vals[i/8]>>(i%8)&1 != 0 {
				out[len(out)-1] |= 1 << (k % 8)
			}
			k++
		}
		return out, nil
	case format.Int32, format.Float:
		width = 4
	case format.Int64, format.Double:
		width = 8
	case format.Int96:
		width = 12
	case format.FixedLenByteArray:
		width = leaf.typeLength
		if width <= 0 {
			return nil, fmt.Errorf("fixed-length byte array of length %d: %w", width, errNoSplice)
		}
	case format.ByteArray:
		out := make([]byte, 0, len(vals))
		pos := 0
		for _, keepIt := range keep {
			if len(vals)-pos < 4 {
				return nil, fmt.Errorf("truncated byte array values: %w", errNoSplice)
			}
			n := int(binary.LittleEndian.Uint32(vals[pos:]))
			if n < 0 || n > len(vals)-pos-4 {
				return nil, fmt.Errorf("byte array value of %d bytes: %w", n, errNoSplice)
			}
			if keepIt {
				out = append(out, vals[pos:pos+4+n]...)
			}
			pos += 4 + n
		}
		return out, nil
	default:
		return nil, fmt.Errorf("physical type %v: %w", leaf.typ, errNoSplice)
	}
	if len(vals) < width*len(keep) {
		return nil, fmt.Errorf("%d bytes for %d values of %d bytes: %w", len(vals), len(keep), width, errNoSplice)
	}
	out := make([]byte, 0, len(vals))
	for i, keepIt := range keep {
		if keepIt {
			out = append(out, vals[i*width:(i+1)*width]...)
		}
	}
	return out, nil
}
