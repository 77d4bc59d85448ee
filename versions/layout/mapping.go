package layout

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay/action"
)

// mappingMode is the table's column mapping mode: "name", "id", or "" for
// none, which is also the mode of a table whose protocol does not support
// column mapping (reader version 2, or 3 listing the feature) whatever its
// property says.
func mappingMode(md *action.Metadata, p *action.Protocol) string {
	supported := p.MinReaderVersion == 2 || (p.MinReaderVersion >= 3 && slices.Contains(p.ReaderFeatures, "columnMapping"))
	switch m := md.Configuration["delta.columnMapping.mode"]; m {
	case "name", "id":
		if supported {
			return m
		}
	}
	return ""
}

// hidesColumns reports whether the table's data files may hold columns
// a Delta reader does not take from them: row tracking's materialized
// columns (named in the configuration) and change data feed's
// _change_type, which Spark writes, null, into the data files of an
// UPDATE or MERGE, both outside the schema; and the partition columns,
// which the materializePartitionColumns feature has writers store in
// every file though their values come from the log. Each only where the
// feature is on (or, for change data feed, listed among the table's
// features).
func hidesColumns(md *action.Metadata, p *action.Protocol) bool {
	c := md.Configuration
	return c["delta.rowTracking.materializedRowIdColumnName"] != "" ||
		c["delta.rowTracking.materializedRowCommitVersionColumnName"] != "" ||
		strings.EqualFold(c["delta.enableChangeDataFeed"], "true") ||
		slices.Contains(p.WriterFeatures, "changeDataFeed") ||
		(len(md.PartitionColumns) > 0 && slices.Contains(p.WriterFeatures, "materializePartitionColumns"))
}

// renameOf returns the Rename that gives a table's files their logical
// names (column mapping), types (type widening, timestamps as instants)
// and only the schema's columns (hidesColumns) at this metadata and
// protocol (nil with none of these), and whether renamed files surely
// keep their stored size.
func renameOf(md *action.Metadata, p *action.Protocol) (*parquetview.Rename, bool, error) {
	mode := mappingMode(md, p)
	hidden := hidesColumns(md, p)
	if mode == "" && !hidden && !strings.Contains(md.SchemaString, "delta.typeChanges") && !strings.Contains(md.SchemaString, `"timestamp"`) {
		return nil, false, nil
	}
	top, cols, err := logicalColumns(md, mode)
	if err != nil {
		return nil, false, err
	}
	rn := &parquetview.Rename{ByID: mode == "id", Columns: cols, Key: renameKey(mode, md)}
	if rn.ByID {
		fillByID(rn, top)
	}
	widens := rn.Widens()
	if mode == "" && !hidden && !widens && !instants(cols) {
		return nil, false, nil // typeChanges or timestamps only on partition columns
	}
	// In id mode the stored names are whatever the writer chose: only
	// reading the footer tells its size; a widened column changes it.
	// Without mapping, names are kept and dropped columns only shorten
	// the footer.
	return rn, mode != "id" && (mode == "" || notLonger(top)) && !widens, nil
}

// fillByID has rn serve as nulls the columns whose field ids a file
// lacks, as PROTOCOL.md reads them in id mode, whatever the stats say:
// a file whose ids name none of the columns would otherwise be served
// without any (no valid Parquet file). The served size of an id-mapped
// file is read from its footer anyway.
func fillByID(rn *parquetview.Rename, top []Field) {
	for i := range rn.Columns {
		setFillTypes(&rn.Columns[i], top[i].Type)
	}
	rn.FillMissing = true
}

// logicalColumns are the fields of a version's schema the data files hold
// (all but the partition columns) and the Rename's columns serving them
// in the mapping mode.
func logicalColumns(md *action.Metadata, mode string) ([]Field, []parquetview.Column, error) {
	fields, err := ParseSchema(md.SchemaString)
	if err != nil {
		return nil, nil, err
	}
	var top []Field
	for _, f := range fields {
		if !IsPartitionColumn(md, f.Name) { // partition values are not in the files
			top = append(top, f)
		}
	}
	cols := columns(top, false)
	if mode == "" {
		unmapped(cols)
	}
	spark, err := sparkFields(md.SchemaString)
	if err != nil {
		return nil, nil, err
	}
	for i := range cols {
		cols[i].SparkField = spark[cols[i].Name]
	}
	return top, cols, nil
}

