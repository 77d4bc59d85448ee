package parquetview

import (
	"fmt"
	"math/big"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// LeafType is a table's type of a leaf column that may be wider than the
// type a data file stores (Delta type widening, PROTOCOL.md "Type
// Widening"): a file written before the change is served with the column
// in the table's type, its values converted as a Delta reader converts
// them. Without it a folder of files of two types reads differently in
// each reader (the first file's type wins in some, others refuse).
type LeafType struct {
	Kind             LeafKind
	Precision, Scale int // DecimalType
}

// LeafKind is a Delta primitive type: one a column can be widened to
// (Short to TimestampNTZ), or any a missing column is filled in.
type LeafKind int

const (
	ShortType LeafKind = iota + 1
	IntType
	LongType
	DoubleType
	DecimalType
	TimestampNTZType
	BooleanType
	ByteType
	FloatType
	StringType
	BinaryType
	DateType
	TimestampType
	// VoidType (Spark's NullType) is a column no file stores: Delta's
	// writers drop it. It is served as Parquet's null type (UNKNOWN).
	VoidType
)

// storedKind is what a Parquet leaf holds, in Delta's terms.
type storedKind int

const (
	storedOther   storedKind = iota
	storedInteger            // INT32 of 8, 16 or 32 bits
	storedLong
	storedFloat
	storedDouble
	storedDate
	storedDecimal
)

// storedType classifies a leaf schema element.
type storedType struct {
	kind             storedKind
	bits             int // storedInteger
	precision, scale int // storedDecimal
}

func classify(el *format.SchemaElement) storedType {
	lt := el.LogicalType.Value
	ct, hasCT := el.ConvertedType.Get()
	if d, ok := lt.(*format.DecimalType); ok {
		return storedType{kind: storedDecimal, precision: int(d.Precision), scale: int(d.Scale)}
	}
	if hasCT && ct == deprecated.Decimal {
		return storedType{kind: storedDecimal, precision: int(el.Precision.V), scale: int(el.Scale.V)}
	}
	switch el.Type.V {
	case format.Int32:
		switch t := lt.(type) {
		case nil:
		case *format.DateType:
			return storedType{kind: storedDate}
		case *format.IntType:
			if t.IsSigned && (t.BitWidth == 8 || t.BitWidth == 16 || t.BitWidth == 32) {
				return storedType{kind: storedInteger, bits: int(t.BitWidth)}
			}
			return storedType{}
		default:
			return storedType{}
		}
		if !hasCT {
			return storedType{kind: storedInteger, bits: 32}
		}
		switch ct {
		case deprecated.Date:
			return storedType{kind: storedDate}
		case deprecated.Int8:
			return storedType{kind: storedInteger, bits: 8}
		case deprecated.Int16:
			return storedType{kind: storedInteger, bits: 16}
		case deprecated.Int32:
			return storedType{kind: storedInteger, bits: 32}
		}
	case format.Int64:
		if t, ok := lt.(*format.IntType); (lt == nil && (!hasCT || ct == deprecated.Int64)) || (ok && t.IsSigned && t.BitWidth == 64) {
			return storedType{kind: storedLong}
		}
	case format.Float:
		return storedType{kind: storedFloat}
	case format.Double:
		return storedType{kind: storedDouble}
	}
	return storedType{}
}

// widening is how one stored leaf is served in a wider type: the leaf
// node it is written as (repetition left to the caller) and the
// conversion of each non-null value.
type widening struct {
	node    parquet.Node
	convert func(parquet.Value) (parquet.Value, error)
}

// wideningFor returns how a leaf stored as el is served as t; nil when el
// already has that type, or is not a type t widens (then it is served as
// stored: a file can hold a type the table's history does not explain).
func wideningFor(el *format.SchemaElement, t LeafType) *widening {
	from := classify(el)
	switch t.Kind {
	case ShortType, IntType:
		bits := 16
		if t.Kind == IntType {
			bits = 32
		}
		if from.kind == storedInteger && from.bits < bits {
			// The same INT32 values; only the annotation widens.
			return &widening{node: parquet.Int(bits), convert: same}
		}
	case LongType:
		if from.kind == storedInteger {
			return &widening{node: parquet.Int(64), convert: func(v parquet.Value) (parquet.Value, error) {
				return parquet.Int64Value(int64(v.Int32())), nil
			}}
		}
	case DoubleType:
		switch from.kind {
		case storedInteger:
			return &widening{node: parquet.Leaf(parquet.DoubleType), convert: func(v parquet.Value) (parquet.Value, error) {
				return parquet.DoubleValue(float64(v.Int32())), nil
			}}
		case storedFloat:
			return &widening{node: parquet.Leaf(parquet.DoubleType), convert: func(v parquet.Value) (parquet.Value, error) {
				return parquet.DoubleValue(float64(v.Float())), nil
			}}
		}
	case TimestampNTZType:
		if from.kind == storedDate {
			const microsPerDay = 86_400_000_000
			return &widening{node: parquet.TimestampAdjusted(parquet.Microsecond, false), convert: func(v parquet.Value) (parquet.Value, error) {
				return parquet.Int64Value(int64(v.Int32()) * microsPerDay), nil
			}}
		}
	case DecimalType:
		return decimalWidening(from, t)
	}
	return nil
}

func same(v parquet.Value) (parquet.Value, error) { return v, nil }

// apply converts v, keeping its levels; a null stays as it is.
func (wd *widening) apply(v parquet.Value) (parquet.Value, error) {
	if v.IsNull() {
		return v, nil
	}
	w, err := wd.convert(v)
	if err != nil {
		return v, err
	}
	return w.Level(v.RepetitionLevel(), v.DefinitionLevel(), v.Column()), nil
}

// maxDecimalPrecision is the widest decimal Delta has.
const maxDecimalPrecision = 38

// decimalWidening serves an integer or a narrower decimal as
// decimal(t.Precision, t.Scale): the unscaled value times 10^(scale
// gained), stored as Spark stores that precision (INT32 up to 9 digits,
// INT64 up to 18, else the fewest bytes that hold it).
func decimalWidening(from storedType, t LeafType) *widening {
	if t.Precision < 1 || t.Precision > maxDecimalPrecision || t.Scale < 0 || t.Scale > t.Precision {
		return nil
	}
	var scale, intDigits int
	switch from.kind {
	case storedInteger:
		intDigits = map[int]int{8: 3, 16: 5, 32: 10}[from.bits]
	case storedLong:
		intDigits = 20
	case storedDecimal:
		if from.precision == t.Precision && from.scale == t.Scale {
			return nil
		}
		scale, intDigits = from.scale, from.precision-from.scale
	default:
		return nil
	}
	if t.Scale < scale || t.Precision-t.Scale < intDigits {
		return nil
	}
	factor := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale-scale)), nil)
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Precision)), nil)
	var (
		phys   parquet.Type
		encode func(n *big.Int) parquet.Value
	)
	switch {
	case t.Precision <= 9:
		phys, encode = parquet.Int32Type, func(n *big.Int) parquet.Value { return parquet.Int32Value(int32(n.Int64())) }
	case t.Precision <= 18:
		phys, encode = parquet.Int64Type, func(n *big.Int) parquet.Value { return parquet.Int64Value(n.Int64()) }
	default:
		width := decimalBytes(t.Precision)
		phys = parquet.FixedLenByteArrayType(width)
		encode = func(n *big.Int) parquet.Value { return parquet.FixedLenByteArrayValue(twosComplement(n, width)) }
	}
	convert := func(v parquet.Value) (parquet.Value, error) {
		n, err := unscaled(v)
		if err != nil {
			return v, err
		}
		n.Mul(n, factor)
		if new(big.Int).Abs(n).Cmp(limit) >= 0 {
			return v, fmt.Errorf("value %v does not fit decimal(%d,%d): %w", n, t.Precision, t.Scale, ErrParquet)
		}
		return encode(n), nil
	}
	return &widening{node: parquet.Decimal(t.Scale, t.Precision, phys), convert: convert}
}

// decimalBytes is the fewest bytes holding every unscaled value of a
// decimal of precision p, in two's complement.
func decimalBytes(p int) int {
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
	n := 1
	for new(big.Int).Lsh(big.NewInt(1), uint(8*n-1)).Cmp(limit) < 0 {
		n++
	}
	return n
}

// unscaled reads an integer or a decimal's unscaled value.
func unscaled(v parquet.Value) (*big.Int, error) {
	switch v.Kind() {
	case parquet.Int32:
		return big.NewInt(int64(v.Int32())), nil
	case parquet.Int64:
		return big.NewInt(v.Int64()), nil
	case parquet.FixedLenByteArray, parquet.ByteArray:
		b := v.ByteArray()
		n := new(big.Int).SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 { // negative: two's complement
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
		return n, nil
	}
	return nil, fmt.Errorf("a decimal stored as %v: %w", v.Kind(), ErrParquet)
}

// twosComplement writes n big-endian in width bytes, two's complement.
func twosComplement(n *big.Int, width int) []byte {
	if n.Sign() < 0 {
		n = new(big.Int).Add(n, new(big.Int).Lsh(big.NewInt(1), uint(8*width)))
	}
	return n.FillBytes(make([]byte, width))
}
