package deltagen

import (
	"encoding/binary"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// ClaimsPerPage is the values each page of ClaimingFile claims.
const ClaimsPerPage = 1 << 20

// ClaimingFile is a Parquet file of one optional INT64 column "x", one row
// group, whose pages each claim ClaimsPerPage values in a few bytes of
// runs: all null, or (dict) all present, in two runs of dictionary indexes
// into a dictionary of two values, 7 and 9: the r-th row of page p
// holds index (r/2^19 + p) % 2. Its size grows with its pages, its rows a million
// times faster: what a writer of long runs may write, and a hostile one
// to make a reader work by the value.
func ClaimingFile(pages int, dict bool) ([]byte, error) {
	out := []byte("PAR1")
	var marshalErr error
	marshal := func(v any) []byte {
		b, err := thrift.Marshal(new(thrift.CompactProtocol), v)
		if err != nil && marshalErr == nil {
			marshalErr = err
		}
		return b
	}
	var dictOff int64
	encodings := []format.Encoding{format.RLE, format.Plain}
	level := byte(0)
	if dict {
		dictOff, level = int64(len(out)), 1
		values := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 7), 9)
		h := format.PageHeader{Type: format.DictionaryPage, UncompressedPageSize: 16, CompressedPageSize: 16}
		h.DictionaryPageHeader.Set(format.DictionaryPageHeader{NumValues: 2, Encoding: format.Plain})
		out = append(append(out, marshal(&h)...), values...)
		encodings = append(encodings, format.RLEDictionary)
	}
	dataOff := int64(len(out))
	for p := range pages {
		levels := append(binary.AppendUvarint(nil, ClaimsPerPage<<1), level)
		body := binary.LittleEndian.AppendUint32(nil, uint32(len(levels)))
		body = append(body, levels...)
		enc := format.Plain
		if dict {
			enc = format.RLEDictionary
			body = append(body, 1) // bit width
			for half := range 2 {
				body = append(binary.AppendUvarint(body, ClaimsPerPage/2<<1), byte((half+p)%2))
			}
		}
		h := format.PageHeader{Type: format.DataPage, UncompressedPageSize: int32(len(body)), CompressedPageSize: int32(len(body))}
		h.DataPageHeader.Set(format.DataPageHeader{NumValues: ClaimsPerPage, Encoding: enc, DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE})
		out = append(append(out, marshal(&h)...), body...)
	}
	rows := int64(pages) * ClaimsPerPage
	size := int64(len(out)) - 4
	nulls := rows
	if dict {
		nulls = 0
	}
	md := format.ColumnMetaData{
		Type: format.Int64, Encoding: encodings, PathInSchema: []string{"x"}, Codec: format.Uncompressed,
		NumValues: rows, TotalUncompressedSize: size, TotalCompressedSize: size,
		DataPageOffset: dataOff, DictionaryPageOffset: dictOff,
		Statistics: format.Statistics{NullCount: nulls},
	}
	fm := format.FileMetaData{
		Version: 1, NumRows: rows,
		Schema: []format.SchemaElement{
			{Name: "schema", NumChildren: thrift.New(int32(1))},
			{Name: "x", Type: thrift.New(format.Int64), RepetitionType: thrift.New(format.Optional)},
		},
		RowGroups: []format.RowGroup{{Columns: []format.ColumnChunk{{FileOffset: 4, MetaData: md}}, TotalByteSize: size, NumRows: rows, FileOffset: 4, TotalCompressedSize: size}},
	}
	footer := marshal(&fm)
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...), marshalErr
}
