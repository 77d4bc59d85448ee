package parquetview

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// FuzzBuildView feeds Build arbitrary files and vectors. It must never
// panic; a view it returns must be a Parquet file holding exactly the rows
// the vector leaves, of the size it claims.
func FuzzBuildView(f *testing.F) {
	good := writeGroups(f, &parquet.Snappy, 7, 5, 9)
	f.Add(good, uint64(0), uint64(8), uint64(20))
	f.Add(good, uint64(3), uint64(3), uint64(3))
	f.Add(writeGroups(f, &parquet.Uncompressed, 4), uint64(1), uint64(2), uint64(1<<33))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"), uint64(0), uint64(0), uint64(0))
	// A file lacking fields grownStruct adds inside its structs, and one
	// lacking those grownLists adds inside its lists' and maps' structs.
	f.Add(writeRowGroups(f, oldRow, []int{7, 5}), uint64(1), uint64(9), uint64(30))
	f.Add(writeRowGroups(f, oldListRow, []int{9, 7}), uint64(2), uint64(8), uint64(15))
	// Timestamps stored as local date-times, which instantTable relabels.
	f.Add(localTimeFile(f, false), uint64(1), uint64(6), uint64(7))
	// Spark's INT96 timestamps, which int96Table serves as micros.
	f.Add(writeRowGroups(f, mkInt96Row, []int{9, 5}, parquet.PageBufferSize(256)), uint64(1), uint64(12), uint64(13))
	// Spark's "lz4" (Hadoop's framing), rebuilt page by page, or refused.
	for _, name := range []string{"spark-lz4.parquet", "spark-lz4-list.parquet"} {
		if data, err := os.ReadFile("testdata/" + name); err == nil {
			f.Add(data, uint64(3), uint64(20), uint64(49))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, a, b, c uint64) {
		vec := dvfilter.NewVector(a%64, b%64, c)
		src := &bytesSource{data: data}
		checkBuilt(t, src, data, vec, BuildOptions{SpillDir: t.TempDir()})
		// The same file served with fields filled inside its structs, with
		// timestamps relabeled, and with INT96 ones converted.
		for _, rn := range []*Rename{grownStruct(), grownLists(), instantTable(), int96Table()} {
			checkBuilt(t, src, data, vec, BuildOptions{SpillDir: t.TempDir(), Rename: rn})
			if _, err := Lacking(context.Background(), src, int64(len(data)), rn); err != nil && !errors.Is(err, ErrParquet) && !isShortRead(err) {
				t.Fatalf("Lacking: unclassified error: %v", err)
			}
		}
	})
}

// checkBuilt builds the view of data: an error must be classified, and a
// view must be a Parquet file of the rows and size it claims.
func checkBuilt(t *testing.T, src RangeReader, data []byte, vec Rows, opts BuildOptions) {
	t.Helper()
	v, err := Build(context.Background(), src, int64(len(data)), vec, opts)
	if err != nil {
		if !errors.Is(err, ErrParquet) && !errors.Is(err, ErrRowOutOfRange) && !isShortRead(err) {
			t.Fatalf("unclassified error: %v", err)
		}
		return
	}
	out := make([]byte, v.Size())
	if _, err := v.ReadAt(context.Background(), src, out, 0); err != nil {
		t.Fatalf("ReadAt: %v", err)
	}
	if !bytes.HasPrefix(out, magic) || !bytes.HasSuffix(out, magic) {
		t.Fatal("view lacks the Parquet magic")
	}
	md, _, err := readFooter(context.Background(), &bytesSource{data: out}, int64(len(out)))
	if err != nil {
		t.Fatalf("view's footer: %v", err)
	}
	if md.NumRows != v.Rows || int64(binary.LittleEndian.Uint32(out[len(out)-8:])) > int64(len(out)) {
		t.Fatalf("view footer says %d rows, view %d", md.NumRows, v.Rows)
	}
}

func isShortRead(err error) bool { return bytes.Contains([]byte(err.Error()), []byte("short read")) }

