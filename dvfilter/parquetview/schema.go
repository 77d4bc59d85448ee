package parquetview

import (
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// writeSchema returns the schema re-encoded row groups are written with:
// the source file's schema, same fields in the same order, with every leaf
// PLAIN-encoded. parquet-go guesses a file column's encoding from the
// chunk's encoding list, and its guess can be unwritable (RLE for INT32 in
// parquet-mr files listing BIT_PACKED, RLE, PLAIN); PLAIN is valid for
// every type. Each leaf keeps the compression of the source column.
func writeSchema(s *parquet.Schema) *parquet.Schema {
	return parquet.NewSchema(s.Name(), plainNode{s})
}

// plainNode wraps a schema node, overriding leaf encodings. Fields keeps
// the wrapped node's field order (parquet.Group would sort by name).
type plainNode struct{ parquet.Node }

func (n plainNode) Encoding() encoding.Encoding { return plainEncoding(n.Node) }
func (n plainNode) Fields() []parquet.Field     { return plainFields(n.Node) }

type plainField struct{ parquet.Field }

func (f plainField) Encoding() encoding.Encoding { return plainEncoding(f.Field) }
func (f plainField) Fields() []parquet.Field     { return plainFields(f.Field) }

func plainEncoding(n parquet.Node) encoding.Encoding {
	if n.Leaf() {
		return &parquet.Plain
	}
	return nil
}

func plainFields(n parquet.Node) []parquet.Field {
	fs := n.Fields()
	out := make([]parquet.Field, len(fs))
	for i, f := range fs {
		out[i] = plainField{f}
	}
	return out
}
