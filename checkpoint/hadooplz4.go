package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// A checkpoint Spark writes with its "lz4" codec stores its pages in
// Hadoop's framing of LZ4 blocks (format.Lz4), which parquet-go cannot
// decode. Such a checkpoint is read from a copy in memory whose LZ4 column
// chunks are stored uncompressed: without it the table's versions from
// that checkpoint on could only be rebuilt from commits, and not at all
// where older commits are gone.

// usesHadoopLZ4 reports whether a column chunk of the file is stored with
// the LZ4 codec.
func usesHadoopLZ4(md *format.FileMetaData) bool {
	for _, rg := range md.RowGroups {
		for _, cc := range rg.Columns {
			if cc.MetaData.Codec == format.Lz4 {
				return true
			}
		}
	}
	return false
}

// uncompressedLZ4 returns the Parquet file data, whose footer is md, with
// every LZ4 column chunk decompressed and stored uncompressed; the other
// chunks are copied as they are. Page indexes and bloom filters are left
// out, as the reader skips them.
func uncompressedLZ4(data []byte, md *format.FileMetaData) ([]byte, error) {
	out := append(make([]byte, 0, len(data)), "PAR1"...)
	md2 := *md
	md2.RowGroups = slices.Clone(md.RowGroups)
	for i := range md2.RowGroups {
		rg := &md2.RowGroups[i]
		if rg.NumRows == 0 {
			continue // nothing to read (pyarrow writes such chunks at offset 0)
		}
		rg.Columns = slices.Clone(rg.Columns)
		rg.TotalCompressedSize, rg.FileOffset = 0, int64(len(out))
		for j := range rg.Columns {
			cc := &rg.Columns[j]
			m := &cc.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			n := m.TotalCompressedSize
			if start < 4 || n < 0 || start > int64(len(data)) || n > int64(len(data))-start {
				return nil, fmt.Errorf("row group %d: column chunk %d lies outside the file", i, j)
			}
			chunk, at := data[start:start+n], int64(len(out))
			if m.Codec != format.Lz4 {
				out = append(out, chunk...)
				m.DataPageOffset += at - start
				if m.DictionaryPageOffset > 0 {
					m.DictionaryPageOffset += at - start
				}
			} else {
				var err error
				if out, err = uncompressPages(out, chunk, m); err != nil {
					return nil, fmt.Errorf("row group %d: column chunk %d: %w", i, j, err)
				}
				m.Codec = format.Uncompressed
			}
			m.TotalCompressedSize = int64(len(out)) - at
			m.IndexPageOffset, m.BloomFilterOffset, m.BloomFilterLength = 0, 0, 0
			cc.FileOffset = at
			cc.OffsetIndexOffset, cc.OffsetIndexLength, cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0, 0, 0
			rg.TotalCompressedSize += m.TotalCompressedSize
		}
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md2)
	if err != nil {
		return nil, err
	}
	out = binary.LittleEndian.AppendUint32(append(out, footer...), uint32(len(footer)))
	return append(out, "PAR1"...), nil
}

// uncompressPages appends to out the pages of an LZ4 column chunk, each
// decompressed (a v2 page's levels are stored uncompressed already), and
// sets m's page offsets to where its pages now lie.
func uncompressPages(out, chunk []byte, m *format.ColumnMetaData) ([]byte, error) {
	r := bytes.NewReader(chunk)
	dec := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r))
	m.DataPageOffset, m.DictionaryPageOffset = 0, 0
	for r.Len() > 0 {
		var h format.PageHeader
		if err := dec.Decode(&h); err != nil {
			return nil, fmt.Errorf("page header: %w", err)
		}
		size, body := int64(h.CompressedPageSize), len(chunk)-r.Len()
		if size < 0 || size > int64(r.Len()) {
			return nil, fmt.Errorf("page of %d bytes overruns its column chunk", size)
		}
		r.Seek(size, 1)
		page := chunk[body : body+int(size)]
		levels, compressed, err := splitLevels(&h, page)
		if err != nil {
			return nil, err
		}
		values := page[levels:]
		if compressed {
			if values, err = pagecodec.Check(format.Lz4, values, int64(len(values)), int64(h.UncompressedPageSize)-int64(levels)); err != nil {
				return nil, err
			}
		}
		h.CompressedPageSize, h.CRC = int32(levels+len(values)), 0
		header, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
		if err != nil {
			return nil, err
		}
		switch {
		case h.DictionaryPageHeader.Valid && m.DictionaryPageOffset == 0:
			m.DictionaryPageOffset = int64(len(out))
		case !h.DictionaryPageHeader.Valid && m.DataPageOffset == 0:
			m.DataPageOffset = int64(len(out))
		}
		out = append(append(append(out, header...), page[:levels]...), values...)
	}
	return out, nil
}

// fetchUncompressedLZ4 is fetchParquetFile of a file with LZ4 column
// chunks (f, opened from sf): it reads the file whole and reads a copy
// whose LZ4 chunks are stored uncompressed.
func fetchUncompressedLZ4(ctx context.Context, st Storage, sf *sparseFile, p Part, f *parquet.File, details Detail) (*parquetFile, error) {
	data, ok := sf.bytes(0, p.Size)
	if !ok {
		var err error
		if data, err = st.Read(ctx, p.Key); err != nil {
			return nil, err
		}
		if int64(len(data)) != p.Size {
			return nil, fmt.Errorf("%s: %d bytes read, %d listed", p.Key, len(data), p.Size)
		}
	}
	plain, err := uncompressedLZ4(data, f.Metadata())
	if err != nil {
		return nil, fmt.Errorf("LZ4 (Hadoop's framing): %w", err)
	}
	return fetchParquetFile(ctx, bytesStorage(plain), Part{Key: p.Key, Size: int64(len(plain))}, details)
}

// bytesStorage serves one file's bytes under any key.
type bytesStorage []byte

func (b bytesStorage) Read(context.Context, string) ([]byte, error) { return b, nil }

func (b bytesStorage) ReadRange(_ context.Context, _ string, off, n int64) ([]byte, error) {
	if off < 0 || off > int64(len(b)) {
		return nil, fmt.Errorf("read at %d past the end (%d)", off, len(b))
	}
	return b[off:min(off+n, int64(len(b)))], nil
}
