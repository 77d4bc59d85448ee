package checkpoint

import (
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/thriftcheck"
)

// footerSchema is the schema of a Parquet footer, the rest skipped.
type footerSchema struct {
	Schema thrift.Slice[format.SchemaElement] `thrift:"2,required"`
}

// checkSchema decodes the schema of a footer (thriftcheck.Footer has
// walked it: decoding is safe) and refuses one parquet-go could not build
// safely (thriftcheck.Schema, as data file views do): parquet-go's column
// loader allocates for every level of every column above it before its
// own depth check, and sizes buffers by a fixed-length column's width.
func checkSchema(footer []byte) error {
	var fs footerSchema
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &fs); err != nil {
		return fmt.Errorf("decode footer schema: %w", err)
	}
	return thriftcheck.Schema(fs.Schema)
}
