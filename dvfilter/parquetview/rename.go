package parquetview

import (
	"context"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go/format"
)

// Rename says which columns a served file has and what they are called:
// the logical schema of a column-mapped Delta table at one version. Source
// columns are found by physical name (in another case where no column has
// the exact one), or by Parquet field id when ByID (fieldid.go: a file
// without any is refused); source columns that match no Column (dropped
// from the table) are not served. Only the footer changes, the data
// pages are the source's, unless a leaf's Type is wider than the stored
// one.
type Rename struct {
	ByID    bool
	Columns []Column
	// Key names this Rename among those of a table (views are cached by
	// data file and Key): equal Keys must mean equal Renames.
	Key string
	// FillMissing serves columns a file lacks, and fields missing inside
	// the structs it stores, as nulls (see fill.go), where every leaf has
	// a Fill type: the served file is then larger than the stored one.
	FillMissing bool
	// storedInt96 serves INT96 instants as stored, not converted (int96.go).
	storedInt96 bool
}

// Column is one field of a Rename: its served name, how it is found in the
// source file, and the fields nested in it.
type Column struct {
	Name     string // served (logical) name
	Physical string // name in the source file
	ID       int64  // field id in the source file (ByID; 0: found by Physical)
	Kind     ColumnKind
	// Struct: its fields. List: one, the element. Map: two, key and value.
	// Element, key and value keep the source's names; only the fields of
	// structs inside them are renamed.
	Children []Column
	// Type, on a leaf whose type the table widened, is the table's type:
	// a file storing a narrower one is served converted (see LeafType).
	Type *LeafType
	// Fill, on a leaf, is its type when a file lacking it is served with
	// nulls (Rename.FillMissing).
	Fill *LeafType
	// Instant, on a leaf, says the table reads it as an instant (Delta's
	// timestamp): a file storing a local date-time there is served with
	// it marked as one (instant.go), one storing INT96 with its values
	// converted to INT64 microseconds (int96.go).
	Instant bool
	// SparkField, on a top-level column, is its field in Spark's schema
	// JSON, for the footer entry Spark's reader takes the schema from
	// (sparkschema.go); "": unknown, and files serving it lose the entry.
	SparkField string
}

// Widens says whether the Rename converts a column to a wider type:
// its views then re-encode the row groups of files storing the narrower.
func (rn *Rename) Widens() bool { return rn != nil && widens(rn.Columns) }

func widens(cols []Column) bool {
	for i := range cols {
		if cols[i].Type != nil || widens(cols[i].Children) {
			return true
		}
	}
	return false
}

// ColumnKind is the shape of a Column.
type ColumnKind int

const (
	LeafColumn ColumnKind = iota
	StructColumn
	ListColumn
	MapColumn
)

// schemaCaches are key-value metadata entries that repeat the schema under
// the source's names for one engine (Arrow's and Spark's readers consult
// them); renamed files drop them rather than serve stale names (Spark's
// is then written again from the table's schema: encodeServedFooter).
var schemaCaches = []string{"ARROW:schema", sparkSchemaKey}

