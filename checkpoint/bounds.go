package checkpoint

import (
	"fmt"

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
// densest made, those paths DELTA_BYTE_ARRAY-encoded under zstd and the
// other columns dictionaries of one value, 10.2 (TestDensestCheckpointRead);
// the tables of the test data, under 0.01.
//
// A row costs about 80 bytes of heap at the peak of its decoding (its
// action.File, 40, allocated for every row up front, and its values in
// the column leaves), whatever its bytes: 16 million adds sharing one
// dictionary path, a 511 KB file, took 1.3 GB (1.6 GB resident), and a
// 1 MB file at this bound may take about 1.3 GB (2.6 GB at 32, the bound
// until 2026-12-05). Refusing repeated add paths (the first pass reads
// them) would lower that a few times at most, paths all distinct reaching
// 10 rows a byte; this figure is what bounds it.
const maxRowsPerByte = 16

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
// column that does not repeat, maxValuesPerRow in one that does.
func checkValues(c chunkRange, claimed int64) error {
	limit := c.rows
	if c.col.MaxRepetitionLevel() > 0 {
		limit = maxValuesPerRow*c.rows + valuesSlack
	}
	if claimed > limit {
		return fmt.Errorf("row group %d: column %v claims more than %d values in %d rows", c.rg, c.col.Path(), limit, c.rows)
	}
	return nil
}
