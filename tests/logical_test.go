package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/versions/layout"
)

// TestLogicalViewColumnMappedTables: on every column-mapped shared table,
// each served file of the latest version carries only logical column
// names (top level and nested), and, fully decoded (every column chunk,
// every row group), each of its columns equals the stored file's column at
// the same data offset: the served footer reinterprets no byte (INT96
// columns, served converted, are compared as microseconds). A renamed
// file without deletion vector keeps the stored size in name mode, as
// stat said before any read.
func TestLogicalViewColumnMappedTables(t *testing.T) {
	requireFUSE(t)
	dir := TestdataDir(t)
	n := 0
	for _, it := range LoadInventory(t, dir) {
		if (it.ColumnMapping != "name" && it.ColumnMapping != "id") || it.MissingDataFiles > 0 || refusedAnywhere(it.Table) {
			continue
		}
		n++
		t.Run(it.Table, func(t *testing.T) {
			tableDir := filepath.Join(dir, it.Table)
			m := mountLayout(t, tableDir, fs.Options{RefreshInterval: -1})
			snap, err := m.table.Snapshot(context.Background(), m.table.Latest())
			if err != nil {
				t.Fatal(err)
			}
			fields, err := layout.ParseSchema(snap.Metadata.SchemaString)
			if err != nil {
				t.Fatal(err)
			}
			logical := logicalNames(fields)
			latest := filepath.Join(m.dir, "v", strconv.FormatInt(snap.Version, 10))
			files := 0
			err = filepath.WalkDir(latest, func(p string, d iofs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				files++
				stored, err := getxattrString(p, "user.delta.path")
				if err != nil {
					return err
				}
				f := snap.Find(stored)
				if f == nil {
					return fmt.Errorf("%s: user.delta.path %q is no live file", p, stored)
				}
				compareServed(t, p, filepath.Join(tableDir, filepath.FromSlash(stored)), logical, f.DV == nil)
				if info, err := os.Stat(p); err == nil && f.DV == nil && it.ColumnMapping == "name" && info.Size() != f.Size {
					t.Errorf("%s: size %d, stored %d", p, info.Size(), f.Size)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if want := len(snap.Files); files != want {
				t.Errorf("%d files served, the snapshot has %d", files, want)
			}
		})
	}
	if n == 0 {
		t.Fatal("no column-mapped table in the inventory")
	}
}

// logicalNames collects every logical field name at any depth.
func logicalNames(fields []layout.Field) map[string]bool {
	out := map[string]bool{}
	var walk func(layout.Type)
	walk = func(t layout.Type) {
		switch t.Kind {
		case layout.Struct:
			for _, f := range t.Fields {
				out[f.Name] = true
				walk(f.Type)
			}
		case layout.Array:
			walk(*t.Element)
		case layout.Map:
			walk(*t.Key)
			walk(*t.Value)
		}
	}
	walk(layout.Type{Kind: layout.Struct, Fields: fields})
	return out
}

// listLevels are the names Parquet gives the levels of lists and maps.
var listLevels = []string{"list", "element", "item", "array", "key_value", "key", "value", "bag"}

func compareServed(t *testing.T, servedPath, storedPath string, logical map[string]bool, sameOffsets bool) {
	t.Helper()
	served, closeServed := openParquet(t, servedPath)
	defer closeServed()
	stored, closeStored := openParquet(t, storedPath)
	defer closeStored()
	for _, path := range served.Schema().Columns() {
		for _, name := range path {
			if !logical[name] && !slices.Contains(listLevels, name) {
				t.Errorf("%s: column %v: %q is not a logical name", servedPath, path, name)
			}
		}
	}
	if !sameOffsets {
		return // filtered by a deletion vector: its own tests compare rows
	}
	srgs, orgs := served.RowGroups(), stored.RowGroups()
	if len(srgs) != len(orgs) {
		t.Fatalf("%s: %d row groups, stored %d", servedPath, len(srgs), len(orgs))
	}
	smd, omd := served.Metadata(), stored.Metadata()
	for i := range srgs {
		// INT96 chunks are served converted, laid out anew with the chunks
		// after them: in a file that drops no column, chunks pair by position.
		byPosition := slices.ContainsFunc(omd.RowGroups[i].Columns, func(o format.ColumnChunk) bool { return o.MetaData.Type == format.Int96 }) &&
			len(smd.RowGroups[i].Columns) == len(omd.RowGroups[i].Columns)
		for j, cc := range smd.RowGroups[i].Columns {
			k := slices.IndexFunc(omd.RowGroups[i].Columns, func(o format.ColumnChunk) bool {
				return o.MetaData.DataPageOffset == cc.MetaData.DataPageOffset
			})
			if byPosition {
				k = j
			}
			if k < 0 {
				t.Fatalf("%s: row group %d column %d: no stored chunk at offset %d", servedPath, i, j, cc.MetaData.DataPageOffset)
			}
			a, b := chunkValues(t, srgs[i].ColumnChunks()[j]), int96AsMicros(chunkValues(t, orgs[i].ColumnChunks()[k]))
			if len(a) != len(b) {
				t.Fatalf("%s: row group %d column %v: %d values, stored %d", servedPath, i, cc.MetaData.PathInSchema, len(a), len(b))
			}
			for v := range a {
				if !parquet.Equal(a[v], b[v]) || a[v].DefinitionLevel() != b[v].DefinitionLevel() || a[v].RepetitionLevel() != b[v].RepetitionLevel() {
					t.Fatalf("%s: row group %d column %v value %d: %v, stored %v", servedPath, i, cc.MetaData.PathInSchema, v, a[v], b[v])
				}
			}
		}
	}
}

// int96AsMicros converts INT96 values (Spark's timestamps) as a mount
// serves them: INT64 microseconds since the epoch.
func int96AsMicros(vals []parquet.Value) []parquet.Value {
	for i, v := range vals {
		if v.Kind() != parquet.Int96 {
			continue
		}
		i96 := v.Int96()
		nanos := uint64(i96[1])<<32 | uint64(i96[0])
		us := (int64(i96[2])-2_440_588)*86_400_000_000 + int64(nanos/1000)
		vals[i] = parquet.Int64Value(us).Level(v.RepetitionLevel(), v.DefinitionLevel(), v.Column())
	}
	return vals
}

func openParquet(t *testing.T, p string) (*parquet.File, func()) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		f.Close()
		t.Fatalf("%s: %v", p, err)
	}
	return pf, func() { f.Close() }
}

// chunkValues decodes every value of a column chunk.
func chunkValues(t *testing.T, cc parquet.ColumnChunk) []parquet.Value {
	t.Helper()
	pages := cc.Pages()
	defer pages.Close()
	var out []parquet.Value
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]parquet.Value, p.NumValues())
		n, err := p.Values().ReadValues(vals)
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		for _, v := range vals[:n] {
			out = append(out, v.Clone())
		}
		parquet.Release(p)
	}
}

