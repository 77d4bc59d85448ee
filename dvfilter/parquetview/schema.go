package parquetview

import (
	"reflect"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// writeSchema returns the schema re-encoded row groups are written with:
// the source file's schema, same fields in the same order, with every leaf
// PLAIN-encoded but those dict says were dictionary-encoded (by leaf index;
// nil: none), and the leaves widen names (nil: none) in their wider types.
// parquet-go guesses a file column's encoding from the chunk's encoding
// list, and its guess can be unwritable (RLE for INT32 in parquet-mr files
// listing BIT_PACKED, RLE, PLAIN); PLAIN is valid for every type, and a
// dictionary for every type but booleans. A dictionary-encoded column stays
// one: written PLAIN, a long value its rows share is written again for each
// (30,000 rows naming one 100 KB string, a 1 MB file, became 3 GB). Each
// leaf keeps the compression of the source column.
func writeSchema(s *parquet.Schema, widen []*widening, dict []bool) *parquet.Schema {
	leaf := 0
	return parquet.NewSchema(s.Name(), plainNode(s, widen, dict, &leaf))
}

// plainNode is n as written: a group keeps its field order (parquet.Group
// would sort by name); *leaf counts the leaves met so far.
func plainNode(n parquet.Node, widen []*widening, dict []bool, leaf *int) parquet.Node {
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
		return plainLeaf{n, i < len(dict) && dict[i] && n.Type().Kind() != parquet.Boolean}
	}
	fs := n.Fields()
	out := make([]parquet.Field, len(fs))
	for i, f := range fs {
		out[i] = plainField{Node: plainNode(f, widen, dict, leaf), field: f}
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

// dictionaryLeaves says which leaves of a row group's column chunks (in
// leaf order) were written with a dictionary throughout: their encodings
// name one, and no data page fell back to another (by the chunk's page
// encoding stats, where its writer gave them). A chunk that fell back
// (pyarrow does past a dictionary of 1 MiB) is written PLAIN: its values
// are too many for a dictionary, and it was mostly PLAIN anyway.
func dictionaryLeaves(rg *format.RowGroup) []bool {
	dict := make([]bool, len(rg.Columns))
	for j := range rg.Columns {
		md := &rg.Columns[j].MetaData
		dict[j] = slices.ContainsFunc(md.Encoding, dictionaryEncoding) &&
			!slices.ContainsFunc(md.EncodingStats, func(s format.PageEncodingStats) bool {
				data := s.PageType == format.DataPage || s.PageType == format.DataPageV2
				return data && s.Count > 0 && !dictionaryEncoding(s.Encoding)
			})
	}
	return dict
}

func dictionaryEncoding(e format.Encoding) bool {
	return e == format.RLEDictionary || e == format.PlainDictionary
}
