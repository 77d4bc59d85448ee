package parquetview

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/thriftcheck"
)

// A file written before a column was added to the table lacks it, and a
// Delta reader reads the column as nulls there. A Rename with FillMissing
// serves such a file with the column, all nulls: per row group one small
// data page of definition (and repetition) levels and no values. A
// top-level column's levels are all zero; a field missing inside a stored
// struct takes its levels from the struct, and inside a list or a map its
// repetition too (nested.go).

// missingColumns returns the top-level columns of rn a file whose root
// group's children matched (by index in rn.Columns) lacks, when rn fills
// them: each needs every leaf's Fill type.
func (rn *Rename) missingColumns(matched []bool) []*Column {
	if !rn.FillMissing {
		return nil
	}
	var out []*Column
	for i := range rn.Columns {
		if !matched[i] && rn.Columns[i].Fillable() {
			out = append(out, &rn.Columns[i])
		}
	}
	return out
}

// Fillable reports whether every leaf under c has a Fill type: a file
// lacking c can be served with it.
func (c *Column) Fillable() bool {
	switch {
	case c.Kind == LeafColumn:
		return c.Fill != nil
	case c.Kind == ListColumn && len(c.Children) != 1, c.Kind == MapColumn && len(c.Children) != 2, len(c.Children) == 0:
		return false
	}
	for i := range c.Children {
		if !c.Children[i].Fillable() {
			return false
		}
	}
	return true
}

// fillColumns adds the columns the file lacks to md's schema and, for
// every row group, their null column chunks, laid out by b after what it
// holds: top-level ones after the stored columns, fields inside structs
// (whose schema apply wrote) in their places, their levels read from ls.
func fillColumns(b *viewBuilder, md *format.FileMetaData, fl fills, byID bool, ls *levelSource) error {
	if len(fl.top)+len(fl.nested) == 0 {
		return nil
	}
	var leaves []nullLeaf
	for _, c := range fl.top {
		md.Schema = appendNullSchema(md.Schema, c, c.Name, format.Optional, byID, nil, 0, 0, &leaves)
	}
	md.Schema[0].NumChildren.V += int32(len(fl.top))
	if md.ColumnOrders != nil { // empty where apply dropped every stored column
		for _, nf := range fl.nested {
			for range nf.leaves {
				md.ColumnOrders = slices.Insert(md.ColumnOrders, nf.at, format.ColumnOrder{Value: &format.TypeDefinedOrder{}})
			}
		}
		for range leaves {
			md.ColumnOrders = append(md.ColumnOrders, format.ColumnOrder{Value: &format.TypeDefinedOrder{}})
		}
	}
	filled := len(leaves)
	for _, nf := range fl.nested {
		filled += len(nf.leaves)
	}
	if need := int64(len(md.RowGroups)) * int64(filled) * fillChunkBytes; need > thriftcheck.FooterLimit {
		return fmt.Errorf("filling %d columns in %d row groups would take %d MiB, more than the %d MiB allowed: %w",
			filled, len(md.RowGroups), need>>20, thriftcheck.FooterLimit>>20, ErrParquet)
	}
	for i := range md.RowGroups {
		rg := &md.RowGroups[i]
		rg.Columns = slices.Grow(rg.Columns, filled)
		add := func(l nullLeaf, lv levels) (format.ColumnChunk, error) {
			page, values, err := nullPage(rg.NumRows, l.maxRep, l.maxDef, lv)
			if err != nil {
				return format.ColumnChunk{}, fmt.Errorf("row group %d: %w", i, err)
			}
			n := int64(len(page))
			cc := format.ColumnChunk{
				FileOffset: b.pos,
				MetaData: format.ColumnMetaData{
					Type: l.typ, Encoding: []format.Encoding{format.Plain, format.RLE}, PathInSchema: l.path,
					Codec: format.Uncompressed, NumValues: values, TotalUncompressedSize: n,
					TotalCompressedSize: n, DataPageOffset: b.pos,
					Statistics: format.Statistics{NullCount: values},
				},
			}
			b.add(segment{n: n, data: page})
			rg.TotalByteSize += n
			if rg.TotalCompressedSize > 0 {
				rg.TotalCompressedSize += n
			}
			return cc, nil
		}
		taken := map[int]levels{} // this row group's levels, by sibling
		for _, nf := range fl.nested {
			lv, err := nestedLevels(ls, &nf, rg.NumRows, taken)
			if err != nil {
				return fmt.Errorf("row group %d: %w", i, err)
			}
			for k, l := range nf.leaves {
				cc, err := add(l, lv)
				if err != nil {
					return err
				}
				rg.Columns = slices.Insert(rg.Columns, nf.at+k, cc)
			}
		}
		for _, l := range leaves {
			cc, err := add(l, levels{})
			if err != nil {
				return err
			}
			rg.Columns = append(rg.Columns, cc)
		}
	}
	return nil
}

