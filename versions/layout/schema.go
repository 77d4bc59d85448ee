package layout

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Field is a field of a Delta table schema (PROTOCOL.md "Schema
// Serialization Format") with what column mapping says of it.
type Field struct {
	Name     string // logical name
	Physical string // delta.columnMapping.physicalName; Name when absent
	ID       int64  // delta.columnMapping.id; 0 when absent
	Type     Type
	Nullable bool
	// Widened: the table changed the type of this field, or of one
	// nested in it (delta.typeChanges, type widening).
	Widened bool
}

// Type is a field's data type: a primitive ("long", "decimal(10,2)", ...)
// or a struct, array or map.
type Type struct {
	Primitive string  // "" for the nested kinds
	Kind      Kind    // Primitive, Struct, Array or Map
	Fields    []Field // Struct
	Element   *Type   // Array
	Key       *Type   // Map
	Value     *Type   // Map
}

// Kind tells the nested types from primitives.
type Kind int

const (
	Primitive Kind = iota
	Struct
	Array
	Map
)

// ParseSchema decodes a metaData action's schemaString.
func ParseSchema(schemaString string) ([]Field, error) {
	if schemaString == "" {
		// PROTOCOL.md requires it; a Databricks pipeline's first commit lacks it.
		return nil, errors.New("schema: the metaData action has no schemaString: the table has no schema at this version")
	}
	var raw rawType
	if err := json.Unmarshal([]byte(schemaString), &raw); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	t, err := raw.decode(0)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if t.Kind != Struct {
		return nil, fmt.Errorf("schema: the top level is %q, not a struct", t.Primitive)
	}
	return t.Fields, nil
}

// maxDepth bounds nesting, so that a hostile schema cannot exhaust the stack.
const maxDepth = 64

// rawType is a type as JSON has it: a string, or an object.
type rawType struct {
	name string
	obj  *rawObject
}

type rawObject struct {
	Type        string     `json:"type"`
	Fields      []rawField `json:"fields"`
	ElementType rawType    `json:"elementType"`
	KeyType     rawType    `json:"keyType"`
	ValueType   rawType    `json:"valueType"`
}

type rawField struct {
	Name     string                     `json:"name"`
	Type     rawType                    `json:"type"`
	Nullable bool                       `json:"nullable"`
	Metadata map[string]json.RawMessage `json:"metadata"`
}

func (r *rawType) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &r.name)
	}
	r.obj = new(rawObject)
	return json.Unmarshal(b, r.obj)
}

func (r rawType) decode(depth int) (Type, error) {
	if depth > maxDepth {
		return Type{}, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	if r.obj == nil {
		if r.name == "" {
			return Type{}, fmt.Errorf("a field without a type")
		}
		return Type{Primitive: r.name}, nil
	}
	switch r.obj.Type {
	case "struct":
		t := Type{Kind: Struct}
		for _, f := range r.obj.Fields {
			ft, err := f.Type.decode(depth + 1)
			if err != nil {
				return Type{}, fmt.Errorf("%s: %w", f.Name, err)
			}
			field := Field{Name: f.Name, Physical: f.Name, Type: ft, Nullable: f.Nullable}
			if p, ok := f.Metadata["delta.columnMapping.physicalName"]; ok {
				if err := json.Unmarshal(p, &field.Physical); err != nil {
					return Type{}, fmt.Errorf("%s: physicalName: %w", f.Name, err)
				}
			}
			if id, ok := f.Metadata["delta.columnMapping.id"]; ok {
				if field.ID, err = strconv.ParseInt(string(id), 10, 64); err != nil {
					return Type{}, fmt.Errorf("%s: columnMapping.id %s: %w", f.Name, id, err)
				}
			}
			if tc, ok := f.Metadata["delta.typeChanges"]; ok {
				var changes []json.RawMessage
				field.Widened = json.Unmarshal(tc, &changes) == nil && len(changes) > 0
			}
			t.Fields = append(t.Fields, field)
		}
		return t, nil
	case "array":
		e, err := r.obj.ElementType.decode(depth + 1)
		return Type{Kind: Array, Element: &e}, err
	case "map":
		k, err := r.obj.KeyType.decode(depth + 1)
		if err != nil {
			return Type{}, err
		}
		v, err := r.obj.ValueType.decode(depth + 1)
		return Type{Kind: Map, Key: &k, Value: &v}, err
	}
	return Type{}, fmt.Errorf("unknown type %q", r.obj.Type)
}

// Find returns the top-level field with the logical name, or nil; failing
// an exact match, one whose name differs in case alone (indexOfName).
func Find(fields []Field, name string) *Field {
	if i := indexOfName(len(fields), func(i int) string { return fields[i].Name }, name); i >= 0 {
		return &fields[i]
	}
	return nil
}

// indexOfName returns the index of the one of n names equal to want, or
// failing that of one equal but for case, as Delta names columns
// case-insensitively; -1 for none.
func indexOfName(n int, name func(int) string, want string) int {
	folded := -1
	for i := range n {
		switch got := name(i); {
		case got == want:
			return i
		case folded < 0 && strings.EqualFold(got, want):
			folded = i
		}
	}
	return folded
}
