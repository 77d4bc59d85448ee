package parquetview

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// What the re-encoder holds of a column is bounded by the bytes its
// column chunk is stored in. A page may claim a million values in a few
// bytes (pagecodec.MaxValues: a page of nulls is that small), and a row
// that goes on over pages (repetition level 1) is held whole until it
// ends, for a row must not span two pages: 64 pages of a million null
// elements, a 3 KB file, made one row of 67 million values and the
// process ran out of memory.

// valueSize is what a parquet.Value takes.
const valueSize = int64(unsafe.Sizeof(parquet.Value{}))

// arrayBytes is what a clone of v copies: its bytes, if it has any.
func arrayBytes(v *parquet.Value) int64 {
	switch v.Kind() {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return int64(len(v.ByteArray()))
	}
	return 0
}

// maxRowBytes is the most the values of one row of a column chunk of
// stored bytes may take held: 64 times the stored bytes, and 32 MiB
// whatever they are (a row of a million null elements, stored in a few
// bytes, takes 24 MiB). A row held is written whole, so the writer holds
// about as much again, briefly.
func maxRowBytes(stored int64) int64 { return 64*max(stored, 0) + 32<<20 }

func errRowTooLong(limit, stored int64) error {
	return fmt.Errorf("a row takes more than %d bytes decoded, from a column chunk of %d bytes: %w", limit, stored, ErrParquet)
}

// flushBytes is about the most bytes of values the re-encoder gives the
// writer at once, in whole rows: the writer holds all it is given until
// it makes a page, and 4,096 values naming one long dictionary entry
// each are gigabytes.
const flushBytes = 4 << 20

// writeBounded returns a function that writes whole rows of values of
// kind to dst, in pieces of about flushBytes or less (values of a fixed
// size are written in one: a batch of them is small), the bytes of byte
// arrays spent from plain (nil: dst writes them with a dictionary).
func writeBounded(dst *parquet.ColumnWriter, kind parquet.Kind, plain *plainBudget) func([]parquet.Value) error {
	arrays := kind == parquet.ByteArray || kind == parquet.FixedLenByteArray
	return func(vals []parquet.Value) error {
		for len(vals) > 0 {
			n, size := len(vals), int64(0)
			if arrays {
				n, size = wholeRows(vals, flushBytes)
			}
			if plain != nil {
				if err := plain.spend(size); err != nil {
					return err
				}
			}
			if _, err := dst.WriteRowValues(vals[:n]); err != nil {
				return fmt.Errorf("encode: %w (%w)", err, ErrParquet)
			}
			vals = vals[n:]
		}
		return nil
	}
}

// wholeRows is how many of vals, from the first, make whole rows of
// about size bytes (the rows until one ends past size, or all of vals),
// and their bytes.
func wholeRows(vals []parquet.Value, size int64) (int, int64) {
	var sum int64
	for i := range vals {
		if sum >= size && vals[i].RepetitionLevel() == 0 {
			return i, sum
		}
		sum += arrayBytes(&vals[i])
	}
	return len(vals), sum
}

// plainBudget is what the byte arrays of a re-encoded row group written in
// full (PLAIN) may take together: 64 times the row group's stored bytes,
// and 64 MiB whatever they are. Values a dictionary page holds once are
// written once for each index naming them: the parquet-go writer holds a
// row group's pages until it ends, and 30,000 indexes naming one 100 KB
// string made 3 GB of a 1 MB file. A column whose pages are all indexes
// keeps its dictionary (checkColumn); one that mixes indexes and values
// (as writers fall back) is written in full, within this budget.
type plainBudget struct {
	left          atomic.Int64
	limit, stored int64
}

func newPlainBudget(rg *format.RowGroup) *plainBudget {
	var stored int64
	for j := range rg.Columns {
		stored += max(rg.Columns[j].MetaData.TotalCompressedSize, 0)
	}
	b := &plainBudget{limit: 64*stored + 64<<20, stored: stored}
	b.left.Store(b.limit)
	return b
}

// spend takes n bytes from the budget, or fails once it is spent.
func (b *plainBudget) spend(n int64) error {
	if b.left.Add(-n) < 0 {
		return fmt.Errorf("re-encoded, the row group's values would take more than %d bytes written in full, from %d stored: %w", b.limit, b.stored, ErrParquet)
	}
	return nil
}

// Filling a field missing from a file (nested.go) takes the levels of a
// sibling leaf, all of a column chunk's at once: 64 pages of a million
// null list elements, a 3 KB file, were 134 MB of them (660 MB
// resident), 1,000 pages ran a process limited to 4 GB out of memory.

// maxChunkLevels is the most levels of a column chunk of stored bytes
// the fill may hold: 64 a stored byte, and 64 million whatever they are
// (a row group of that many rows, a column of them all null).
func maxChunkLevels(stored int64) int64 { return 64*max(stored, 0) + 64<<20 }

// checkLevelsHeld refuses n levels of a column chunk of stored bytes
// past maxChunkLevels.
func checkLevelsHeld(n, stored int64) error {
	if limit := maxChunkLevels(stored); n > limit {
		return fmt.Errorf("more than %d levels from a column chunk of %d bytes: %w", limit, stored, ErrParquet)
	}
	return nil
}