// fillChunkBytes is about the memory filling one column chunk takes: its
// page, its entry in the footer, and that entry mirrored and encoded. A
// file of 5,000 one-row groups in a table of 300 columns it lacks took 7
// GB to fill from 1 MB stored.
const fillChunkBytes = 4 << 10

// levels are a filled leaf's levels in a row group: repetition and
// definition levels, one a value; nil for all zero, one a row.
type levels struct{ reps, defs []byte }

// nestedLevels returns the levels of nf's leaves in a row group of rows
// rows: all zero where its struct is never null and not repeated, else
// its sibling's, the definition levels cut to the struct's, read once
// per row group (taken).
func nestedLevels(ls *levelSource, nf *nestedFill, rows int64, taken map[int]levels) (levels, error) {
	if nf.structDef == 0 && nf.structRep == 0 {
		return levels{}, nil
	}
	j := ls.sibling(nf)
	sib, ok := taken[j]
	if !ok {
		var err error
		if sib.reps, sib.defs, err = ls.reader(j).take(rows); err != nil {
			return levels{}, err
		}
		taken[j] = sib
	}
	defs := make([]byte, len(sib.defs))
	for k, d := range sib.defs {
		defs[k] = min(d, byte(nf.structDef))
	}
	return levels{sib.reps, defs}, nil
}

// nullLeaf is a leaf of a filled column: its type, path and levels.
type nullLeaf struct {
	typ            format.Type
	path           []string
	maxRep, maxDef int
}

// appendNullSchema appends the schema elements of column c, served as
// name with repetition rep, and records its leaves.
func appendNullSchema(schema []format.SchemaElement, c *Column, name string, rep format.FieldRepetitionType, byID bool, path []string, maxRep, maxDef int, leaves *[]nullLeaf) []format.SchemaElement {
	el := format.SchemaElement{Name: name}
	el.RepetitionType.Set(rep)
	if byID && c.ID > 0 && c.ID <= math.MaxInt32 {
		el.FieldID = int32(c.ID)
	}
	path = append(path[:len(path):len(path)], name)
	switch rep {
	case format.Optional:
		maxDef++
	case format.Repeated:
		maxRep++
		maxDef++
	}
	switch c.Kind {
	case LeafColumn:
		leafElement(&el, *c.Fill)
		*leaves = append(*leaves, nullLeaf{typ: el.Type.V, path: path, maxRep: maxRep, maxDef: maxDef})
		return append(schema, el)
	case StructColumn:
		el.NumChildren.Set(int32(len(c.Children)))
		schema = append(schema, el)
		for i := range c.Children {
			f := &c.Children[i]
			schema = appendNullSchema(schema, f, f.Name, format.Optional, byID, path, maxRep, maxDef, leaves)
		}
		return schema
	case ListColumn:
		// The standard three levels: list, repeated group, element.
		el.NumChildren.Set(1)
		el.ConvertedType.Set(deprecated.List)
		el.LogicalType.Value = &format.ListType{}
		schema = append(schema, el)
		repeated := Column{Kind: StructColumn, Children: []Column{c.Children[0]}}
		repeated.Children[0].Name = "element"
		return appendNullSchema(schema, &repeated, "list", format.Repeated, false, path, maxRep, maxDef, leaves)
	default: // MapColumn
		el.NumChildren.Set(1)
		el.ConvertedType.Set(deprecated.Map)
		el.LogicalType.Value = &format.MapType{}
		schema = append(schema, el)
		kv := format.SchemaElement{Name: "key_value"}
		kv.RepetitionType.Set(format.Repeated)
		kv.NumChildren.Set(2)
		kv.ConvertedType.Set(deprecated.MapKeyValue)
		schema = append(schema, kv)
		kvPath := append(path[:len(path):len(path)], "key_value")
		schema = appendNullSchema(schema, &c.Children[0], "key", format.Required, false, kvPath, maxRep+1, maxDef+1, leaves)
		return appendNullSchema(schema, &c.Children[1], "value", format.Optional, false, kvPath, maxRep+1, maxDef+1, leaves)
	}
}

