package parquetview

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Spark stores a Delta timestamp as INT96 unless told otherwise: nanoseconds
// of the day, then the Julian day, an instant in UTC. A Delta reader reads
// an instant; plain Parquet readers read INT96 each their own way: pyarrow
// and pandas as nanoseconds without a time zone, which overflow past 2262
// (9999-12-31, a common "no end" value, reads as 1816-03-29), DuckDB as a
// local date-time. Such a leaf is served as what Delta writers store today:
// INT64 microseconds since the epoch, adjusted to UTC. Only its column
// chunks change: a dictionary page's values, and the data pages that store
// values PLAIN; data pages of dictionary indexes are copied. A row group
// that loses rows is rebuilt first (spliced, or re-encoded by parquet-go,
// which converts as it writes).
//
// The file keeps its stored size (zero bytes before the footer: the values
// shrink by a third), so a stat needs no build. A file the conversion would
// make larger, or that holds a value INT64 microseconds cannot (past some
// 290,000 years), or pages it cannot convert, is served with its INT96
// values as stored. Values Spark rebased to the Julian calendar (before
// 1582, org.apache.spark.legacyINT96) are converted as pyarrow and DuckDB
// read them, without rebasing.

// errInt96 marks a file whose INT96 values are served as stored.
var errInt96 = errors.New("INT96 values kept as stored")

const (
	julianDayOfUnixEpoch = 2_440_588
	microsPerDay         = 86_400_000_000
)

// int96Micros converts one stored INT96 value.
func int96Micros(b []byte) (int64, bool) {
	nanos := binary.LittleEndian.Uint64(b)
	days := int64(binary.LittleEndian.Uint32(b[8:])) - julianDayOfUnixEpoch
	micros := int64(nanos / 1000)
	if days > (math.MaxInt64-micros)/microsPerDay || days < math.MinInt64/microsPerDay {
		return 0, false
	}
	return days*microsPerDay + micros, true
}

// int96ValueMicros converts an INT96 value as parquet-go decodes it.
func int96ValueMicros(i deprecated.Int96) (int64, bool) {
	var b [12]byte
	binary.LittleEndian.PutUint32(b[0:], i[0])
	binary.LittleEndian.PutUint32(b[4:], i[1])
	binary.LittleEndian.PutUint32(b[8:], i[2])
	return int96Micros(b[:])
}

// int96Values converts PLAIN INT96 values to PLAIN INT64 microseconds.
func int96Values(vals []byte) ([]byte, error) {
	if len(vals)%12 != 0 {
		return nil, fmt.Errorf("%d bytes of INT96 values: %w", len(vals), errInt96)
	}
	out := make([]byte, 0, len(vals)/12*8)
	for i := 0; i < len(vals); i += 12 {
		us, ok := int96Micros(vals[i : i+12])
		if !ok {
			return nil, fmt.Errorf("INT96 value out of the range of INT64 microseconds: %w", errInt96)
		}
		out = binary.LittleEndian.AppendUint64(out, uint64(us))
	}
	return out, nil
}

// int96Served is the schema element of a converted leaf.
func int96Served(el *format.SchemaElement) {
	el.Type = thrift.New(format.Int64)
	el.LogicalType.Value = &format.TimestampType{IsAdjustedToUTC: true, Unit: format.TimeUnit{Value: new(format.MicroSeconds)}}
	el.ConvertedType = thrift.New(deprecated.TimestampMicros)
}

// int96Widening converts an INT96 leaf where parquet-go re-encodes a row
// group (rows deleted where splicing cannot, or a widened column beside
// it).
var int96Widening = &widening{node: parquet.TimestampAdjusted(parquet.Microsecond, true), convert: func(v parquet.Value) (parquet.Value, error) {
	if v.IsNull() {
		return v, nil
	}
	us, ok := int96ValueMicros(v.Int96())
	if !ok {
		return v, fmt.Errorf("INT96 value out of the range of INT64 microseconds: %w", errInt96)
	}
	return parquet.Int64Value(us), nil
}}

// withInt96 returns widen with the INT96 leaves' conversion added: how
// parquet-go re-encodes them.
func withInt96(widen []*widening, int96 []bool) []*widening {
	if int96 == nil {
		return widen
	}
	out := make([]*widening, len(int96))
	copy(out, widen)
	for j, c := range int96 {
		if c {
			out[j] = int96Widening
		}
	}
	return out
}
