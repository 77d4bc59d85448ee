package parquetview

import (
	"context"
	"fmt"

	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// CheckRebuild reads the footer of a file and says whether a view that
// leaves rows out could rebuild its row groups, as far as their codecs
// tell: none in a codec no reader here decodes (LZO). (deltafs doctor asks
// it of files with deletion vectors; a view can still fail on a file's
// bytes.)
func CheckRebuild(ctx context.Context, src RangeReader, size int64) error {
	md, _, err := readFooter(ctx, src, size)
	if err != nil {
		return err
	}
	for i, rg := range md.RowGroups {
		for _, cc := range rg.Columns {
			if c := cc.MetaData.Codec; pagecodec.Lookup(c).String() == "UNSUPPORTED" {
				return fmt.Errorf("row group %d: %w", i, unrebuildable(c))
			}
		}
	}
	return nil
}

// unrebuildable is the error of a row group in a codec no reader here
// decodes.
func unrebuildable(c format.CompressionCodec) error {
	return fmt.Errorf("compression codec %v, which no reader here decodes: %w", c, ErrParquet)
}