// leafElement types a leaf schema element as Spark writes t.
func leafElement(el *format.SchemaElement, t LeafType) {
	set := func(typ format.Type, ct deprecated.ConvertedType, lt format.LogicalTypeValue) {
		el.Type.Set(typ)
		if ct >= 0 {
			el.ConvertedType.Set(ct)
		}
		el.LogicalType.Value = lt
	}
	const none = deprecated.ConvertedType(-1)
	switch t.Kind {
	case BooleanType:
		set(format.Boolean, none, nil)
	case ByteType:
		set(format.Int32, deprecated.Int8, &format.IntType{BitWidth: 8, IsSigned: true})
	case ShortType:
		set(format.Int32, deprecated.Int16, &format.IntType{BitWidth: 16, IsSigned: true})
	case IntType:
		set(format.Int32, none, nil)
	case LongType:
		set(format.Int64, none, nil)
	case FloatType:
		set(format.Float, none, nil)
	case DoubleType:
		set(format.Double, none, nil)
	case StringType:
		set(format.ByteArray, deprecated.UTF8, &format.StringType{})
	case BinaryType:
		set(format.ByteArray, none, nil)
	case DateType:
		set(format.Int32, deprecated.Date, &format.DateType{})
	case TimestampType:
		set(format.Int64, deprecated.TimestampMicros, &format.TimestampType{IsAdjustedToUTC: true, Unit: format.TimeUnit{Value: &format.MicroSeconds{}}})
	case TimestampNTZType:
		set(format.Int64, none, &format.TimestampType{Unit: format.TimeUnit{Value: &format.MicroSeconds{}}})
	case VoidType:
		set(format.Int32, none, &format.NullType{})
	case DecimalType:
		lt := &format.DecimalType{Precision: int32(t.Precision), Scale: int32(t.Scale)}
		switch {
		case t.Precision <= 9:
			set(format.Int32, deprecated.Decimal, lt)
		case t.Precision <= 18:
			set(format.Int64, deprecated.Decimal, lt)
		default:
			set(format.FixedLenByteArray, deprecated.Decimal, lt)
			el.TypeLength.Set(int32(decimalBytes(t.Precision)))
		}
		el.Precision.Set(int32(t.Precision))
		el.Scale.Set(int32(t.Scale))
	}
}

// nullPage encodes a data page (v1, uncompressed) of null values, one a
// row or, inside a list or a map, one per level of lv: repetition levels
// (where maxRep > 0) lv.reps, or all zero for nil, as one RLE run;
// definition levels lv.defs, or all zero for nil; no values. It returns
// the page and its number of values.
func nullPage(rows int64, maxRep, maxDef int, lv levels) ([]byte, int64, error) {
	values := rows
	if lv.defs != nil {
		values = int64(len(lv.defs))
	}
	if rows < 0 || values > math.MaxInt32 || lv.defs == nil && lv.reps != nil || lv.reps == nil && values != rows ||
		lv.reps != nil && len(lv.reps) != len(lv.defs) || maxRep == 0 && lv.reps != nil {
		return nil, 0, fmt.Errorf("%d rows in a row group, %d and %d levels: %w", rows, len(lv.reps), len(lv.defs), ErrParquet)
	}
	var body []byte
	encode := func(max int, lvs []byte) error {
		if lvs == nil {
			body = appendZeroLevels(body, values, bits.Len(uint(max)))
			return nil
		}
		enc := rle.Encoding{BitWidth: bits.Len(uint(max))}
		b, err := enc.EncodeLevels(nil, lvs)
		if err != nil {
			return fmt.Errorf("encode levels: %w", err)
		}
		body = binary.LittleEndian.AppendUint32(body, uint32(len(b)))
		body = append(body, b...)
		return nil
	}
	if maxRep > 0 {
		if err := encode(maxRep, lv.reps); err != nil {
			return nil, 0, err
		}
	}
	if maxDef > 0 {
		if err := encode(maxDef, lv.defs); err != nil {
			return nil, 0, err
		}
	}
	h := format.PageHeader{Type: format.DataPage, UncompressedPageSize: int32(len(body)), CompressedPageSize: int32(len(body))}
	h.DataPageHeader.Set(format.DataPageHeader{
		NumValues: int32(values), Encoding: format.Plain,
		DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE,
		Statistics: format.Statistics{NullCount: values},
	})
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		return nil, 0, fmt.Errorf("encode page header: %w", err)
	}
	return append(hb, body...), values, nil
}

// appendZeroLevels appends n zero levels of bitWidth bits as a v1 page
// holds them: their length (4 bytes) and one RLE run.
func appendZeroLevels(b []byte, n int64, bitWidth int) []byte {
	var run []byte
	if n > 0 {
		run = binary.AppendUvarint(nil, uint64(n)<<1)
		run = append(run, make([]byte, (bitWidth+7)/8)...)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(run)))
	return append(b, run...)
}

// Lacking returns the columns of rn (a Rename with FillMissing) that the
// Parquet file src reads lacks and a view would fill, by served name (a
// field inside a struct as its path, dotted): read from the footer's
// schema alone.
func Lacking(ctx context.Context, src RangeReader, size int64, rn *Rename) (_ []string, err error) {
	defer func() {
		// As in build: a malformed footer is a bad file, not a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("decoding failed: %v: %w", r, ErrParquet)
		}
	}()
	footer, err := footerBytes(ctx, src, size)
	if err != nil {
		return nil, err
	}
	fs, err := decodeFooterSchema(footer.b)
	if err != nil {
		return nil, err
	}
	var w renameWalk
	if err := w.walk(&format.FileMetaData{Schema: fs.Schema}, rn); err != nil {
		return nil, err
	}
	var out []string
	for _, c := range w.missing {
		out = append(out, c.Name)
	}
	for _, nf := range w.nested {
		out = append(out, strings.Join(nf.path, "."))
	}
	return out, nil
}