// FuzzViewSchemas builds views of files of any shape the input picks:
// columns of any kind (deltagen.AnyKinds) at the top, in a group and in a
// group within it, rows with and without the group, pages of any size in
// v1 or v2, one or several row groups, any rows deleted, and, when
// rename, every column renamed (unless the top bit of pageBytes keeps the
// names) and some dropped (column mapping), and leaves given wider types
// (type widening: the high bits of drop pick them), a column the file
// lacks added (bit 62 of drop), served as nulls, and longs stored as
// local date-times, served as instants (bit 61). The view must hold
// exactly the rows of the file the vector leaves, value for value
// (converted where widened), of the columns kept, under their new names;
// a view that changes nothing must be Unchanged, the file's bytes.
func FuzzViewSchemas(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, uint8(50), uint64(0xf0f0f0f0f0f0f0f0), uint16(512), false, uint8(7), uint64(0x8000000000000421), false, uint64(0))
	f.Add([]byte{5, 6, 5, 6, 7, 9, 2, 1, 1}, uint8(199), ^uint64(0), uint16(100), true, uint8(0), uint64(1), true, uint64(0))
	f.Add([]byte{0, 0, 0, 1}, uint8(3), uint64(0), uint16(0), true, uint8(1), ^uint64(0), false, uint64(0))
	f.Add([]byte{1, 5, 6, 2, 3, 7, 9, 4, 1}, uint8(120), uint64(0xff00ff00ff00ff00), uint16(300), false, uint8(2), uint64(0x0101), true, uint64(0b100101))
	f.Add([]byte{1, 5, 6, 2, 3, 7, 9, 4, 1}, uint8(77), ^uint64(0), uint16(900), true, uint8(3), uint64(0), true, uint64(0b1010))
	f.Add([]byte{10, 1, 10, 10, 5, 10, 6, 10, 2}, uint8(90), uint64(0xf0f0f0f0f0f0f0f0), uint16(400), true, uint8(2), uint64(0x4242), true, uint64(0b1001001))
	// Widened: long, double, decimal, short, int, decimal, long, double, decimal.
	f.Add([]byte{3, 2, 3, 9, 3, 2, 3, 3, 9}, uint8(150), uint64(0xf0f0f0f0f0f0f0f0), uint16(200), true, uint8(2), uint64(0x0303), true, uint64(93234019)<<32)
	// Names kept, nothing dropped, deleted or widened: Unchanged.
	f.Add([]byte{1, 5, 6, 2, 3, 7, 9, 4, 1}, uint8(60), uint64(0xf0f0f0f0f0f0f0f0), uint16(1<<15|700), true, uint8(2), uint64(0), true, uint64(0))
	// A column the file lacks added (bit 62 of drop), rows deleted.
	f.Add([]byte{1, 5, 6, 2, 3, 7, 9, 4, 1}, uint8(80), uint64(0xf0f0f0f0f0f0f0f0), uint16(300), false, uint8(2), uint64(0x0101), true, uint64(1)<<62)
	// Lists of structs, a field added to their elements, rows deleted.
	f.Add([]byte{10, 1, 10, 10, 5, 10, 6, 10, 2}, uint8(90), uint64(0xf0f0f0f0f0f0f0f0), uint16(400), true, uint8(2), uint64(0x4242), true, uint64(1)<<62)
	// Longs stored as local date-times (bit 61 of drop), names kept, and
	// with rows deleted.
	f.Add([]byte{2, 5, 9, 2, 3, 7, 9, 4, 2}, uint8(60), uint64(0xf0f0f0f0f0f0f0f0), uint16(1<<15|700), true, uint8(2), uint64(0), true, uint64(1)<<61)
	f.Add([]byte{2, 5, 9, 2, 3, 7, 9, 4, 2}, uint8(60), uint64(0xf0f0f0f0f0f0f0f0), uint16(700), true, uint8(2), uint64(0x0101), true, uint64(1)<<61|0b100)
	paths := []string{"a", "b", "c", "g.x", "g.y", "g.h.z", "m", "n", "g.h.w"}
	f.Fuzz(func(t *testing.T, kinds []byte, nrows uint8, groups uint64, pageBytes uint16, v2 bool, rowGroups uint8, deleted uint64, rename bool, drop uint64) {
		fill := rename && drop>>62&1 == 1 // a column the file lacks, filled
		rows := int(nrows)%200 + 1
		version := 1
		if v2 {
			version = 2
		}
		data, err := deltagen.AnySchemaFile(paths, kinds, rows, func(r int, _ string) bool { return groups>>(r%64)&1 == 1 },
			parquet.PageBufferSize(64+int(pageBytes)%8192), parquet.DataPageVersion(version),
			parquet.MaxRowsPerRowGroup(int64(rows/(int(rowGroups)%4+1)+1)), parquet.Compression(&parquet.Snappy))
		if err != nil || data == nil {
			t.Skip("no file of that shape")
		}
		// Its longs stored as local date-times, served as instants.
		instants := rename && drop>>61&1 == 1
		var local []bool
		if instants {
			data, local = asLocalTimes(t, data)
		}
		var del []uint64
		for r := range uint64(rows) {
			if deleted>>(r*7%64)&1 == 1 {
				del = append(del, r)
			}
		}
		src := &bytesSource{data: data}
		opts := BuildOptions{SpillDir: t.TempDir()}
		var keepLeaf []bool // nil: every column kept
		var widen []*widening
		keepNames := pageBytes>>15 == 1 // pageBytes%8192 ignores the top bits
		if rename {
			md, _, err := readFooter(context.Background(), src, int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			types := fuzzLeafType(drop >> 32)
			if instants {
				types = func(int) *LeafType { return nil }
			}
			opts.Rename, keepLeaf = renameAll(md.Schema, drop, types, keepNames)
			if !slices.Contains(keepLeaf, true) {
				t.Skip("every column dropped")
			}
			if instants {
				markInstants(opts.Rename.Columns)
			}
			if fill {
				opts.Rename.FillMissing = true
				addFields(opts.Rename.Columns)
				opts.Rename.Columns = append(opts.Rename.Columns, addedColumn())
			}
			if widen, _, err = opts.Rename.conversions(md); err != nil {
				t.Fatal(err)
			}
		}
		v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(del...), opts)
		if err != nil {
			t.Fatalf("a file parquet-go wrote: %v", err)
		}
		view := materialize(t, v, src)
		relabeled := false // a long kept is served relabeled
		for i, l := range local {
			relabeled = relabeled || l && keepLeaf[i]
		}
		asStored := rename && keepNames && len(del) == 0 && !slices.Contains(keepLeaf, false) && widen == nil && !fill && !relabeled
		if v.Unchanged() != asStored || v.Unchanged() && !bytes.Equal(view, data) {
			t.Fatalf("unchanged %v, want %v; bytes equal %v", v.Unchanged(), asStored, bytes.Equal(view, data))
		}
		if rename && keepNames && len(del) == 0 && widen == nil && !fill && len(view) != len(data) {
			t.Fatalf("served %d bytes, stored %d: only the footer changed, the size is not kept", len(view), len(data))
		}
		for _, el := range footerOf(t, view).Schema {
			if ts, ok := el.LogicalType.Value.(*format.TimestampType); ok && !ts.IsAdjustedToUTC {
				t.Fatalf("%s served as a local date-time", el.Name)
			}
		}
		got := allRows(t, view)
		if fill {
			got = withoutAdded(t, view, got)
		}
		want := allRows(t, data)
		kept := want[:0]
		for r, row := range want {
			if !slices.Contains(del, uint64(r)) {
				kept = append(kept, keepColumns(widenRow(t, row, widen), keepLeaf))
			}
		}
		if rename {
			vf, err := parquet.OpenFile(bytes.NewReader(view), int64(len(view)))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := vf.Schema().Lookup("added", "tags", "list", "element"); ok != fill {
				t.Fatalf("the added column served: %v, want %v", ok, fill)
			}
			for _, field := range vf.Schema().Fields() {
				if keepNames == strings.HasPrefix(field.Name(), "L_") && field.Name() != "added" {
					t.Fatalf("column %q served under its stored name", field.Name())
				}
			}
		}
		if len(got) != len(kept) {
			t.Fatalf("the view holds %d rows, want %d of %d", len(got), len(kept), rows)
		}
		for i := range got {
			if !got[i].Equal(kept[i]) {
				t.Fatalf("row %d of the view differs from the file's", i)
			}
		}
	})
}

