package parquetview

import (
	"encoding/binary"
	"fmt"
	"math"
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
	// sameValues: only the annotation widens (byte or short to a wider
	// INT32); pages are served as stored.
	sameValues bool
	// plain converts PLAIN values page by page where a loop over their
	// bytes does it (four bytes to eight); nil: value by value (pages).
	plain func([]byte) ([]byte, error)
	// scaled is plain for a decimal stored as integers of the given
	// bytes, served within 18 digits (nil: none, or not for that width).
	scaled func(stored int) func([]byte) ([]byte, error)
}

// fourToEight converts PLAIN values of four bytes to PLAIN values of
// eight, each by f.
func fourToEight(f func(uint32) uint64) func([]byte) ([]byte, error) {
	return func(vals []byte) ([]byte, error) {
		if len(vals)%4 != 0 {
			return nil, fmt.Errorf("%d bytes of 4-byte values: %w", len(vals), ErrParquet)
		}
		out := make([]byte, 2*len(vals))
		for i := 0; i < len(vals); i += 4 {
			binary.LittleEndian.PutUint64(out[2*i:], f(binary.LittleEndian.Uint32(vals[i:])))
		}
		return out, nil
	}
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
			return &widening{node: parquet.Int(bits), convert: same, sameValues: true}
		}
	case LongType:
		if from.kind == storedInteger {
			return &widening{node: parquet.Int(64), convert: func(v parquet.Value) (parquet.Value, error) {
				return parquet.Int64Value(int64(v.Int32())), nil
			}, plain: fourToEight(func(x uint32) uint64 { return uint64(int64(int32(x))) })}
		}
	case DoubleType:
		switch from.kind {
		case storedInteger:
			return &widening{node: parquet.Leaf(parquet.DoubleType), convert: func(v parquet.Value) (parquet.Value, error) {
				return parquet.DoubleValue(float64(v.Int32())), nil
			}, plain: fourToEight(func(x uint32) uint64 { return math.Float64bits(float64(int32(x))) })}
		case storedFloat:
			return &widening{node: parquet.Leaf(parquet.DoubleType), convert: func(v parquet.Value) (parquet.Value, error) {
				return parquet.DoubleValue(float64(v.Float())), nil
			}, plain: fourToEight(func(x uint32) uint64 { return math.Float64bits(float64(math.Float32frombits(x))) })}
		}
	case TimestampNTZType:
		if from.kind == storedDate {
			return &widening{node: parquet.TimestampAdjusted(parquet.Microsecond, false), convert: func(v parquet.Value) (parquet.Value, error) {
				return parquet.Int64Value(int64(v.Int32()) * microsPerDay), nil
			}, plain: fourToEight(func(x uint32) uint64 { return uint64(int64(int32(x)) * microsPerDay) })}
		}
	case DecimalType:
		return decimalWidening(from, t)
	}
	return nil
}

func same(v parquet.Value) (parquet.Value, error) { return v, nil }

// pages returns how pages of a leaf stored as el are converted: PLAIN
// values of a fixed width in, PLAIN values of the served type out; nil
// for values of no fixed width (a decimal stored as a byte array).
func (wd *widening) pages(el *format.SchemaElement) *pageConversion {
	var (
		width int
		read  func([]byte) parquet.Value
	)
	switch el.Type.V {
	case format.Int32:
		width, read = 4, func(b []byte) parquet.Value { return parquet.Int32Value(int32(binary.LittleEndian.Uint32(b))) }
	case format.Int64:
		width, read = 8, func(b []byte) parquet.Value { return parquet.Int64Value(int64(binary.LittleEndian.Uint64(b))) }
	case format.Float:
		width, read = 4, func(b []byte) parquet.Value {
			return parquet.FloatValue(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		}
	case format.FixedLenByteArray:
		width, read = int(el.TypeLength.V), func(b []byte) parquet.Value { return parquet.FixedLenByteArrayValue(b) }
	}
	served := wd.node.Type()
	var (
		out   format.Type
		write func([]byte, parquet.Value) []byte
	)
	switch served.Kind() {
	case parquet.Int32:
		out, write = format.Int32, func(b []byte, v parquet.Value) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v.Int32())) }
	case parquet.Int64:
		out, write = format.Int64, func(b []byte, v parquet.Value) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v.Int64())) }
	case parquet.Double:
		out, write = format.Double, func(b []byte, v parquet.Value) []byte {
			return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Double()))
		}
	case parquet.FixedLenByteArray:
		out, write = format.FixedLenByteArray, func(b []byte, v parquet.Value) []byte { return append(b, v.ByteArray()...) }
	}
	if width <= 0 || write == nil {
		return nil
	}
	if wd.plain != nil {
		return &pageConversion{out: out, convert: wd.plain, cannot: errWhole, decodes: true}
	}
	if wd.scaled != nil && el.Type.V != format.FixedLenByteArray {
		if f := wd.scaled(width); f != nil {
			return &pageConversion{out: out, convert: f, cannot: errWhole, decodes: true}
		}
	}
	convert := func(vals []byte) ([]byte, error) {
		if len(vals)%width != 0 {
			return nil, fmt.Errorf("%d bytes of %d-byte values: %w", len(vals), width, ErrParquet)
		}
		dst := make([]byte, 0, len(vals)/width*8)
		for i := 0; i < len(vals); i += width {
			v, err := wd.convert(read(vals[i : i+width]))
			if err != nil {
				return nil, err
			}
			dst = write(dst, v)
		}
		return dst, nil
	}
	return &pageConversion{out: out, convert: convert, cannot: errWhole, decodes: true}
}

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
	var plain func(stored int) func([]byte) ([]byte, error)
	if t.Precision <= 18 && t.Scale-scale <= 18 {
		plain = func(stored int) func([]byte) ([]byte, error) {
			return scaledInts(stored, int(phys.Length()/8), factor.Int64(), limit.Int64(), t)
		}
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
	return &widening{node: parquet.Decimal(t.Scale, t.Precision, phys), convert: convert, scaled: plain}
}

// scaledInts converts PLAIN integers of in bytes (4 or 8) to PLAIN
// integers of out bytes, each times factor, each less than limit in
// magnitude: a decimal widened within 18 digits.
func scaledInts(in, out int, factor, limit int64, t LeafType) func([]byte) ([]byte, error) {
	if in != 4 && in != 8 {
		return nil
	}
	return func(vals []byte) ([]byte, error) {
		if len(vals)%in != 0 {
			return nil, fmt.Errorf("%d bytes of %d-byte values: %w", len(vals), in, ErrParquet)
		}
		dst := make([]byte, 0, len(vals)/in*out)
		for i := 0; i < len(vals); i += in {
			v := int64(int32(binary.LittleEndian.Uint32(vals[i:])))
			if in == 8 {
				v = int64(binary.LittleEndian.Uint64(vals[i:]))
			}
			if v >= limit/factor || v <= -limit/factor {
				if n := new(big.Int).Mul(big.NewInt(v), big.NewInt(factor)); new(big.Int).Abs(n).Cmp(big.NewInt(limit)) >= 0 {
					return nil, fmt.Errorf("value %v does not fit decimal(%d,%d): %w", n, t.Precision, t.Scale, ErrParquet)
				}
			}
			if v *= factor; out == 4 {
				dst = binary.LittleEndian.AppendUint32(dst, uint32(v))
			} else {
				dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
			}
		}
		return dst, nil
	}
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
