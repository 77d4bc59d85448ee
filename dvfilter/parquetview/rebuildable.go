package parquetview

import (
	"context"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// CheckRebuild reads the footer of a file and says whether a view that
// leaves rows out could rebuild its row groups, as far as their codecs
// tell: none in a codec no reader here decodes (LZO), and none in Hadoop's
// LZ4 (Spark's "lz4") with a list or a map, which only parquet-go would
// rebuild, and it cannot decode that codec. (deltafs doctor asks it of
// files with deletion vectors; a view can still fail on a file's bytes.)
func CheckRebuild(ctx context.Context, src RangeReader, size int64) error {
	md, _, err := readFooter(ctx, src, size)
	if err != nil {
		return err
	}
	lv, err := leaves(md.Schema)
	if err != nil {
		return fmt.Errorf("%v: %w", err, ErrParquet)
	}
	repeated := slices.ContainsFunc(lv, func(l leafInfo) bool { return l.maxRep > 0 })
	for i, rg := range md.RowGroups {
		for _, cc := range rg.Columns {
			c := cc.MetaData.Codec
			if pagecodec.Lookup(c).String() == "UNSUPPORTED" || c == format.Lz4 && repeated {
				return fmt.Errorf("row group %d: %w", i, unrebuildable(c))
			}
		}
	}
	return nil
}

// unrebuildable is the error of a row group parquet-go would rebuild in
// a codec it cannot decode.
func unrebuildable(c format.CompressionCodec) error {
	if c == format.Lz4 {
		return fmt.Errorf(`compression codec LZ4 (Hadoop's framing of LZ4 blocks, Spark's "lz4"), which parquet-go cannot decode: only row groups rebuilt page by page can be, not those parquet-go re-encodes (a list or a map in them, a widened type): %w`, ErrParquet)
	}
	return fmt.Errorf("compression codec %v, which no reader here decodes: %w", c, ErrParquet)
}
