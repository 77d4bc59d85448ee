package parquetview

import (
	"cmp"
	"context"
	"slices"
)

// Extent is a byte range [Start, End) of a file.
type Extent struct{ Start, End int64 }

// ColumnChunks returns where the column chunks of the Parquet file of size
// bytes that src reads lie, sorted by start. A reader that starts in a
// chunk usually reads to its end and no further (a column of a row group):
// the mount reads ahead that far (serve).
func ColumnChunks(ctx context.Context, src RangeReader, size int64) ([]Extent, error) {
	md, dataEnd, err := readFooter(ctx, src, size)
	if err != nil {
		return nil, err
	}
	var out []Extent
	for _, rg := range md.RowGroups {
		for i := range rg.Columns {
			start, end, err := chunkRange(&rg.Columns[i], dataEnd)
			if err != nil {
				return nil, err
			}
			out = append(out, Extent{start, end})
		}
	}
	slices.SortFunc(out, func(a, b Extent) int { return cmp.Compare(a.Start, b.Start) })
	return out, nil
}
