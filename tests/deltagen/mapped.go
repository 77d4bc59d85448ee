package deltagen

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/replay/action"
)

// Column-mapped tables: data files whose Parquet columns carry physical
// names (and field ids), and Delta schemas that map them to logical ones,
// with nested structs, a list of structs and a map of structs.

// MappedRow is one row of a column-mapped data file, as stored: physical
// names "col-*" and the field ids of MappedSchema.
type MappedRow struct {
	ID   int64                `parquet:"col-a1,id(1)"`
	Name *string              `parquet:"col-b2,id(2),optional"`
	Gone string               `parquet:"col-c3,id(3)"`
	S    MappedStruct         `parquet:"col-s4,id(4)"`
	Tags []MappedTag          `parquet:"col-t7,id(7),list"`
	M    map[string]MappedVal `parquet:"col-m9,id(9)"`
}

// MappedStruct is MappedRow's struct column.
type MappedStruct struct {
	X int64  `parquet:"col-d5,id(5)"`
	Y string `parquet:"col-e6,id(6)"`
}

// MappedTag is the element of MappedRow's list column.
type MappedTag struct {
	K string `parquet:"col-g8,id(8)"`
}

// MappedVal is the value of MappedRow's map column.
type MappedVal struct {
	V int64 `parquet:"col-i10,id(10)"`
}

// OtherNamedRow is MappedRow under other stored names with the same field
// ids: what an 'id' mode table may hold, found only by id.
type OtherNamedRow struct {
	ID   int64   `parquet:"p1,id(1)"`
	Name *string `parquet:"p2,id(2),optional"`
	Gone string  `parquet:"p3,id(3)"`
	S    struct {
		X int64  `parquet:"p5,id(5)"`
		Y string `parquet:"p6,id(6)"`
	} `parquet:"p4,id(4)"`
	Tags []struct {
		K string `parquet:"p8,id(8)"`
	} `parquet:"p7,id(7),list"`
	M map[string]struct {
		V int64 `parquet:"p10,id(10)"`
	} `parquet:"p9,id(9)"`
}

// MappedRowAt is row i of a column-mapped file: every column derived
// from i, so a reader can check any row.
func MappedRowAt(i int64) MappedRow {
	name := fmt.Sprintf("n%d", i)
	r := MappedRow{
		ID: i, Gone: fmt.Sprintf("g%d", i),
		S:    MappedStruct{X: 10 * i, Y: fmt.Sprintf("y%d", i)},
		Tags: []MappedTag{{K: fmt.Sprintf("k%d", i)}, {K: "z"}},
		M:    map[string]MappedVal{fmt.Sprintf("m%d", i): {V: 100 * i}},
	}
	if i%3 != 0 {
		r.Name = &name
	}
	return r
}

// MappedSchema is the Delta schema of column-mapped files: logical names
// id, <name>, gone (unless dropped), s{x,y}, tags[{k}], m{string: {v}},
// with physical names and ids of MappedRow, and a partition column part
// (physical col-p11, id 11) when partitioned. name is the logical name of
// column col-b2 (renamed in later versions).
func MappedSchema(name string, dropped, partitioned bool) string {
	field := func(logical, typ string, id int, physical string) string {
		return fmt.Sprintf(`{"name":%q,"type":%s,"nullable":true,"metadata":{"delta.columnMapping.id":%d,"delta.columnMapping.physicalName":%q}}`,
			logical, typ, id, physical)
	}
	fields := field("id", `"long"`, 1, "col-a1") + "," + field(name, `"string"`, 2, "col-b2")
	if !dropped {
		fields += "," + field("gone", `"string"`, 3, "col-c3")
	}
	fields += "," + field("s", `{"type":"struct","fields":[`+field("x", `"long"`, 5, "col-d5")+","+field("y", `"string"`, 6, "col-e6")+`]}`, 4, "col-s4")
	fields += "," + field("tags", `{"type":"array","elementType":{"type":"struct","fields":[`+field("k", `"string"`, 8, "col-g8")+`]},"containsNull":true}`, 7, "col-t7")
	fields += "," + field("m", `{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[`+field("v", `"long"`, 10, "col-i10")+`]},"valueContainsNull":true}`, 9, "col-m9")
	if partitioned {
		fields += "," + field("part", `"string"`, 11, "col-p11")
	}
	return `{"type":"struct","fields":[` + fields + `]}`
}

// MappedConfig is the table configuration of a column-mapped table.
func MappedConfig(mode string) map[string]string {
	return map[string]string{"delta.columnMapping.mode": mode, "delta.columnMapping.maxColumnId": "11"}
}

// MappedProtocol is the protocol of a column-mapped table (reader 3 with
// the columnMapping feature, and deletion vectors).
func MappedProtocol() action.Action {
	return Protocol(3, 7, []string{"columnMapping", "deletionVectors"}, []string{"columnMapping", "deletionVectors"})
}

// WriteMappedFile writes rows MappedRowAt(0..rows-1) at relPath, under
// the "col-*" names, or under other names with the same field ids
// (otherNames), and returns its add action.
func (t *Table) WriteMappedFile(relPath string, rows int, otherNames bool, partitionValues map[string]*string) (action.Action, error) {
	name := filepath.Join(t.Dir, filepath.FromSlash(relPath))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return action.Action{}, err
	}
	f, err := os.Create(name)
	if err != nil {
		return action.Action{}, err
	}
	defer f.Close()
	mapped := make([]MappedRow, rows)
	for i := range mapped {
		mapped[i] = MappedRowAt(int64(i))
	}
	if otherNames {
		other := make([]OtherNamedRow, rows)
		for i, r := range mapped {
			o := &other[i]
			o.ID, o.Name, o.Gone, o.S.X, o.S.Y = r.ID, r.Name, r.Gone, r.S.X, r.S.Y
			for _, tg := range r.Tags {
				o.Tags = append(o.Tags, struct {
					K string `parquet:"p8,id(8)"`
				}{tg.K})
			}
			o.M = map[string]struct {
				V int64 `parquet:"p10,id(10)"`
			}{}
			for k, v := range r.M {
				o.M[k] = struct {
					V int64 `parquet:"p10,id(10)"`
				}{v.V}
			}
		}
		err = parquet.Write(f, other)
	} else {
		err = parquet.Write(f, mapped)
	}
	if err != nil {
		return action.Action{}, fmt.Errorf("deltagen: mapped file %s: %w", relPath, err)
	}
	if err := f.Close(); err != nil {
		return action.Action{}, err
	}
	fi, err := os.Stat(name)
	if err != nil {
		return action.Action{}, err
	}
	return AddFile(EncodePath(relPath), fi.Size(), fi.ModTime().UnixMilli(), partitionValues, Stats(0, int64(rows)-1)), nil
}