// renameKey names the Rename of a schema in a mapping mode.
func renameKey(mode string, md *action.Metadata) string {
	h := fnv.New64a()
	h.Write([]byte(mode))
	h.Write([]byte{0})
	h.Write([]byte(md.SchemaString))
	return fmt.Sprintf("%016x", h.Sum64())
}

// unmapped has every column found by its logical name: without column
// mapping files store those, whatever physical names the schema's
// metadata still carries.
func unmapped(cols []parquetview.Column) {
	for i := range cols {
		cols[i].Physical, cols[i].ID = cols[i].Name, 0
		unmapped(cols[i].Children)
	}
}

// columns converts schema fields to the Rename's columns; the leaves of
// widened fields (or of any field, when widened) carry their types.
func columns(fields []Field, widened bool) []parquetview.Column {
	out := make([]parquetview.Column, len(fields))
	for i, f := range fields {
		out[i] = column(f.Type, widened || f.Widened)
		out[i].Name, out[i].Physical, out[i].ID = f.Name, f.Physical, f.ID
	}
	return out
}

func column(t Type, widened bool) parquetview.Column {
	switch t.Kind {
	case Struct:
		return parquetview.Column{Kind: parquetview.StructColumn, Children: columns(t.Fields, widened)}
	case Array:
		return parquetview.Column{Kind: parquetview.ListColumn, Children: []parquetview.Column{column(*t.Element, widened)}}
	case Map:
		return parquetview.Column{Kind: parquetview.MapColumn, Children: []parquetview.Column{column(*t.Key, widened), column(*t.Value, widened)}}
	}
	c := parquetview.Column{Kind: parquetview.LeafColumn, Instant: t.Primitive == "timestamp"}
	if widened {
		c.Type = leafType(t.Primitive)
	}
	return c
}

// leafType is the parquetview type of a primitive a column can be widened
// to; nil for the others.
func leafType(primitive string) *parquetview.LeafType {
	switch primitive {
	case "short":
		return &parquetview.LeafType{Kind: parquetview.ShortType}
	case "integer":
		return &parquetview.LeafType{Kind: parquetview.IntType}
	case "long":
		return &parquetview.LeafType{Kind: parquetview.LongType}
	case "double":
		return &parquetview.LeafType{Kind: parquetview.DoubleType}
	case "timestamp_ntz":
		return &parquetview.LeafType{Kind: parquetview.TimestampNTZType}
	}
	var p, s int
	if n, err := fmt.Sscanf(primitive, "decimal(%d,%d)", &p, &s); err == nil && n == 2 {
		return &parquetview.LeafType{Kind: parquetview.DecimalType, Precision: p, Scale: s}
	}
	return nil
}

// instants reports whether a column holds a Delta timestamp, which a file
// may store as a local date-time (parquetview's Column.Instant).
func instants(cols []parquetview.Column) bool {
	return slices.ContainsFunc(cols, func(c parquetview.Column) bool { return c.Instant || instants(c.Children) })
}

// notLonger reports whether no field, at any depth, has a logical name
// longer than its physical one: then a renamed footer is never longer than
// the stored one (dropped columns and schema caches only shorten it).
func notLonger(fields []Field) bool {
	for _, f := range fields {
		if len(f.Name) > len(f.Physical) || !typeNotLonger(f.Type) {
			return false
		}
	}
	return true
}

func typeNotLonger(t Type) bool {
	switch t.Kind {
	case Struct:
		return notLonger(t.Fields)
	case Array:
		return typeNotLonger(*t.Element)
	case Map:
		return typeNotLonger(*t.Key) && typeNotLonger(*t.Value)
	}
	return true
}

// changeType is the column change data files hold besides the table's
// (PROTOCOL.md "Change Data Files").
const changeType = "_change_type"

// ForChangeData makes v serve change data files, which keep _change_type
// (stored under that name, without a field id, whatever the mapping).
func (v *Version) ForChangeData() {
	v.Rename, v.Fill = withChangeType(v.Rename), withChangeType(v.Fill)
}

func withChangeType(rn *parquetview.Rename) *parquetview.Rename {
	if rn == nil {
		return nil
	}
	out := *rn
	out.Columns = append(slices.Clip(rn.Columns), parquetview.Column{Name: changeType, Physical: changeType, SparkField: parquetview.ChangeTypeSparkField})
	out.Key += "+" + changeType
	return &out
}
