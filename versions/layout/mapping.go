package layout

import (
	"fmt"
	"hash/fnv"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay/action"
)

// mappingMode is the table's column mapping mode: "name", "id", or "" for
// none.
func mappingMode(md *action.Metadata) string {
	switch m := md.Configuration["delta.columnMapping.mode"]; m {
	case "name", "id":
		return m
	}
	return ""
}

// renameOf returns the Rename that gives a column-mapped table's files
// their logical names at this metadata (nil without column mapping), and
// whether renamed files surely keep their stored size.
func renameOf(md *action.Metadata) (*parquetview.Rename, bool, error) {
	mode := mappingMode(md)
	if mode == "" {
		return nil, false, nil
	}
	fields, err := ParseSchema(md.SchemaString)
	if err != nil {
		return nil, false, err
	}
	partition := map[string]bool{}
	for _, c := range md.PartitionColumns {
		partition[c] = true
	}
	var top []Field
	for _, f := range fields {
		if !partition[f.Name] { // partition values are not in the files
			top = append(top, f)
		}
	}
	h := fnv.New64a()
	h.Write([]byte(mode))
	h.Write([]byte{0})
	h.Write([]byte(md.SchemaString))
	rn := &parquetview.Rename{ByID: mode == "id", Columns: columns(top), Key: fmt.Sprintf("%016x", h.Sum64())}
	// In id mode the stored names are whatever the writer chose: only
	// reading the footer tells its size.
	return rn, mode == "name" && notLonger(top), nil
}

// columns converts schema fields to the Rename's columns.
func columns(fields []Field) []parquetview.Column {
	out := make([]parquetview.Column, len(fields))
	for i, f := range fields {
		out[i] = column(f.Type)
		out[i].Name, out[i].Physical, out[i].ID = f.Name, f.Physical, f.ID
	}
	return out
}

func column(t Type) parquetview.Column {
	switch t.Kind {
	case Struct:
		return parquetview.Column{Kind: parquetview.StructColumn, Children: columns(t.Fields)}
	case Array:
		return parquetview.Column{Kind: parquetview.ListColumn, Children: []parquetview.Column{column(*t.Element)}}
	case Map:
		return parquetview.Column{Kind: parquetview.MapColumn, Children: []parquetview.Column{column(*t.Key), column(*t.Value)}}
	}
	return parquetview.Column{Kind: parquetview.LeafColumn}
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
