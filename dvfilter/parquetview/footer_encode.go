package parquetview

import (
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The types below mirror format.FileMetaData down to the column statistics,
// with one difference: Statistics is a pointer, so that a column chunk
// without statistics is written without them. format.ColumnMetaData always
// writes its Statistics struct (null_count included, as 0): copied through
// it, a chunk whose source had no statistics would claim to hold no nulls,
// and a reader pruning row groups by null count would drop rows.

type footerMeta struct {
	Version                  int32                              `thrift:"1,required"`
	Schema                   thrift.Slice[format.SchemaElement] `thrift:"2,required"`
	NumRows                  int64                              `thrift:"3,required"`
	RowGroups                []footerRowGroup                   `thrift:"4,required"`
	KeyValueMetadata         thrift.Slice[format.KeyValue]      `thrift:"5,optional"`
	CreatedBy                string                             `thrift:"6,optional"`
	ColumnOrders             thrift.Slice[format.ColumnOrder]   `thrift:"7,optional"`
	EncryptionAlgorithm      format.EncryptionAlgorithm         `thrift:"8,optional"`
	FooterSigningKeyMetadata []byte                             `thrift:"9,optional"`
}

type footerRowGroup struct {
	Columns             []footerColumnChunk                `thrift:"1,required"`
	TotalByteSize       int64                              `thrift:"2,required"`
	NumRows             int64                              `thrift:"3,required"`
	SortingColumns      thrift.Slice[format.SortingColumn] `thrift:"4,optional"`
	FileOffset          int64                              `thrift:"5,optional"`
	TotalCompressedSize int64                              `thrift:"6,optional"`
	Ordinal             int16                              `thrift:"7,optional,writezero"`
}

type footerColumnChunk struct {
	FilePath                string                      `thrift:"1,optional"`
	FileOffset              int64                       `thrift:"2,required"`
	MetaData                footerColumnMeta            `thrift:"3,optional"`
	OffsetIndexOffset       int64                       `thrift:"4,optional"`
	OffsetIndexLength       int32                       `thrift:"5,optional"`
	ColumnIndexOffset       int64                       `thrift:"6,optional"`
	ColumnIndexLength       int32                       `thrift:"7,optional"`
	CryptoMetadata          format.ColumnCryptoMetaData `thrift:"8,optional"`
	EncryptedColumnMetadata []byte                      `thrift:"9,optional"`
}

type footerColumnMeta struct {
	Type                  format.Type                            `thrift:"1,required"`
	Encoding              thrift.Slice[format.Encoding]          `thrift:"2,required"`
	PathInSchema          thrift.Slice[string]                   `thrift:"3,required"`
	Codec                 format.CompressionCodec                `thrift:"4,required"`
	NumValues             int64                                  `thrift:"5,required"`
	TotalUncompressedSize int64                                  `thrift:"6,required"`
	TotalCompressedSize   int64                                  `thrift:"7,required"`
	KeyValueMetadata      thrift.Slice[format.KeyValue]          `thrift:"8,optional"`
	DataPageOffset        int64                                  `thrift:"9,required"`
	IndexPageOffset       int64                                  `thrift:"10,optional"`
	DictionaryPageOffset  int64                                  `thrift:"11,optional"`
	Statistics            *format.Statistics                     `thrift:"12,optional"`
	EncodingStats         thrift.Slice[format.PageEncodingStats] `thrift:"13,optional"`
	BloomFilterOffset     int64                                  `thrift:"14,optional"`
	BloomFilterLength     int32                                  `thrift:"15,optional"`
	SizeStatistics        format.SizeStatistics                  `thrift:"16,optional"`
	GeospatialStatistics  format.GeospatialStatistics            `thrift:"17,optional"`
}

// mirrorFooter converts md for encoding; all-zero statistics (what a chunk
// without statistics decodes to) are left out.
func mirrorFooter(md *format.FileMetaData) *footerMeta {
	out := &footerMeta{
		Version: md.Version, Schema: md.Schema, NumRows: md.NumRows, KeyValueMetadata: md.KeyValueMetadata,
		CreatedBy: md.CreatedBy, ColumnOrders: md.ColumnOrders, EncryptionAlgorithm: md.EncryptionAlgorithm,
		FooterSigningKeyMetadata: md.FooterSigningKeyMetadata,
	}
	for _, rg := range md.RowGroups {
		frg := footerRowGroup{
			TotalByteSize: rg.TotalByteSize, NumRows: rg.NumRows, SortingColumns: rg.SortingColumns,
			FileOffset: rg.FileOffset, TotalCompressedSize: rg.TotalCompressedSize, Ordinal: rg.Ordinal,
		}
		for _, cc := range rg.Columns {
			m := cc.MetaData
			fm := footerColumnMeta{
				Type: m.Type, Encoding: m.Encoding, PathInSchema: m.PathInSchema, Codec: m.Codec,
				NumValues: m.NumValues, TotalUncompressedSize: m.TotalUncompressedSize,
				TotalCompressedSize: m.TotalCompressedSize, KeyValueMetadata: m.KeyValueMetadata,
				DataPageOffset: m.DataPageOffset, IndexPageOffset: m.IndexPageOffset,
				DictionaryPageOffset: m.DictionaryPageOffset, EncodingStats: m.EncodingStats,
				BloomFilterOffset: m.BloomFilterOffset, BloomFilterLength: m.BloomFilterLength,
				SizeStatistics: m.SizeStatistics, GeospatialStatistics: m.GeospatialStatistics,
			}
			if hasStats(&m.Statistics) {
				st := m.Statistics
				fm.Statistics = &st
			}
			frg.Columns = append(frg.Columns, footerColumnChunk{
				FilePath: cc.FilePath, FileOffset: cc.FileOffset, MetaData: fm,
				OffsetIndexOffset: cc.OffsetIndexOffset, OffsetIndexLength: cc.OffsetIndexLength,
				ColumnIndexOffset: cc.ColumnIndexOffset, ColumnIndexLength: cc.ColumnIndexLength,
				CryptoMetadata: cc.CryptoMetadata, EncryptedColumnMetadata: cc.EncryptedColumnMetadata,
			})
		}
		out.RowGroups = append(out.RowGroups, frg)
	}
	return out
}
