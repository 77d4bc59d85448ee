package checkpoint

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
	"github.com/deltafs/deltafs/dvfilter/parquetview/thriftcheck"
)

// pageAt is one page of a column chunk, as its header describes it: where
// it lies in the chunk (header included) and how many rows it holds.
type pageAt struct {
	start, end int
	dict       bool  // a dictionary page
	rows       int64 // -1 when the header does not tell (see pageRows)
}

// checkPages walks the page headers of a column chunk and checks that every
// page lies inside the chunk and decompresses to a sane size, before
// parquet-go sizes its buffers from those same headers: a corrupt or hostile
// checkpoint then fails with an error instead of allocating gigabytes. It
// returns the pages, which tell where a row group can be cut (rowparts.go).
// The values their headers claim are held to the chunk's rows
// (checkValues) page by page, before a page is decoded.
func checkPages(chunk []byte, c chunkRange, col pagecodec.Column) (pages []pageAt, err error) {
	repeated := col.MaxRep > 0
	var claimed int64
	r := bytes.NewReader(chunk)
	var proto thrift.CompactProtocol
	dec := thrift.NewDecoder(proto.NewReader(r))
	// One header decoded into, page after page: it goes to the heap (the
	// decoder takes it as an interface), some 500 bytes a page, 150 MB
	// for a file of 300,000 empty pages (7.8 MB). Pages need no bound of
	// their own: each takes a header's bytes (16 at least), and is held
	// here as a pageAt of 32.
	var h format.PageHeader
	for r.Len() > 0 {
		start := len(chunk) - r.Len()
		if _, _, err := thriftcheck.Struct(chunk[start:]); err != nil {
			return nil, fmt.Errorf("page header at byte %d: %w", start, err)
		}
		h = format.PageHeader{}
		if err := dec.Decode(&h); err != nil {
			return nil, fmt.Errorf("page header at byte %d: %w", start, err)
		}
		size, full := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
		if size < 0 || size > int64(r.Len()) {
			return nil, fmt.Errorf("page of %d bytes overruns its column chunk (%d bytes left)", size, r.Len())
		}
		values := pageValues(&h)
		limit := maxExpansion*size + 1<<20
		if !repeated && !h.DictionaryPageHeader.Valid {
			limit = max(limit, plainBound(col, min(values, c.rows)))
		}
		if full < 0 || full > limit {
			return nil, fmt.Errorf("page of %d bytes claims %d bytes uncompressed", size, full)
		}
		// Levels are sized from the value count; run-length encoding lets
		// a small page hold many values, but not billions.
		if values < 0 || values > pagecodec.MaxValues(full) {
			return nil, fmt.Errorf("page of %d bytes claims %d values", full, values)
		}
		// Before the page is decoded: plainBound lets a page decode to
		// its values' size.
		claimed += claimedBy(&h, repeated, values)
		if err := checkValues(c, claimed); err != nil {
			return nil, err
		}
		body := len(chunk) - r.Len()
		if err := checkBody(c.codec, &h, chunk[body:body+int(size)], col); err != nil {
			return nil, fmt.Errorf("page at byte %d: %w", start, err)
		}
		if _, err := r.Seek(size, 1); err != nil {
			return nil, err
		}
		p := pageAt{start: start, end: len(chunk) - r.Len(), dict: h.DictionaryPageHeader.Valid, rows: pageRows(&h, repeated)}
		pages = append(pages, p)
	}
	return pages, nil
}

// claimedBy is the values a page's header claims, as checkValues counts
// them: a repeated column's values; else a row a value (a level, null or
// not); none for a dictionary page or one that is not a data page.
func claimedBy(h *format.PageHeader, repeated bool, values int64) int64 {
	switch {
	case h.DictionaryPageHeader.Valid:
		return 0
	case repeated:
		return values
	}
	return max(pageRows(h, false), 0)
}

