package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// schemaSlots are the columns a checkpoint reader looks for, each of
// which FuzzCheckpointSchema gives some kind of values, or leaves out.
var schemaSlots = []string{
	"add.path", "add.size", "add.modificationTime", "add.dataChange", "add.stats", "add.partitionValues",
	"add.stats_parsed.numRecords",
	"add.deletionVector.storageType", "add.deletionVector.pathOrInlineDv", "add.deletionVector.offset",
	"add.deletionVector.sizeInBytes", "add.deletionVector.cardinality", "add.deletionVector.maxRowIndex",
	"remove.path", "remove.deletionTimestamp",
	"protocol.minReaderVersion", "protocol.minWriterVersion", "protocol.readerFeatures", "protocol.writerFeatures",
	"metaData.id", "metaData.schemaString", "metaData.partitionColumns", "metaData.configuration",
	"metaData.format.provider", "metaData.createdTime",
	"txn.appId", "txn.version", "txn.lastUpdated",
	"domainMetadata.domain", "domainMetadata.configuration", "domainMetadata.removed",
	"sidecar.path", "sidecar.sizeInBytes", "sidecar.modificationTime", "checkpointMetadata.version",
}

// slotKinds are the kinds of values a slot may hold: index 0 leaves it out.
var slotKinds = []reflect.Type{
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
}

// schemaNode is a group of the generated schema: its leaves' kinds and
// its groups, by name.
type schemaNode struct {
	leaves map[string]reflect.Type
	groups map[string]*schemaNode
	order  []string
}

func (n *schemaNode) add(path []string, t reflect.Type) {
	name := path[0]
	if len(path) == 1 {
		if n.leaves == nil {
			n.leaves = map[string]reflect.Type{}
		}
		if _, ok := n.leaves[name]; !ok {
			n.order = append(n.order, name)
		}
		n.leaves[name] = t
		return
	}
	if n.groups == nil {
		n.groups = map[string]*schemaNode{}
	}
	g := n.groups[name]
	if g == nil {
		g = &schemaNode{}
		n.groups[name] = g
		n.order = append(n.order, name)
	}
	g.add(path[1:], t)
}

// goType is the struct type of the group: groups as optional pointers.
func (n *schemaNode) goType() reflect.Type {
	var fields []reflect.StructField
	for i, name := range n.order {
		t, ok := n.leaves[name]
		if !ok {
			t = reflect.PointerTo(n.groups[name].goType())
		}
		tag := name
		if t.Kind() == reflect.Slice {
			tag += ",list"
		}
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: t, Tag: reflect.StructTag(`parquet:"` + tag + `"`)})
	}
	return reflect.StructOf(fields)
}

// fill sets every leaf of v (a struct of n's type) to a value made from
// seed, and every group to a value when present says so.
func (n *schemaNode) fill(v reflect.Value, seed int, present func(name string) bool) {
	for i, name := range n.order {
		f := v.Field(i)
		if g, ok := n.groups[name]; ok {
			if present(name) {
				f.Set(reflect.New(f.Type().Elem()))
				g.fill(f.Elem(), seed, func(string) bool { return true })
			}
			continue
		}
		s := fmt.Sprintf("v%d/%s.parquet", seed, name)
		switch f.Kind() {
		case reflect.String:
			f.SetString(s)
		case reflect.Int64, reflect.Int32:
			f.SetInt(int64(seed*7 + i))
		case reflect.Bool:
			f.SetBool(seed%2 == 0)
		case reflect.Float64:
			f.SetFloat(float64(seed) / 3)
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{s, name}[:seed%3]))
		case reflect.Map:
			f.Set(reflect.ValueOf(map[string]string{name: s, "k": fmt.Sprint(seed)}))
		case reflect.Pointer:
			if seed%2 == 1 {
				p := reflect.New(f.Type().Elem())
				if p.Elem().Kind() == reflect.String {
					p.Elem().SetString(s)
				} else {
					p.Elem().SetInt(int64(seed))
				}
				f.Set(p)
			}
		}
	}
}

// schemaCheckpoint writes a checkpoint whose slots hold the kinds kinds
// selects (a byte per slot, taken modulo the kinds), of four rows; bit
// r*8+g of groups says whether row r has its g-th top-level group.
func schemaCheckpoint(t testing.TB, kinds []byte, groups uint32) []byte {
	root := &schemaNode{}
	for i, slot := range schemaSlots {
		k := 0
		if i < len(kinds) {
			k = int(kinds[i]) % len(slotKinds)
		}
		if slotKinds[k] != nil {
			root.add(strings.Split(slot, "."), slotKinds[k])
		}
	}
	if len(root.order) == 0 {
		return nil
	}
	typ := root.goType()
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, parquet.SchemaOf(reflect.New(typ).Interface()))
	for r := range 4 {
		row := reflect.New(typ)
		root.fill(row.Elem(), r, func(name string) bool {
			return groups>>(r*8+slices.Index(root.order, name)%8)&1 == 1
		})
		if err := w.Write(row.Interface()); err != nil {
			t.Skipf("parquet-go does not write this schema: %v", err)
		}
	}
	if err := w.Close(); err != nil {
		t.Skipf("parquet-go does not write this schema: %v", err)
	}
	return buf.Bytes()
}

// FuzzCheckpointSchema writes checkpoints whose columns hold values of
// any kind (strings where numbers belong, lists where a string does, a
// column left out), and reads each at every detail level and for its
// tombstones: an error or a result, never a panic.
func FuzzCheckpointSchema(f *testing.F) {
	valid := []byte{1, 2, 2, 4, 1, 6, 2, 1, 1, 3, 3, 2, 9, 1, 9, 3, 3, 5, 5, 1, 1, 5, 6, 1, 9, 1, 2, 9, 1, 1, 4, 0, 0, 0, 2}
	f.Add(valid, uint32(0xffffffff))
	f.Add(valid, uint32(0x0f0f0f0f))
	wrong := bytes.Clone(valid)
	wrong[1], wrong[5], wrong[17] = 1, 5, 6 // a string size, a list of partition values, a map of features
	f.Add(wrong, uint32(0xffffffff))
	f.Fuzz(func(t *testing.T, kinds []byte, groups uint32) {
		data := schemaCheckpoint(t, kinds, groups)
		if data == nil {
			return
		}
		st := memStorage(data)
		cp := Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}
		for _, d := range []Detail{NoDetails, Partitions, AllDetails} {
			Read(context.Background(), st, cp, Options{Root: "file:///t", Details: d})
		}
		CountTombstones(context.Background(), st, cp)
	})
}