// apply rewrites md in place: the schema keeps the matched columns under
// their served names, and every row group keeps their column chunks, with
// paths in the served names. Offsets are untouched. A footer that keeps
// every column under its stored name is left as it is, schema caches
// included.
func (rn *Rename) apply(md *format.FileMetaData) (fills, error) {
	w := &renameWalk{}
	if err := w.walk(md, rn); err != nil {
		return fills{}, err
	}
	if !w.changed {
		return fills{}, nil
	}
	newIndex := make([]int, len(w.keep)) // source leaf -> served leaf, -1: dropped
	n, inserted, next := 0, 0, 0
	for i, k := range w.keep {
		for ; next < len(w.nested) && w.nested[next].afterSource <= i; next++ {
			inserted += len(w.nested[next].leaves)
		}
		newIndex[i] = -1
		if k {
			newIndex[i], n = n+inserted, n+1
		}
	}
	// Readers (parquet-go among them) read a row group's page indexes as
	// one run laid out column after column; with a column gone from the
	// footer its index leaves a hole they misread. The indexes only speed
	// up filtering: a file that drops columns is served without them.
	dropsColumns := n < len(w.keep) || len(w.missing) > 0 || len(w.nested) > 0
	for i := range md.RowGroups {
		rg := &md.RowGroups[i]
		if len(rg.Columns) != len(w.keep) {
			return fills{}, fmt.Errorf("row group %d has %d column chunks for %d leaf columns: %w", i, len(rg.Columns), len(w.keep), ErrParquet)
		}
		cols := rg.Columns[:0:0]
		for j, cc := range rg.Columns {
			if w.keep[j] {
				cc.MetaData.PathInSchema = w.paths[j]
				if dropsColumns {
					cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0
					cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0
				}
				cols = append(cols, cc)
			}
		}
		rg.Columns = cols
		sorting := rg.SortingColumns[:0:0]
		for _, s := range rg.SortingColumns {
			if int(s.ColumnIdx) < len(newIndex) && newIndex[s.ColumnIdx] >= 0 {
				s.ColumnIdx = int32(newIndex[s.ColumnIdx])
				sorting = append(sorting, s)
			}
		}
		rg.SortingColumns = sorting
	}
	if len(md.ColumnOrders) == len(w.keep) {
		orders := md.ColumnOrders[:0:0]
		for j, o := range md.ColumnOrders {
			if w.keep[j] {
				orders = append(orders, o)
			}
		}
		md.ColumnOrders = orders
	}
	md.Schema = w.out
	dropSchemaCaches(md)
	return fills{top: w.missing, nested: w.nested}, nil
}

// dropSchemaCaches leaves out of md the schema caches, stale once a
// column is renamed, dropped or widened.
func dropSchemaCaches(md *format.FileMetaData) {
	md.KeyValueMetadata = slices.DeleteFunc(slices.Clone(md.KeyValueMetadata), func(kv format.KeyValue) bool {
		return slices.Contains(schemaCaches, kv.Key)
	})
}

// walk walks md's schema as rn serves it.
func (w *renameWalk) walk(md *format.FileMetaData, rn *Rename) error {
	if len(md.Schema) == 0 {
		return fmt.Errorf("footer without a schema: %w", ErrParquet)
	}
	if rn.ByID && !hasFieldIDs(md.Schema) && needsFieldIDs(rn.Columns) {
		return ErrNoFieldIDs
	}
	*w = renameWalk{src: md.Schema, byID: rn.ByID, fill: rn.FillMissing, storedInt96: rn.storedInt96, matched: make([]bool, len(rn.Columns))}
	root := Column{Kind: StructColumn, Children: rn.Columns}
	if err := w.node(&root, md.Schema[0].Name, nil, 0, 0, 0); err != nil {
		return err
	}
	w.missing = rn.missingColumns(w.matched)
	w.changed = w.changed || len(w.missing) > 0 || len(w.nested) > 0
	if w.pos != len(md.Schema) {
		return fmt.Errorf("schema has %d elements, its tree %d: %w", len(md.Schema), w.pos, ErrParquet)
	}
	if w.out[0].NumChildren.V == 0 && len(w.missing) == 0 {
		// A root without columns is no Parquet file a reader opens.
		return fmt.Errorf("none of the table's columns is in the file, and they cannot be served as nulls: %w", ErrParquet)
	}
	return nil
}

// conversions returns, per leaf of md's schema, how rn widens it (nil
// where it does not; nil when no leaf is widened), and whether it converts
// its INT96 values (nil when no leaf's are).
func (rn *Rename) conversions(md *format.FileMetaData) (widen []*widening, int96 []bool, err error) {
	var w renameWalk
	if err := w.walk(md, rn); err != nil {
		return nil, nil, err
	}
	if slices.ContainsFunc(w.widen, func(wd *widening) bool { return wd != nil }) {
		widen = w.widen
	}
	if slices.Contains(w.int96, true) {
		int96 = w.int96
	}
	return widen, int96, nil
}

