package deltagen

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// CorruptFirstPage returns a copy of a Parquet file whose first page of
// its first column chunk has its compressed bytes overwritten: prefix,
// then one byte repeated. The page header gets the checksum of the new
// bytes (a hostile file has a right one, or none), in as many bytes as
// the old one.
func CorruptFirstPage(data, prefix []byte) ([]byte, error) {
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	md := f.Metadata().RowGroups[0].Columns[0].MetaData
	start := md.DataPageOffset
	if d := md.DictionaryPageOffset; d > 0 && d < start {
		start = d
	}
	r := bytes.NewReader(data[start:])
	var h format.PageHeader
	if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r)).Decode(&h); err != nil {
		return nil, err
	}
	hlen := len(data[start:]) - r.Len()
	levels := 0 // a v2 page's levels are not compressed: left as they are
	if v2 := h.DataPageHeaderV2; v2.Valid {
		levels = int(v2.V.RepetitionLevelsByteLength + v2.V.DefinitionLevelsByteLength)
	}
	for fill := 0xff; fill > 0; fill-- { // until the checksum encodes in as many bytes
		out := bytes.Clone(data)
		body := out[int(start)+hlen : int(start)+hlen+int(h.CompressedPageSize)]
		for i := levels; i < len(body); i++ {
			body[i] = byte(fill)
		}
		copy(body[levels:], prefix)
		h.CRC = int32(crc32.ChecksumIEEE(body))
		header, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
		if err != nil {
			return nil, err
		}
		if len(header) == hlen {
			copy(out[start:], header)
			return out, nil
		}
	}
	return nil, errors.New("no corruption keeps the page header's length")
}

// ZstdBomb is a zstd frame that gives no content size, made of RLE
// blocks of 128 KiB each (4 bytes a block): it decodes to blocks×128 KiB.
func ZstdBomb(blocks int) []byte {
	f := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38} // magic; no content size; a 128 KiB window
	for i := range blocks {
		h := uint32(1<<1 | 128<<10<<3) // an RLE block of 128 KiB
		if i == blocks-1 {
			h |= 1 // the last
		}
		f = append(f, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return f
}

// OverclaimLevels returns a copy of a Parquet file whose first data page
// of column col in its first row group, a v2 page of an optional column
// with five bytes of definition levels or more, has them begin with an
// RLE run claiming 2^27 values: what parquet-go's level decoder would
// allocate on trust.
func OverclaimLevels(data []byte, col int) ([]byte, error) {
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	off := f.Metadata().RowGroups[0].Columns[col].MetaData.DataPageOffset
	r := bytes.NewReader(data[off:])
	var h format.PageHeader
	if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r)).Decode(&h); err != nil {
		return nil, err
	}
	if !h.DataPageHeaderV2.Valid || h.DataPageHeaderV2.V.DefinitionLevelsByteLength < 5 {
		return nil, errors.New("not a v2 page with five bytes of definition levels")
	}
	out := bytes.Clone(data)
	levels := off + int64(len(data[off:])-r.Len())
	copy(out[levels:], binary.AppendUvarint(nil, 1<<28)) // a run (low bit 0) of 2^27
	return out, nil
}
