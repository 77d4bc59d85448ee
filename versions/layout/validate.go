package layout

import (
	"fmt"
	"strings"

	"github.com/deltafs/deltafs/replay/action"
)

// CheckMetadata refuses a metaData action that Delta readers (delta-rs,
// Spark) refuse, rather than serve files under a schema that does not
// describe them: a schemaString that is not a schema, or whose top level
// is no struct; a partition column missing from the schema or listed twice
// (Delta names columns case-insensitively); under column mapping, an empty
// physical name, two fields of one struct with one physical name (their
// files' columns could not be told apart), or two fields anywhere with one
// column mapping id (PROTOCOL.md "Column Mapping": each column has a
// unique id). A missing schemaString is let through: a Databricks
// pipeline's first commit lacks it, and the table is served without
// columns to rename.
func CheckMetadata(md *action.Metadata, p *action.Protocol) error {
	if md.SchemaString == "" {
		return nil
	}
	fields, err := ParseSchema(md.SchemaString)
	if err != nil {
		return err
	}
	for i, c := range md.PartitionColumns {
		for _, earlier := range md.PartitionColumns[:i] {
			if strings.EqualFold(c, earlier) {
				return fmt.Errorf("partition column %q is listed twice in partitionColumns", c)
			}
		}
		if Find(fields, c) == nil {
			return fmt.Errorf("partition column %q is not in the schema", c)
		}
	}
	if mappingMode(md, p) == "" {
		return nil // physical names and ids are not read
	}
	return checkMapping(fields, "", map[int64]string{})
}

// checkMapping checks the column mapping metadata of the fields of one
// struct, named by path, and of the structs nested in them; ids holds the
// column mapping ids seen so far, with the field that has each.
func checkMapping(fields []Field, path string, ids map[int64]string) error {
	for i, f := range fields {
		name := path + f.Name
		if f.Physical == "" {
			return fmt.Errorf("column mapping: field %q has an empty physical name", name)
		}
		for _, g := range fields[:i] {
			if strings.EqualFold(f.Physical, g.Physical) {
				return fmt.Errorf("column mapping: fields %q and %q have one physical name, %q", path+g.Name, name, f.Physical)
			}
		}
		if f.ID != 0 { // 0: no id
			if other, dup := ids[f.ID]; dup {
				return fmt.Errorf("column mapping: fields %q and %q have one id, %d", other, name, f.ID)
			}
			ids[f.ID] = name
		}
		if err := checkMappingIn(f.Type, name+".", ids); err != nil {
			return err
		}
	}
	return nil
}

// checkMappingIn checks the structs a type holds, at any depth.
func checkMappingIn(t Type, path string, ids map[int64]string) error {
	switch t.Kind {
	case Struct:
		return checkMapping(t.Fields, path, ids)
	case Array:
		return checkMappingIn(*t.Element, path, ids)
	case Map:
		if err := checkMappingIn(*t.Key, path, ids); err != nil {
			return err
		}
		return checkMappingIn(*t.Value, path, ids)
	}
	return nil
}
