package pagecodec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/thriftcheck"
)

// parquet-go cannot decode LZ4 in Hadoop's framing. A reader that needs
// it to decode such column chunks (a checkpoint's, or a data file's row
// group only parquet-go can rebuild) gives it a copy of the file in which
// those chunks are stored uncompressed: Uncompressed writes one.

// ChunkReader returns the stored bytes of column chunk j of row group i,
// which the footer places at [start, start+n) of the file.
type ChunkReader func(i, j int, start, n int64) ([]byte, error)

// Uncompressed writes to w a Parquet file of the row groups groups of the
// file whose footer is md, their column chunks read by read: those in
// codec c are decoded page by page (each page checked by Check) and stored
// uncompressed, the others copied as they are. Page indexes and bloom
// filters are left out. A row group of no rows keeps its footer entry
// and none of its bytes (pyarrow writes such chunks at offset 0).
func Uncompressed(w io.Writer, md *format.FileMetaData, groups []int, c format.CompressionCodec, read ChunkReader) error {
	out := &countingWriter{w: w}
	out.write([]byte("PAR1"))
	md2 := *md
	md2.RowGroups, md2.NumRows = nil, 0
	for _, i := range groups {
		if i < 0 || i >= len(md.RowGroups) {
			return fmt.Errorf("no row group %d of %d", i, len(md.RowGroups))
		}
		rg := md.RowGroups[i]
		rg.Ordinal = int16(len(md2.RowGroups)) // parquet-go wants ordinals in order
		md2.NumRows += rg.NumRows
		if rg.NumRows != 0 {
			if err := uncompressGroup(out, &rg, i, c, read); err != nil {
				return err
			}
		}
		md2.RowGroups = append(md2.RowGroups, rg)
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md2)
	if err != nil {
		return err
	}
	out.write(footer, binary.LittleEndian.AppendUint32(nil, uint32(len(footer))), []byte("PAR1"))
	return out.err
}

// uncompressGroup writes the column chunks of rg (row group i) to out and
// sets their footer entries to where and how they now lie.
func uncompressGroup(out *countingWriter, rg *format.RowGroup, i int, c format.CompressionCodec, read ChunkReader) error {
	rg.Columns = slices.Clone(rg.Columns)
	rg.TotalCompressedSize, rg.FileOffset = 0, out.n
	for j := range rg.Columns {
		cc := &rg.Columns[j]
		m := &cc.MetaData
		start := m.DataPageOffset
		if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
			start = m.DictionaryPageOffset
		}
		chunk, err := read(i, j, start, m.TotalCompressedSize)
		if err != nil {
			return fmt.Errorf("row group %d: column chunk %d: %w", i, j, err)
		}
		at := out.n
		if m.Codec != c {
			out.write(chunk)
			m.DataPageOffset += at - start
			if m.DictionaryPageOffset > 0 {
				m.DictionaryPageOffset += at - start
			}
		} else {
			if err := uncompressPages(out, chunk, m); err != nil {
				return fmt.Errorf("row group %d: column chunk %d: %w", i, j, err)
			}
			m.Codec = format.Uncompressed
		}
		if out.err != nil {
			return out.err
		}
		m.TotalCompressedSize = out.n - at
		m.IndexPageOffset, m.BloomFilterOffset, m.BloomFilterLength = 0, 0, 0
		cc.FileOffset = at
		cc.OffsetIndexOffset, cc.OffsetIndexLength, cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0, 0, 0
		rg.TotalCompressedSize += m.TotalCompressedSize
	}
	return nil
}

// uncompressPages writes to out the pages of a column chunk in codec
// m.Codec, each decompressed (a v2 page's levels are stored uncompressed
// already), and sets m's page offsets to where its pages now lie.
func uncompressPages(out *countingWriter, chunk []byte, m *format.ColumnMetaData) error {
	r := bytes.NewReader(chunk)
	dec := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r))
	m.DataPageOffset, m.DictionaryPageOffset = 0, 0
	for r.Len() > 0 {
		if _, _, err := thriftcheck.Struct(chunk[len(chunk)-r.Len():]); err != nil {
			return fmt.Errorf("page header: %w", err)
		}
		var h format.PageHeader
		if err := dec.Decode(&h); err != nil {
			return fmt.Errorf("page header: %w", err)
		}
		size, body := int64(h.CompressedPageSize), len(chunk)-r.Len()
		if size < 0 || size > int64(r.Len()) {
			return fmt.Errorf("page of %d bytes overruns its column chunk", size)
		}
		r.Seek(size, io.SeekCurrent)
		page := chunk[body : body+int(size)]
		levels, compressed, err := SplitLevels(&h, page)
		if err != nil {
			return err
		}
		values := page[levels:]
		if compressed {
			if values, err = Check(m.Codec, values, int64(len(values)), int64(h.UncompressedPageSize)-int64(levels)); err != nil {
				return err
			}
		}
		h.CompressedPageSize, h.CRC = int32(levels+len(values)), 0
		header, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
		if err != nil {
			return err
		}
		switch {
		case h.DictionaryPageHeader.Valid && m.DictionaryPageOffset == 0:
			m.DictionaryPageOffset = out.n
		case !h.DictionaryPageHeader.Valid && m.DataPageOffset == 0:
			m.DataPageOffset = out.n
		}
		out.write(header, page[:levels], values)
	}
	return out.err
}

// SplitLevels returns how many bytes of a page body are levels stored
// uncompressed ahead of its values (a v2 page's; none in the others), and
// whether the values are compressed.
func SplitLevels(h *format.PageHeader, body []byte) (levels int, compressed bool, err error) {
	v2 := h.DataPageHeaderV2
	if !v2.Valid {
		return 0, true, nil
	}
	levels = int(v2.V.RepetitionLevelsByteLength) + int(v2.V.DefinitionLevelsByteLength)
	if levels < 0 || levels > len(body) || levels > int(h.UncompressedPageSize) {
		return 0, false, fmt.Errorf("levels of %d bytes in a page of %d", levels, len(body))
	}
	c, ok := v2.V.IsCompressed.Get()
	return levels, !ok || c, nil
}

// countingWriter writes to w, counting the bytes; after an error it writes
// nothing more and keeps the error.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) write(parts ...[]byte) {
	for _, p := range parts {
		if c.err != nil {
			return
		}
		var k int
		k, c.err = c.w.Write(p)
		c.n += int64(k)
	}
}
