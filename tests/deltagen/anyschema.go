package deltagen

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// AnyKinds are the kinds of values a column of AnySchemaFile may hold;
// the first, nil, leaves the column out.
var AnyKinds = []reflect.Type{
	nil,
	reflect.TypeFor[string](),
	reflect.TypeFor[int64](),
	reflect.TypeFor[int32](),
	reflect.TypeFor[bool](),
	reflect.TypeFor[[]string](),
	reflect.TypeFor[map[string]string](),
	reflect.TypeFor[*string](),
	reflect.TypeFor[float64](),
	reflect.TypeFor[*int64](),
	reflect.TypeFor[[]AnyElement](),
}

// AnyElement is the element of AnySchemaFile's lists of structs.
type AnyElement struct {
	X string `parquet:"x"`
	Y *int64 `parquet:"y"`
}

// AnySchemaFile writes a Parquet file of rows rows whose columns, named by
// dotted paths (a group is an optional struct), hold the kinds kinds
// selects: a byte per path, taken modulo len(AnyKinds). present says
// whether row r has its top-level group name; groups inside groups are
// always there. Values are made from the row's number. It returns nil
// when every column is left out, and parquet-go's error for a schema it
// does not write.
func AnySchemaFile(paths []string, kinds []byte, rows int, present func(row int, group string) bool, opts ...parquet.WriterOption) ([]byte, error) {
	root := &anyGroup{}
	for i, p := range paths {
		k := 0
		if i < len(kinds) {
			k = int(kinds[i]) % len(AnyKinds)
		}
		if AnyKinds[k] != nil {
			root.add(strings.Split(p, "."), AnyKinds[k])
		}
	}
	if len(root.order) == 0 {
		return nil, nil
	}
	typ := root.goType()
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, append([]parquet.WriterOption{parquet.SchemaOf(reflect.New(typ).Interface())}, opts...)...)
	for r := range rows {
		row := reflect.New(typ)
		root.fill(row.Elem(), r, func(name string) bool { return present(r, name) })
		if err := w.Write(row.Interface()); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// anyGroup is a group of an AnySchemaFile schema: its leaves' kinds and
// its groups, by name, in the order first named.
type anyGroup struct {
	leaves map[string]reflect.Type
	groups map[string]*anyGroup
	order  []string
}

func (g *anyGroup) add(path []string, t reflect.Type) {
	name := path[0]
	_, isLeaf := g.leaves[name]
	_, isGroup := g.groups[name]
	if !isLeaf && !isGroup {
		g.order = append(g.order, name)
	}
	if len(path) == 1 {
		if isGroup {
			return // a group already has the name
		}
		if g.leaves == nil {
			g.leaves = map[string]reflect.Type{}
		}
		g.leaves[name] = t
		return
	}
	if isLeaf {
		return // a leaf already has the name
	}
	if g.groups == nil {
		g.groups = map[string]*anyGroup{}
	}
	if !isGroup {
		g.groups[name] = &anyGroup{}
	}
	g.groups[name].add(path[1:], t)
}

// goType is the struct type of the group: its groups as pointers.
func (g *anyGroup) goType() reflect.Type {
	var fields []reflect.StructField
	for i, name := range g.order {
		t, ok := g.leaves[name]
		if !ok {
			t = reflect.PointerTo(g.groups[name].goType())
		}
		tag := name
		if t.Kind() == reflect.Slice {
			tag += ",list"
		}
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: t, Tag: reflect.StructTag(`parquet:"` + tag + `"`)})
	}
	return reflect.StructOf(fields)
}

// fill sets the fields of v, a struct of g's type, for row r.
func (g *anyGroup) fill(v reflect.Value, r int, present func(name string) bool) {
	for i, name := range g.order {
		f := v.Field(i)
		if sub, ok := g.groups[name]; ok {
			if present(name) {
				f.Set(reflect.New(f.Type().Elem()))
				sub.fill(f.Elem(), r, func(string) bool { return true })
			}
			continue
		}
		s := fmt.Sprintf("v%d/%s.parquet", r, name)
		switch f.Kind() {
		case reflect.String:
			f.SetString(s)
		case reflect.Int64, reflect.Int32:
			f.SetInt(int64(r*7 + i))
		case reflect.Bool:
			f.SetBool(r%2 == 0)
		case reflect.Float64:
			f.SetFloat(float64(r) / 3)
		case reflect.Slice:
			if f.Type().Elem().Kind() == reflect.Struct {
				y := int64(r)
				f.Set(reflect.ValueOf([]AnyElement{{X: s, Y: &y}, {X: name}}[:r%3]))
			} else {
				f.Set(reflect.ValueOf([]string{s, name}[:r%3]))
			}
		case reflect.Map:
			f.Set(reflect.ValueOf(map[string]string{name: s, "k": fmt.Sprint(r)}))
		case reflect.Pointer:
			if r%2 == 1 {
				p := reflect.New(f.Type().Elem())
				if p.Elem().Kind() == reflect.String {
					p.Elem().SetString(s)
				} else {
					p.Elem().SetInt(int64(r))
				}
				f.Set(p)
			}
		}
	}
}