// chunkRange is the bytes of the column chunk of col in row group rg (of
// rows rows).
type chunkRange struct {
	rg     int
	rows   int64
	col    *parquet.Column
	off, n int64
	codec  format.CompressionCodec
}

// chunkID names a column chunk: its row group and column indexes.
type chunkID struct{ rg, col int }

// checkChunks runs checkPages on the needed column chunks of a file, on
// every core (each page is decompressed to check it: a fifth of a
// checkpoint's decoding), and returns their pages.
func checkChunks(sf *sparseFile, chunks []chunkRange) (map[chunkID][]pageAt, error) {
	pages := make([][]pageAt, len(chunks))
	errs := make([]error, len(chunks))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(chunks); i = int(next.Add(1) - 1) {
				pages[i], errs[i] = checkChunk(sf, chunks[i])
			}
		})
	}
	wg.Wait()
	out := make(map[chunkID][]pageAt, len(chunks))
	for i, c := range chunks {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out[chunkID{c.rg, c.col.Index()}] = pages[i]
	}
	return out, nil
}

func checkChunk(sf *sparseFile, c chunkRange) ([]pageAt, error) {
	data, ok := sf.bytes(c.off, c.n)
	if !ok {
		return nil, fmt.Errorf("column chunk at %d was not fetched", c.off)
	}
	t := c.col.Type()
	col := pagecodec.Column{MaxDef: c.col.MaxDefinitionLevel(), MaxRep: c.col.MaxRepetitionLevel(), Type: format.Type(t.Kind()), TypeLength: t.Length()}
	p, err := checkPages(data, c, col)
	if err != nil {
		return nil, fmt.Errorf("column chunk at %d: %w", c.off, err)
	}
	return p, nil
}

// checkBody checks a page body with pagecodec: what parquet-go's
// decoders take on trust (the length a Snappy block or a zstd frame
// claims, that an LZ4 block decodes, what zstd blocks can give), and what
// its levels and values claim (CheckValues, which decompresses what it
// needs of the body).
func checkBody(codec format.CompressionCodec, h *format.PageHeader, body []byte, col pagecodec.Column) error {
	levels, compressed, err := pagecodec.SplitLevels(h, body)
	if err != nil {
		return err
	}
	values := body[levels:]
	full := int64(h.UncompressedPageSize) - int64(levels)
	if !compressed {
		codec, full = format.Uncompressed, int64(len(values))
	}
	decoded, err := pagecodec.Check(codec, values, int64(len(values)), full)
	if err != nil {
		return err
	}
	return pagecodec.CheckValues(h, body[:levels], pagecodec.NewBody(codec, values, full, decoded), col)
}

func pageValues(h *format.PageHeader) int64 {
	switch {
	case h.DataPageHeader.Valid:
		return int64(h.DataPageHeader.V.NumValues)
	case h.DataPageHeaderV2.Valid:
		v2 := h.DataPageHeaderV2.V
		return max(int64(v2.NumValues), int64(v2.NumRows), int64(v2.NumNulls))
	case h.DictionaryPageHeader.Valid:
		return int64(h.DictionaryPageHeader.V.NumValues)
	}
	return 0
}

// pageRows is the rows a data page holds by its header, -1 when the header
// does not say. In a column that does not repeat, a row is a value (a
// level: null or not), and the value count is what the page decodes. In
// one that does, only a v2 page tells its rows; readPages checks them.
func pageRows(h *format.PageHeader, repeated bool) int64 {
	switch {
	case h.DictionaryPageHeader.Valid:
		return 0
	case !repeated:
		if h.DataPageHeader.Valid {
			return int64(h.DataPageHeader.V.NumValues)
		}
		if h.DataPageHeaderV2.Valid {
			return int64(h.DataPageHeaderV2.V.NumValues)
		}
	case h.DataPageHeaderV2.Valid:
		return int64(h.DataPageHeaderV2.V.NumRows)
	}
	return -1
}
