package parquetview

import "github.com/parquet-go/parquet-go/format"

// Delta's timestamp is an instant, its timestamp_ntz a local date-time;
// Parquet tells them by the isAdjustedToUTC flag of a TIMESTAMP. Some
// writers (delta-rs before it wrote time zones, from Arrow timestamps
// without one) stored a Delta timestamp without the flag: a Delta reader
// reads instants there, a Parquet reader local date-times (pandas without
// a time zone, Spark a timestamp_ntz). Such a leaf is served with the flag
// set; the values are the same microseconds since the epoch either way.
// The schema caches go with it, as for a renamed column: Polars takes its
// types from Arrow's, which says no time zone.

// asInstant marks el as an instant if it stores a timestamp not adjusted
// to UTC, and reports whether it did.
func asInstant(el *format.SchemaElement) bool {
	ts, ok := el.LogicalType.Value.(*format.TimestampType)
	if !ok || ts.IsAdjustedToUTC {
		return false
	}
	el.LogicalType.Value = &format.TimestampType{IsAdjustedToUTC: true, Unit: ts.Unit}
	return true
}
