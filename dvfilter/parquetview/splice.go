package parquetview

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
	"github.com/deltafs/deltafs/dvfilter/parquetview/thriftcheck"
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

func (l leafInfo) column() pagecodec.Column {
	return pagecodec.Column{MaxDef: l.maxDef, MaxRep: l.maxRep, Type: l.typ, TypeLength: l.typeLength}
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
	src, n  int64
	data    []byte
	spilled bool // the bytes are in the view's spill file at src
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
func spliceRowGroup(ctx context.Context, b *viewBuilder, src RangeReader, md *format.FileMetaData, rg *format.RowGroup, first int64, vec Rows, dataEnd int64, conv []*pageConversion) (format.RowGroup, int, error) {
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
	deleted := groupDeletions(vec, first, rg.NumRows)
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
			if errs[j] == nil && j < len(conv) && conv[j] != nil {
				chunks[j], errs[j] = convertSpliced(ctx, src, chunks[j], lv[j], conv[j])
			}
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
	nrg.NumRows = rg.NumRows - deleted.count()
	nrg.TotalCompressedSize = 0
	nrg.TotalByteSize = 0
	nrg.FileOffset = b.pos
	pages := 0
	for j := range nrg.Columns {
		sc := &chunks[j]
		if err := layChunk(b, &nrg.Columns[j], sc); err != nil {
			return format.RowGroup{}, 0, fmt.Errorf("column %d: %w", j, err)
		}
		nrg.TotalCompressedSize += sc.size
		nrg.TotalByteSize += sc.meta.TotalUncompressedSize
		pages += sc.rewritten
	}
	return nrg, pages, nil
}

// layChunk lays out sc, the new form of column chunk cc, at the end of b
// and gives cc its metadata and offsets.
func layChunk(b *viewBuilder, cc *format.ColumnChunk, sc *splicedChunk) error {
	start := b.pos
	for _, p := range sc.pieces {
		if p.data != nil {
			b.add(segment{n: int64(len(p.data)), data: p.data})
		} else {
			b.add(segment{n: p.n, src: p.src, spilled: p.spilled})
		}
	}
	if b.pos-start != sc.size {
		return fmt.Errorf("laid out %d bytes, want %d: %w", b.pos-start, sc.size, ErrParquet)
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
	return nil
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
		if _, _, err := thriftcheck.Struct(b); err != nil {
			if errors.Is(err, thriftcheck.ErrTruncated) && n < end-off {
				continue // a larger window may hold it
			}
			return nil, 0, fmt.Errorf("page header at %d: %v: %w", off, err, errNoSplice)
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
// without the rows deleted.
func spliceChunk(ctx context.Context, src RangeReader, cc *format.ColumnChunk, leaf leafInfo, numRows int64, deleted deletions, dataEnd int64) (splicedChunk, error) {
	start, end, err := chunkRange(cc, dataEnd)
	if err != nil {
		return splicedChunk{}, err
	}
	m := &cc.MetaData
	leaf.typ = m.Type
	codec := pagecodec.Lookup(m.Codec)
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
		if dictionaryEncoding(enc) && !hasDict {
			return splicedChunk{}, fmt.Errorf("dictionary-encoded page without dictionary: %w", errNoSplice)
		}
		gone := deleted.within(row, row+rows)
		if lost := gone.count(); lost == 0 {
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
		} else if lost < rows {
			body, err := readFull(ctx, src, off+hlen, int64(h.CompressedPageSize))
			if err != nil {
				return splicedChunk{}, err
			}
			np, err := rewritePage(h, body, isV2, codec, leaf, gone, row)
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
