package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/deltafs/deltafs/versions/layout"
)

// schemaColumn is one line of `deltafs schema --json`: a column at any
// depth, by its logical path.
type schemaColumn struct {
	Path      []string `json:"path"`         // logical names from the top level
	Type      string   `json:"type"`         // primitive name, or struct, array, map
	Nullable  bool     `json:"nullable"`     // as the schema says
	Physical  string   `json:"physicalName"` // the name in the data files
	ID        int64    `json:"id,omitempty"` // delta.columnMapping.id
	Partition bool     `json:"partition,omitempty"`
}

// runSchema prints the logical schema of a version: each column (nested
// ones indented, or as paths with --json) with its physical name and
// column mapping id, partition columns marked.
func runSchema(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("schema", pflag.ContinueOnError)
	choice := chooseVersion(fs, "to describe")
	asJSON := fs.Bool("json", false, "JSON Lines: one object per column")
	if err := parseFlags(fs, args, "TABLE", 1, 1, stdout, stderr); err != nil {
		return err
	}
	if err := choice.check(fs, stderr); err != nil {
		return err
	}
	snap, err := choice.snapshot(ctx, fs.Arg(0), stderr)
	if err != nil {
		return err
	}
	fields, err := layout.ParseSchema(snap.Metadata.SchemaString)
	if err != nil {
		return fmt.Errorf("v%d: %w", snap.Version, err)
	}
	var cols []schemaColumn
	var walk func(fields []layout.Field, path []string)
	walk = func(fields []layout.Field, path []string) {
		for _, f := range fields {
			p := append(slices.Clone(path), f.Name)
			cols = append(cols, schemaColumn{Path: p, Type: typeName(f.Type), Nullable: f.Nullable, Physical: f.Physical, ID: f.ID,
				Partition: len(path) == 0 && layout.IsPartitionColumn(&snap.Metadata, f.Name)})
			walk(nestedFields(f.Type), append(p, elementStep(f.Type)...))
		}
	}
	walk(fields, nil)
	w := bufio.NewWriter(stdout)
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, c := range cols {
			if err := enc.Encode(c); err != nil {
				return err
			}
		}
		return w.Flush()
	}
	mode := snap.Metadata.Configuration["delta.columnMapping.mode"]
	if mode == "" {
		mode = "none"
	}
	fmt.Fprintf(w, "# v%d, column mapping: %s\n", snap.Version, mode)
	for _, c := range cols {
		line := fmt.Sprintf("%s%s\t%s", strings.Repeat("  ", len(c.Path)-1), c.Path[len(c.Path)-1], c.Type)
		if c.Physical != c.Path[len(c.Path)-1] {
			line += "\tphysical " + c.Physical
		}
		if c.ID != 0 {
			line += fmt.Sprintf("\tid %d", c.ID)
		}
		if c.Partition {
			line += "\tpartition"
		}
		fmt.Fprintln(w, line)
	}
	return w.Flush()
}

func typeName(t layout.Type) string {
	switch t.Kind {
	case layout.Struct:
		return "struct"
	case layout.Array:
		return "array<" + typeName(*t.Element) + ">"
	case layout.Map:
		return "map<" + typeName(*t.Key) + ", " + typeName(*t.Value) + ">"
	}
	return t.Primitive
}

// nestedFields are the struct fields reached from a type: its own, or
// those of the structs its arrays and maps hold.
func nestedFields(t layout.Type) []layout.Field {
	switch t.Kind {
	case layout.Struct:
		return t.Fields
	case layout.Array:
		return nestedFields(*t.Element)
	case layout.Map:
		return nestedFields(*t.Value)
	}
	return nil
}

// elementStep names the levels between a column and the struct fields
// nested in it: "element" for arrays, "value" for maps.
func elementStep(t layout.Type) []string {
	switch t.Kind {
	case layout.Array:
		return append([]string{"element"}, elementStep(*t.Element)...)
	case layout.Map:
		return append([]string{"value"}, elementStep(*t.Value)...)
	}
	return nil
}
