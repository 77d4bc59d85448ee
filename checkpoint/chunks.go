package checkpoint

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// chunkRanges lists the byte ranges of the needed column chunks and checks
// that each lies inside the file and decodes to a sane size: the footer
// is input like any other.
func chunkRanges(f *parquet.File, cols *columns, size int64) ([]chunkRange, error) {
	var ranges []chunkRange
	groups := f.Metadata().RowGroups
	for i, rg := range groups {
		if rg.NumRows == 0 {
			continue // an empty row group (pyarrow writes its chunks at offset 0) holds nothing to read
		}
		if len(rg.Columns) != len(f.Metadata().Schema)-1 && len(rg.Columns) <= maxColumnIndex(cols) {
			return nil, fmt.Errorf("row group %d has %d columns", i, len(rg.Columns))
		}
		for _, col := range cols.all() {
			md := rg.Columns[col.Index()].MetaData
			// The pages parquet-go reads: from the dictionary page's offset
			// when there is one, wherever it lies (before or after the
			// data page offset), so the pages checked are those it reads.
			start := md.DataPageOffset
			if md.DictionaryPageOffset != 0 {
				start = md.DictionaryPageOffset
			}
			n := md.TotalCompressedSize
			if start < 4 || n <= 0 || start > size || n > size-start {
				return nil, fmt.Errorf("row group %d: column %v lies outside the file", i, col.Path())
			}
			t := col.Type()
			plain := plainBound(pagecodec.Column{MaxRep: col.MaxRepetitionLevel(), Type: format.Type(t.Kind()), TypeLength: t.Length()}, rg.NumRows)
			if md.TotalUncompressedSize < 0 || md.TotalUncompressedSize > max(maxExpansion*n+1<<20, plain) {
				return nil, fmt.Errorf("row group %d: column %v claims %d bytes from %d", i, col.Path(), md.TotalUncompressedSize, n)
			}
			// parquet-go decodes every row group's pages of a column with
			// the codec of the first row group's chunk: pages checked with
			// another codec than they are decoded with were not checked.
			if len(groups[0].Columns) <= col.Index() {
				return nil, fmt.Errorf("row group 0 has %d columns", len(groups[0].Columns))
			}
			if first := groups[0].Columns[col.Index()].MetaData.Codec; md.Codec != first {
				return nil, fmt.Errorf("row group %d: column %v is stored with %v, row group 0 with %v (a file's chunks of a column are read with one codec)", i, col.Path(), md.Codec, first)
			}
			ranges = append(ranges, chunkRange{rg: i, rows: rg.NumRows, col: col, off: start, n: n, codec: md.Codec})
		}
	}
	if err := checkOverlaps(ranges); err != nil {
		return nil, err
	}
	return ranges, nil
}

// checkOverlaps refuses column chunks sharing bytes: a footer listing one
// row group many times (some 200 bytes each) made every copy decode the
// same pages again, 40 million files from a 0.9 MB file. Each chunk a
// writer writes has bytes of its own.
func checkOverlaps(ranges []chunkRange) error {
	sorted := slices.Clone(ranges)
	slices.SortFunc(sorted, func(a, b chunkRange) int {
		return cmp.Or(cmp.Compare(a.off, b.off), cmp.Compare(a.rg, b.rg), cmp.Compare(a.col.Index(), b.col.Index()))
	})
	for k := 1; k < len(sorted); k++ {
		a, b := sorted[k-1], sorted[k]
		if a.rg == b.rg && a.col.Index() == b.col.Index() {
			continue // one chunk needed twice (a leaf serving two roles)
		}
		if b.off < a.off+a.n {
			return fmt.Errorf("row group %d: column %v at [%d, %d) overlaps row group %d: column %v at [%d, %d)",
				b.rg, b.col.Path(), b.off, b.off+b.n, a.rg, a.col.Path(), a.off, a.off+a.n)
		}
	}
	return nil
}

// maxExpansion bounds how much a column chunk may grow when decompressed.
const maxExpansion = 1000

// plainBound is the most a column chunk (or data page) of values values
// may decode to, whatever it compresses to, when its values have one
// width and it does not repeat: each value and its levels. A column of one
// value written PLAIN (no dictionary) compresses past maxExpansion under
// zstd, a million int64s (8 MB) into 6 KB, as a bulk load's modification
// times do; its values are bounded by its rows (checkValues), which are
// bounded by the file's bytes (checkRows). 0 for values of any length
// (strings), wider than any a checkpoint holds, and repeated columns.
func plainBound(col pagecodec.Column, values int64) int64 {
	bits := col.FixedBits()
	if bits <= 0 || bits > 8*16 || col.MaxRep > 0 || values < 0 { // no checkpoint column is wider than 16 bytes
		return 0
	}
	const levels = 2 // a definition level, bit-packed or in runs, and its share of a run's header
	return ((bits+7)/8+levels)*values + 1<<20
}

func maxColumnIndex(cols *columns) int {
	m := 0
	for _, c := range cols.all() {
		m = max(m, c.Index())
	}
	return m
}
