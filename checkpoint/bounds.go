package checkpoint

import (
	"bytes"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// A checkpoint decodes to memory in proportion to its rows and values,
// which run-length and dictionary encodings let a file claim in numbers
// out of proportion to its bytes: 64 million adds of one path from a few
// hundred bytes. These bounds tie them to the bytes stored.

// maxRowsPerByte bounds a checkpoint file's rows by its size. Every row
// of a checkpoint is an action of its own, and file actions (nearly all
// of them) have distinct paths: checkpoints as Spark, delta-rs and the
// kernels write them (plain or dictionary encoding, Snappy or zstd) hold
// at most some 1.4 rows a byte even with paths "0", "1", "2"...; the
// densest found, those paths DELTA_BYTE_ARRAY-encoded under zstd, 9.5;
// the tables of the test data, under 0.01.
//
// A row costs about 80 bytes of heap at the peak of its decoding (its
// action.File, 40, allocated for every row up front, and its values in
// the column leaves), whatever its bytes: 16 million adds sharing one
// dictionary path, a 511 KB file, took 1.3 GB (1.6 GB resident), and a
// 1 MB file may take about 2.6 GB. Refusing repeated add paths (the first
// pass reads them)
// would lower that a few times at most, paths all distinct reaching 9.5
// rows a byte; this figure is what bounds it.
const maxRowsPerByte = 32

// rowsSlack is rows any file may hold whatever its size.
const rowsSlack = 1 << 16

// maxValuesPerRow bounds the values of a repeated column (partition
// values, configuration, features) by the rows of its row group, beyond
// valuesSlack: a table partitioned by hundreds of columns is not one.
const (
	maxValuesPerRow = 256
	valuesSlack     = 1 << 16
)

// checkRows refuses a file whose row groups claim more rows than its size
// can hold.
func checkRows(md *format.FileMetaData, size int64) error {
	total := int64(0)
	for i, rg := range md.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > maxRowsPerByte*size+rowsSlack-total {
			return fmt.Errorf("row group %d claims %d rows, the file of %d bytes holds at most %d (%d a byte)", i, rg.NumRows, size, maxRowsPerByte*size+rowsSlack, maxRowsPerByte)
		}
		total += rg.NumRows
	}
	return nil
}

// checkValues refuses a column chunk whose pages claim more values than
// its row group's rows allow: one a row (a level, null or not) in a
// column that does not repeat, maxValuesPerRow in one that does. Its
// pages were checked (checkPages): their headers decode.
func checkValues(md *format.FileMetaData, sf *sparseFile, chunks []chunkRange, pages map[chunkID][]pageAt) error {
	for _, c := range chunks {
		rows := md.RowGroups[c.rg].NumRows
		limit := rows
		if c.col.MaxRepetitionLevel() > 0 {
			limit = maxValuesPerRow*rows + valuesSlack
		}
		data, ok := sf.bytes(c.off, c.n)
		if !ok {
			return fmt.Errorf("column chunk at %d was not fetched", c.off)
		}
		values := int64(0)
		for _, p := range pages[chunkID{c.rg, c.col.Index()}] {
			if p.dict {
				continue
			}
			n := p.rows // a column that does not repeat: its values (pageRows)
			if c.col.MaxRepetitionLevel() > 0 {
				var h format.PageHeader
				dec := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(bytes.NewReader(data[p.start:p.end])))
				if err := dec.Decode(&h); err != nil {
					return fmt.Errorf("column chunk at %d: page header at byte %d: %w", c.off, p.start, err)
				}
				n = pageValues(&h)
			}
			if values += max(n, 0); values > limit { // -1: not a data page
				return fmt.Errorf("row group %d: column %v claims more than %d values in %d rows", c.rg, c.col.Path(), limit, rows)
			}
		}
	}
	return nil
}