// asLocalTimes marks the longs of a file as Parquet timestamps not
// adjusted to UTC, as older delta-rs wrote Delta timestamps, and says
// which leaves it marked.
func asLocalTimes(t *testing.T, data []byte) ([]byte, []bool) {
	md := footerOf(t, data)
	var local []bool
	for i := range md.Schema {
		el := &md.Schema[i]
		if el.NumChildren.V > 0 || i == 0 {
			continue
		}
		_, integer := el.LogicalType.Value.(*format.IntType)
		long := el.Type.Valid && el.Type.V == format.Int64 && (integer || el.LogicalType.Value == nil)
		if long {
			el.LogicalType.Value = &format.TimestampType{Unit: format.TimeUnit{Value: &format.MicroSeconds{}}}
		}
		local = append(local, long)
	}
	return withSchema(t, data, md), local
}

// markInstants has every leaf read as an instant.
func markInstants(cols []Column) {
	for i := range cols {
		cols[i].Instant = cols[i].Kind == LeafColumn
		markInstants(cols[i].Children)
	}
}

// addedColumn is a top-level column no generated file has: a struct of a
// long and a list of strings.
func addedColumn() Column {
	long, str := LeafType{Kind: LongType}, LeafType{Kind: StringType}
	return Column{Name: "added", Physical: "added", Kind: StructColumn, Children: []Column{
		{Name: "n", Physical: "n", Fill: &long},
		{Name: "tags", Physical: "tags", Kind: ListColumn, Children: []Column{{Fill: &str}}},
	}}
}

