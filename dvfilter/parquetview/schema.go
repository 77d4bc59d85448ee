package parquetview

import (
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// writeSchema returns the schema re-encoded row groups are written with:
// the source file's schema, same fields in the same order, every leaf
// PLAIN-encoded but those values says were a dictionary and pages of its
// indexes only (by leaf index; nil: none), and the leaves widen names
// (nil: none) in their wider types. parquet-go guesses a file column's
// encoding from the chunk's encoding list, and its guess can be unwritable
// (RLE for INT32 in parquet-mr files listing BIT_PACKED, RLE, PLAIN);
// PLAIN is valid for every type, and a dictionary for every type but
// booleans. A column of dictionary indexes keeps a dictionary: written
// PLAIN, a long value its rows share is written again for each (30,000
// rows naming one 100 KB string, a 1 MB file, became 3 GB). Each leaf
// keeps the compression of the source column.
func writeSchema(s *parquet.Schema, widen []*widening, values []chunkValues) *parquet.Schema {
	leaf := 0
	return parquet.NewSchema(s.Name(), plainNode(s, widen, values, &leaf))
}

// plainNode is n as written: a group keeps its field order (parquet.Group
// would sort by name); *leaf counts the leaves met so far.
func plainNode(n parquet.Node, widen []*widening, values []chunkValues, leaf *int) parquet.Node {
	if n.Leaf() {
		i := *leaf
		*leaf++
		if i < len(widen) && widen[i] != nil {
			w := parquet.Encoded(widen[i].node, &parquet.Plain)
			switch {
			case n.Repeated():
				return parquet.Repeated(w)
			case n.Optional():
				return parquet.Optional(w)
			}
			return parquet.Required(w)
		}
		return plainLeaf{n, i < len(values) && values[i] == dictionaryOnly && n.Type().Kind() != parquet.Boolean}
	}
	fs := n.Fields()
	out := make([]parquet.Field, len(fs))
	for i, f := range fs {
		out[i] = plainField{Node: plainNode(f, widen, values, leaf), field: f}
	}
	return plainGroup{Node: n, fields: out}
}

// plainLeaf is a leaf as written: PLAIN, or with a dictionary.
type plainLeaf struct {
	parquet.Node
	dict bool
}

func (l plainLeaf) Encoding() encoding.Encoding {
	if l.dict {
		return &parquet.RLEDictionary
	}
	return &parquet.Plain
}

// Compression is the source column's codec, including the one parquet-go
// does not know (Hadoop's LZ4, which pagecodec encodes).
func (l plainLeaf) Compression() compress.Codec {
	if c := l.Node.Compression(); c != nil {
		return pagecodec.Lookup(c.CompressionCodec())
	}
	return nil
}

type plainGroup struct {
	parquet.Node
	fields []parquet.Field
}

func (g plainGroup) Fields() []parquet.Field { return g.fields }

// plainField is a field of a plainGroup: the source field's name over its
// node as written.
type plainField struct {
	parquet.Node
	field parquet.Field
}

func (f plainField) Name() string                           { return f.field.Name() }
func (f plainField) Value(base reflect.Value) reflect.Value { return f.field.Value(base) }
