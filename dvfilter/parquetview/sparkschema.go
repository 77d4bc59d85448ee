package parquetview

import (
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go/format"
)

// sparkSchemaKey is the footer entry where Spark keeps the schema it
// wrote, as the JSON of its StructType. Spark's own Parquet reader takes a
// file's schema from there before the Parquet schema: a variant column,
// which Spark stores as a struct of two binaries, reads as a variant only
// through it.
const sparkSchemaKey = "org.apache.spark.sql.parquet.row.metadata"

// ChangeTypeSparkField is the Spark field of change data's _change_type.
const ChangeTypeSparkField = `{"name":"_change_type","type":"string","nullable":true,"metadata":{}}`

// encodeServedFooter encodes the footer of a view (out, rewritten from
// the source's, src, under rn, which may be nil), with Spark's schema
// entry written again where the source had one (restoreSparkSchema) and
// the footer then still fits in room, the bytes left of the source's size:
// a view may be served in the size the log gives, and its footer had room
// only without the entry (a renamed footer is no longer than the stored
// one, an INT96 conversion's must fit in the stored size).
func encodeServedFooter(out, src *format.FileMetaData, rn *Rename, room int64) ([]byte, error) {
	if rn == nil || !restoreSparkSchema(out, src, rn) {
		return encodeFooter(out)
	}
	tail, err := encodeFooter(out)
	if err != nil || int64(len(tail)) <= room {
		return tail, err
	}
	out.KeyValueMetadata = out.KeyValueMetadata[:len(out.KeyValueMetadata)-1]
	return encodeFooter(out)
}

// restoreSparkSchema appends Spark's schema entry to a rewritten footer
// (out, whose schema caches the rewrite dropped) when the source's footer
// (src) had one: the SparkField of each top-level column out serves, in
// its order. It reports whether it did: not where a served column has no
// SparkField, nor where out kept the source's entry.
func restoreSparkSchema(out, src *format.FileMetaData, rn *Rename) bool {
	hasEntry := func(kv format.KeyValue) bool { return kv.Key == sparkSchemaKey }
	if !slices.ContainsFunc(src.KeyValueMetadata, hasEntry) || slices.ContainsFunc(out.KeyValueMetadata, hasEntry) {
		return false
	}
	fields := make(map[string]string, len(rn.Columns)) // one lookup a column: tables may have thousands
	for _, c := range rn.Columns {
		fields[c.Name] = c.SparkField
	}
	var b strings.Builder
	b.WriteString(`{"type":"struct","fields":[`)
	for j, name := range topLevelNames(out.Schema) {
		if fields[name] == "" {
			return false
		}
		if j > 0 {
			b.WriteByte(',')
		}
		b.WriteString(fields[name])
	}
	b.WriteString(`]}`)
	out.KeyValueMetadata = append(slices.Clip(out.KeyValueMetadata), format.KeyValue{Key: sparkSchemaKey, Value: b.String()})
	return true
}

// topLevelNames are the names of the root's children in a flattened
// Parquet schema.
func topLevelNames(schema []format.SchemaElement) []string {
	var names []string
	for pos := 1; pos < len(schema); pos = subtreeEnd(schema, pos) {
		names = append(names, schema[pos].Name)
	}
	return names
}
