package deltagen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// ContinueLastRow returns a copy of an uncompressed Parquet file whose
// last column chunk (by offset), a leaf repeated once (maximum
// repetition level 1) whose definition level def is a null in a list
// (1 for a list of optional elements), is followed by pages v1 data
// pages of perPage such nulls each, every one continuing the chunk's
// last row: one row of pages×perPage values, some 30 bytes a page. Page
// indexes are dropped (they lay between the chunks and the footer).
func ContinueLastRow(data []byte, pages, perPage int, def byte) ([]byte, error) {
	if len(data) < 12 {
		return nil, errors.New("not a Parquet file")
	}
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	if n > len(data)-12 {
		return nil, errors.New("footer longer than the file")
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[len(data)-8-n:len(data)-8], &md); err != nil {
		return nil, err
	}
	var last *format.ColumnChunk
	var rg *format.RowGroup
	end := int64(0)
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			cc := &md.RowGroups[i].Columns[j]
			cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0
			cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0
			m := &cc.MetaData
			start := m.DataPageOffset
			if d := m.DictionaryPageOffset; d > 0 && d < start {
				start = d
			}
			if e := start + m.TotalCompressedSize; e > end {
				end, last, rg = e, cc, &md.RowGroups[i]
			}
		}
	}
	if last == nil || last.MetaData.Codec != format.Uncompressed {
		return nil, errors.New("no uncompressed column chunk")
	}
	levels := func(width int, level byte) []byte { // one RLE run, length first
		run := binary.AppendUvarint(nil, uint64(perPage)<<1)
		run = append(run, make([]byte, (width+7)/8)...)
		run[len(run)-1] = level
		return append(binary.LittleEndian.AppendUint32(nil, uint32(len(run))), run...)
	}
	body := slices.Concat(levels(1, 1), levels(8, def)) // a byte a level for any width up to 8
	h := format.PageHeader{Type: format.DataPage, UncompressedPageSize: int32(len(body)), CompressedPageSize: int32(len(body))}
	h.DataPageHeader.Valid = true
	h.DataPageHeader.V = format.DataPageHeader{NumValues: int32(perPage), Encoding: format.Plain,
		DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE}
	header, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		return nil, err
	}
	page := slices.Concat(header, body)
	out := slices.Clone(data[:end])
	for range pages {
		out = append(out, page...)
	}
	added := int64(pages * len(page))
	last.MetaData.NumValues += int64(pages) * int64(perPage)
	last.MetaData.TotalCompressedSize += added
	last.MetaData.TotalUncompressedSize += added
	last.MetaData.Statistics.NullCount += int64(pages) * int64(perPage)
	rg.TotalByteSize += added
	if rg.TotalCompressedSize > 0 {
		rg.TotalCompressedSize += added
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...), nil
}