// TestLogicalViewServesEverySharedTable: under the logical layout (the
// default), every served file of every version of every readable shared
// table reads whole, as many bytes as stat said, and opens as Parquet:
// no view fails to build or changes size (renamed, filled, widened or
// relabeled files, deletion vectors), and the only timestamps served as
// local date-times are the schema's timestamp_ntz. A file whose stored
// object is missing from this copy gives EIO, as does one whose deletion
// vector is.
func TestLogicalViewServesEverySharedTable(t *testing.T) {
	requireFUSE(t)
	dir := TestdataDir(t)
	var mu sync.Mutex
	read := 0
	for _, it := range LoadInventory(t, dir) {
		if refusedAnywhere(it.Table) || len(it.Expects) == 0 {
			continue
		}
		t.Run(it.Table, func(t *testing.T) {
			t.Parallel()
			tableDir := filepath.Join(dir, it.Table)
			m := mountLayout(t, tableDir, fs.Options{RefreshInterval: -1})
			for _, e := range it.Expects {
				vdir := filepath.Join(m.dir, "v", strconv.FormatInt(e.Version, 10))
				names, err := walkFiles(vdir)
				if err != nil {
					t.Fatalf("v%d: %v", e.Version, err)
				}
				local := localTimeNames(t, m, e.Version)
				for _, name := range names {
					p := filepath.Join(vdir, filepath.FromSlash(name))
					pf := servesWhole(t, p, tableDir, it.MissingDVFiles > 0)
					if pf == nil {
						continue
					}
					for _, el := range pf.Metadata().Schema {
						if ts, ok := el.LogicalType.Value.(*format.TimestampType); ok && !ts.IsAdjustedToUTC && local != nil && !local[el.Name] {
							t.Errorf("%s: %s served as a local date-time; the table's schema has no timestamp_ntz of that name", p, el.Name)
						}
					}
					mu.Lock()
					read++
					mu.Unlock()
				}
			}
		})
	}
	t.Cleanup(func() { t.Logf("%d served files read whole", read) })
}

// servesWhole reads the served file p whole and checks it against its
// stat, and returns it opened as Parquet; nil for a file that may not
// read (its stored object, or a deletion vector, missing), or that is
// not Parquet.
func servesWhole(t *testing.T, p, tableDir string, vectorsMissing bool) *parquet.File {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Errorf("stat %s: %v", p, err)
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		stored, xerr := getxattrString(p, "user.delta.path")
		if _, serr := os.Stat(filepath.Join(tableDir, filepath.FromSlash(stored))); !(xerr == nil && errors.Is(serr, iofs.ErrNotExist) || vectorsMissing) {
			t.Errorf("read %s: %v", p, err)
		}
		return nil // or not in this copy
	}
	if int64(len(data)) != info.Size() {
		t.Errorf("%s: read %d bytes, stat said %d", p, len(data), info.Size())
	}
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil && strings.HasSuffix(p, ".parquet") {
		t.Errorf("%s: served file is not Parquet: %v", p, err)
	}
	return pf
}

// localTimeNames are the names of the timestamp_ntz fields of a version's
// schema, at any depth: the only timestamps served as local date-times
// (nil for a version without a schema, whose files are served as stored).
func localTimeNames(t *testing.T, m *liveMount, version int64) map[string]bool {
	t.Helper()
	snap, err := m.table.Snapshot(context.Background(), version)
	if err != nil {
		t.Fatal(err)
	}
	fields, err := layout.ParseSchema(snap.Metadata.SchemaString)
	if err != nil {
		return nil // no schema: the files are served as stored
	}
	names := map[string]bool{}
	var walk func(name string, ty layout.Type)
	walk = func(name string, ty layout.Type) {
		switch ty.Kind {
		case layout.Struct:
			for _, f := range ty.Fields {
				walk(f.Name, f.Type)
			}
		case layout.Array:
			walk("element", *ty.Element)
		case layout.Map:
			walk("key", *ty.Key)
			walk("value", *ty.Value)
		}
		if ty.Primitive == "timestamp_ntz" {
			names[name] = true
		}
	}
	walk("", layout.Type{Kind: layout.Struct, Fields: fields})
	return names
}