// renameWalk walks the source schema (depth first, as Parquet flattens
// it), writing the served schema and, per source leaf, whether it is kept
// and its served path.
type renameWalk struct {
	src   []format.SchemaElement
	pos   int
	byID  bool
	out   []format.SchemaElement
	keep  []bool
	paths [][]string
	widen []*widening // per source leaf: its conversion, or nil
	int96 []bool      // per source leaf: INT96 values converted
	reps  []int       // per source leaf: its maximum repetition level
	// storedInt96: INT96 instants are served as stored.
	storedInt96 bool
	// changed: a column is served under another name than stored, or
	// not at all, or added, or its timestamps marked as instants.
	changed bool
	// fill: columns the file lacks are served as nulls. matched says
	// which top-level columns the file stores; missing are those it is
	// served with as nulls, nested the fields missing inside its structs.
	fill    bool
	matched []bool
	missing []*Column
	nested  []nestedFill
	// servedLeaves counts the leaves of the served schema written so far.
	servedLeaves int
}

// node serves the element at w.pos, and its subtree, as col (nil: keep
// every name below) under name; def and rep are its parent's maximum
// definition and repetition levels.
func (w *renameWalk) node(col *Column, name string, path []string, depth, def, rep int) error {
	if w.pos >= len(w.src) || depth > 2*maxSchemaDepth {
		return fmt.Errorf("schema tree is truncated or too deep: %w", ErrParquet)
	}
	el := w.src[w.pos]
	w.pos++
	at := len(w.out)
	w.changed = w.changed || el.Name != name
	el.Name = name
	w.out = append(w.out, el)
	if depth > 0 {
		path = append(slices.Clone(path), name)
		switch el.RepetitionType.V {
		case format.Optional:
			def++
		case format.Repeated:
			def, rep = def+1, rep+1
		}
	}
	children := el.NumChildren.V
	if children <= 0 {
		if children < 0 || !el.Type.Valid {
			return fmt.Errorf("schema element %q has no type: %w", name, ErrParquet)
		}
		if col != nil && col.Instant && asInstant(&w.out[at]) {
			w.changed = true
		}
		int96 := col != nil && col.Instant && el.Type.V == format.Int96 && !w.storedInt96
		if int96 {
			int96Served(&w.out[at])
			w.changed = true
		}
		w.int96 = append(w.int96, int96)
		w.keep = append(w.keep, true)
		w.reps = append(w.reps, rep)
		w.servedLeaves++
		w.paths = append(w.paths, path)
		var wd *widening
		if col != nil && col.Type != nil {
			wd = wideningFor(&el, *col.Type)
		}
		w.widen = append(w.widen, wd)
		return nil
	}
	kept := int32(0)
	first := w.pos
	firstLeaf := len(w.keep)
	var stored []*Column // the fields of col the file stores
	for c := int32(0); c < children; c++ {
		if w.pos >= len(w.src) {
			return fmt.Errorf("schema tree is truncated: %w", ErrParquet)
		}
		child := &w.src[w.pos]
		target, served, ok, err := w.match(col, child, children, c, first)
		if err != nil {
			return err
		}
		if !ok {
			w.changed = true
			if err := w.skip(depth + 1); err != nil {
				return err
			}
			continue
		}
		before := len(w.out)
		if err := w.node(target, served, path, depth+1, def, rep); err != nil {
			return err
		}
		if len(w.out) == before {
			continue // a group none of whose fields matched: missing, so filled
		}
		kept++
		stored = append(stored, target)
		if depth == 0 {
			w.markMatched(col, target)
		}
	}
	if kept == 0 && depth > 0 {
		// A group left without fields is not valid Parquet: drop it too.
		w.out = w.out[:at]
		return nil
	}
	if depth > 0 {
		kept += w.fillFields(col, stored, path, def, rep, firstLeaf)
	}
	w.out[at].NumChildren.V = kept
	return nil
}