// addFields adds a field, added_f, to every struct of cols outside lists
// and maps: no generated file has it.
func addFields(cols []Column) {
	long := LeafType{Kind: LongType}
	for i := range cols {
		switch c := &cols[i]; c.Kind {
		case StructColumn:
			addFields(c.Children)
			c.Children = append(c.Children, Column{Name: "added_f", Physical: "added_f", Fill: &long})
		case ListColumn, MapColumn:
			addFields(c.Children) // the structs inside lists too
		}
	}
}

// withoutAdded checks the leaves of the view that no source file has
// (addedColumn's, at the end, and added_f inside structs): null in every
// row, at the level that says how far down their path the row has values
// (added_f's: that of a stored field of its struct, no deeper than the
// struct, and inside a list one value for each of that field's, at its
// repetition level). It returns the rows without them.
func withoutAdded(t *testing.T, view []byte, rows []parquet.Row) []parquet.Row {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(view), int64(len(view)))
	if err != nil {
		t.Fatal(err)
	}
	paths := f.Schema().Columns()
	index := make([]int, len(paths)) // served leaf -> leaf among the stored, -1: added
	// An added field takes its levels from a served leaf beside it: under
	// its own struct, or, when none of that struct's fields is served (the
	// struct is filled whole, as null), under the nearest node above it
	// with one that repeats no more than that node, up to that node's
	// level.
	sibling := make([]int, len(paths))
	maxDef := make([]int, len(paths)) // the most an added leaf's sibling says
	stored := 0
	for c, p := range paths {
		sibling[c], index[c] = -1, stored
		switch {
		case p[0] == "added":
			index[c] = -1
		case p[len(p)-1] == "added_f":
			index[c] = -1
		near:
			for k := len(p) - 1; k > 0; k-- {
				def, rep := levelsOf(f.Schema(), p[:k])
				for q, qp := range paths {
					ql, _ := f.Schema().Lookup(qp...)
					if len(qp) > k && slices.Equal(qp[:k], p[:k]) && !slices.Contains(qp, "added_f") && ql.MaxRepetitionLevel == rep {
						sibling[c], maxDef[c] = q, def
						break near
					}
				}
			}
		default:
			stored++
		}
	}
	for i, row := range rows {
		values := map[int][]parquet.Value{} // by column, in order
		for _, v := range row {
			values[v.Column()] = append(values[v.Column()], v)
		}
		var own parquet.Row
		taken := map[int]int{} // values of each added leaf checked
		for _, v := range row {
			c := v.Column()
			if index[c] >= 0 {
				own = append(own, v.Level(v.RepetitionLevel(), v.DefinitionLevel(), index[c]))
				continue
			}
			want, wantRep := 0, 0
			if q := sibling[c]; q >= 0 {
				k := taken[c]
				if k >= len(values[q]) {
					t.Fatalf("row %d: added leaf %v has more values than its sibling %v (%d)", i, paths[c], paths[q], len(values[q]))
				}
				want, wantRep = min(values[q][k].DefinitionLevel(), maxDef[c]), values[q][k].RepetitionLevel()
			}
			taken[c]++
			if !v.IsNull() || v.DefinitionLevel() != want || v.RepetitionLevel() != wantRep {
				t.Fatalf("row %d: added leaf %v holds %v at levels %d, %d, want null at %d, %d", i, paths[c], v, v.RepetitionLevel(), v.DefinitionLevel(), wantRep, want)
			}
		}
		for c, n := range taken {
			if q := sibling[c]; q >= 0 && n != len(values[q]) {
				t.Fatalf("row %d: added leaf %v has %d values, its sibling %v %d", i, paths[c], n, paths[q], len(values[q]))
			}
		}
		rows[i] = own
	}
	return rows
}