// markMatched records that the file stores root's child c.
func (w *renameWalk) markMatched(root, c *Column) {
	for i := range root.Children {
		if &root.Children[i] == c {
			w.matched[i] = true
		}
	}
}

// skip passes over the element at w.pos and its subtree: a dropped column.
func (w *renameWalk) skip(depth int) error {
	if w.pos >= len(w.src) || depth > 2*maxSchemaDepth {
		return fmt.Errorf("schema tree is truncated or too deep: %w", ErrParquet)
	}
	el := w.src[w.pos]
	w.pos++
	if el.NumChildren.V <= 0 {
		w.keep = append(w.keep, false)
		w.reps = append(w.reps, -1) // its levels are not read
		w.paths = append(w.paths, nil)
		w.widen = append(w.widen, nil)
		w.int96 = append(w.int96, false)
		return nil
	}
	for c := int32(0); c < el.NumChildren.V; c++ {
		if err := w.skip(depth + 1); err != nil {
			return err
		}
	}
	return nil
}

// maxSchemaDepth bounds the nesting of a footer's schema walked.
const maxSchemaDepth = 100

// unchangedView returns the view of a file that loses no row, when rn
// leaves its footer as it is (no column renamed, dropped or widened): the
// stored bytes, found from the schema alone; else nil.
func unchangedView(footer []byte, size int64, rn *Rename) (*View, error) {
	fs, err := decodeFooterSchema(footer)
	if err != nil {
		return nil, err
	}
	w := &renameWalk{}
	if err := w.walk(&format.FileMetaData{Schema: fs.Schema}, rn); err != nil {
		return nil, err
	}
	if w.changed || slices.ContainsFunc(w.widen, func(wd *widening) bool { return wd != nil }) {
		return nil, nil
	}
	v := &View{Rows: fs.NumRows, unchanged: true}
	b := &viewBuilder{v: v}
	b.add(segment{n: size, src: 0})
	v.size = b.pos
	return v, nil
}

// renamedView serves a file whose rows all stay under a Rename: the
// source's bytes up to its footer, then the rewritten footer. A footer no
// longer than the source's (names no longer than the physical ones) is
// preceded by zero bytes that give the view the source's exact size, so
// that a size known from the log stays true; readers find the footer from
// the end and the column chunks by their offsets, and never read the gap.
func renamedView(ctx context.Context, src RangeReader, md *format.FileMetaData, size, dataEnd int64, rn *Rename) (*View, error) {
	out := *md
	out.RowGroups = slices.Clone(md.RowGroups)
	fl, err := rn.apply(&out)
	if err != nil {
		return nil, err
	}
	var rows int64
	for _, rg := range out.RowGroups {
		rows += rg.NumRows
	}
	v := &View{Rows: rows, CopiedRowGroups: len(out.RowGroups)}
	b := &viewBuilder{v: v}
	b.add(segment{n: dataEnd, src: 0})
	re := &reencoder{ctx: ctx, src: src, size: size, dataEnd: dataEnd}
	defer re.close()
	ls := &levelSource{ctx: ctx, src: src, md: md, dataEnd: dataEnd, column: re.column}
	if err := fillColumns(b, &out, fl, rn.ByID, ls); err != nil {
		return nil, err
	}
	tail, err := encodeServedFooter(&out, md, rn, size-b.pos)
	if err != nil {
		return nil, err
	}
	if pad := size - b.pos - int64(len(tail)); pad > 0 {
		b.add(segment{n: pad, zeros: true})
	}
	b.add(segment{n: int64(len(tail)), data: tail})
	v.size = b.pos
	return v, nil
}