// renameAll returns the Rename that serves every field of a schema (its
// top-level columns and the fields of its structs, those inside lists
// too) as "L_" and its name (unless keepNames), but the fields drop picks
// (bit i: the i-th such field, in schema order), and which of the
// source's leaves it keeps. The elements of lists and the keys and values
// of maps keep their names.
func renameAll(schema []format.SchemaElement, drop uint64, types func(leaf int) *LeafType, keepNames bool) (*Rename, []bool) {
	var keep []bool
	pos, fields := 1, 0
	dropNext := func() bool {
		fields++
		return drop>>((fields-1)%64)&1 == 1
	}
	// node returns the Column serving the element at pos and its subtree.
	var node func(renamed, dropped bool) Column
	node = func(renamed, dropped bool) Column {
		el := schema[pos]
		pos++
		c := Column{Name: el.Name, Physical: el.Name}
		if renamed && !keepNames {
			c.Name = "L_" + el.Name
		}
		if el.NumChildren.V <= 0 {
			c.Type = types(len(keep))
			keep = append(keep, !dropped)
			return c
		}
		switch {
		case el.ConvertedType.Valid && el.ConvertedType.V == deprecated.List:
			c.Kind = ListColumn
		case el.ConvertedType.Valid && (el.ConvertedType.V == deprecated.Map || el.ConvertedType.V == deprecated.MapKeyValue):
			c.Kind = MapColumn
		default:
			c.Kind = StructColumn
			for range el.NumChildren.V {
				d := dropNext()
				if child := node(true, dropped || d); !d {
					c.Children = append(c.Children, child)
				}
			}
			return c
		}
		// The repeated group holds the element, or the key and value; in a
		// list of two levels it is the element.
		rep := schema[pos]
		pos++
		if rep.NumChildren.V <= 0 {
			keep = append(keep, !dropped)
			c.Children = []Column{{Name: rep.Name, Physical: rep.Name}}
		}
		for range rep.NumChildren.V {
			c.Children = append(c.Children, node(false, dropped))
		}
		return c
	}
	rn := &Rename{Key: "fuzz"}
	for range schema[0].NumChildren.V {
		d := dropNext()
		if col := node(true, d); !d {
			rn.Columns = append(rn.Columns, col)
		}
	}
	return rn, keep
}

// fuzzLeafType gives leaf i the type picked by three bits of bits (none
// for 0 and 7).
func fuzzLeafType(bits uint64) func(int) *LeafType {
	return func(i int) *LeafType {
		switch k := LeafKind(bits >> (3 * (i % 10)) & 7); k {
		case ShortType, IntType, LongType, DoubleType, TimestampNTZType:
			return &LeafType{Kind: k}
		case DecimalType:
			return &LeafType{Kind: k, Precision: 12 + 10*(i%2), Scale: 1 + i%2}
		}
		return nil
	}
}

// widenRow returns row with the values of widened leaves converted.
func widenRow(t *testing.T, row parquet.Row, widen []*widening) parquet.Row {
	if widen == nil {
		return row
	}
	out := make(parquet.Row, len(row))
	for i, v := range row {
		out[i] = v
		if wd := widen[v.Column()]; wd != nil {
			w, err := wd.apply(v)
			if err != nil {
				t.Fatalf("convert %v: %v", v, err)
			}
			out[i] = w
		}
	}
	return out
}

// keepColumns returns row without the values of the leaves keep says are
// dropped, the others numbered among those kept (nil: row itself).
func keepColumns(row parquet.Row, keep []bool) parquet.Row {
	if keep == nil {
		return row
	}
	index := make([]int, len(keep))
	n := 0
	for i, k := range keep {
		index[i] = n
		if k {
			n++
		}
	}
	var out parquet.Row
	for _, v := range row {
		if c := v.Column(); keep[c] {
			out = append(out, v.Level(v.RepetitionLevel(), v.DefinitionLevel(), index[c]))
		}
	}
	return out
}

// allRows reads every row of a Parquet file, whatever its schema.
func allRows(t *testing.T, data []byte) []parquet.Row {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	var out []parquet.Row
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		buf := make([]parquet.Row, 64)
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				out = append(out, r.Clone())
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("read rows: %v", err)
			}
		}
		rows.Close()
	}
	return out
}

// levelsOf are the definition level at which the node at path is present
// and its repetition level: the optional and repeated nodes down to it,
// and the repeated ones, itself included.
func levelsOf(node parquet.Node, path []string) (def, rep int) {
	for _, name := range path {
		for _, field := range node.Fields() {
			if field.Name() == name {
				node = field
				break
			}
		}
		if node.Optional() || node.Repeated() {
			def++
		}
		if node.Repeated() {
			rep++
		}
	}
	return def, rep
}
