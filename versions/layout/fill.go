package layout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay/action"
)

// A file written before a column was added to the table lacks it; a Delta
// reader reads the column as nulls there, and a folder reader given files
// of two shapes drops the column or refuses. Such a file is served with
// the column filled with nulls (parquetview's FillMissing). Which files
// lack one is said by their stats: Spark and delta-rs count the nulls of
// every column they collect stats for, so a file whose nullCount lacks a
// column the table collects stats for was written without it; one whose
// nullCount counts a struct column but not a field of it that other
// files count, without the field. The served size of such a file is then
// read from its footer at its first stat; the others keep theirs. Columns
// no stats count are told by footers (uncounted.go).

// fillOf returns the Rename that serves a version's files lacking columns
// (the version's names, types and hidden columns, FillMissing), and the
// rule that tells them by their stats; nil when no column can be filled,
// as for a version without a schema the files could be checked against
// (its files are served as stored, as before columns were filled).
func fillOf(md *action.Metadata, p *action.Protocol) (*parquetview.Rename, fillRule) {
	mode := mappingMode(md, p)
	top, cols, err := logicalColumns(md, mode)
	if err != nil {
		return nil, fillRule{}
	}
	counted := statsColumns(md, top)
	var rule fillRule
	for i := range cols {
		c := &cols[i]
		setFillTypes(c, top[i].Type)
		if !c.Fillable() {
			continue
		}
		if hasVoid(top[i].Type) {
			rule.void = true // whatever the stats count
		}
		if !counted[i] {
			rule.uncounted = append(rule.uncounted, c.Physical)
			continue
		}
		if structInRepeated(c, false) {
			rule.inside = append(rule.inside, c.Physical)
		}
		switch c.Kind {
		case parquetview.LeafColumn:
			rule.counted = append(rule.counted, c.Physical)
		case parquetview.StructColumn:
			rule.counted = append(rule.counted, c.Physical)
			rule.fields = appendFieldPaths(rule.fields, c, []string{c.Physical})
		default:
			rule.countedBySome = append(rule.countedBySome, c.Physical)
		}
	}
	if len(rule.counted)+len(rule.countedBySome)+len(rule.uncounted) == 0 && !rule.void {
		return nil, fillRule{}
	}
	rn := &parquetview.Rename{ByID: mode == "id", Columns: cols, Key: renameKey(mode, md) + "+fill", FillMissing: true}
	return rn, rule
}

// fillRule tells the files lacking columns by the columns, by stored
// name, whose nulls their stats count.
type fillRule struct {
	// counted are the leaf and struct columns the table collects stats
	// for: a file whose nullCount lacks one was written without it.
	counted []string
	// countedBySome are its array and map columns. Spark counts their
	// nulls, delta-rs does not: they are counted too where some file's
	// stats count one of them. A file whose stats were written without
	// them then costs a footer read, and is served as stored.
	countedBySome []string
	// fields are the fields inside those structs, by stored names from
	// the top-level column down: a file whose stats count the struct but
	// not such a field was written before the field was added. Only
	// fields some file's stats count are looked for (judgedBy), as
	// writers may leave some out.
	fields [][]string
	// bySome says that some file's stats count one of countedBySome
	// (judgedBy).
	bySome bool
	// uncounted are the columns no file's stats say it has or lacks: past
	// those the table collects stats for, countedBySome unless bySome,
	// the fields no file counts, dotted, and "fields inside" those of
	// inside (judgedBy). Footers tell (Version.FindUncounted).
	uncounted []string
	// inside are the columns holding structs in lists or maps: writers
	// count the nulls of a list or a map as a whole, so no stats tell the
	// fields of those structs.
	inside []string
	// void: the table has a void column (at any depth), which no file
	// stores (Delta's writers drop it) though Spark's stats count it:
	// every file lacks it.
	void bool
}

// hasVoid says whether t is void or holds a void field.
func hasVoid(t Type) bool {
	switch t.Kind {
	case Struct:
		return slices.ContainsFunc(t.Fields, func(f Field) bool { return hasVoid(f.Type) })
	case Array:
		return hasVoid(*t.Element)
	case Map:
		return hasVoid(*t.Key) || hasVoid(*t.Value)
	}
	return t.Primitive == "void"
}

// structInRepeated says whether a struct lies inside a list or a map
// under c (repeated: c is inside one).
func structInRepeated(c *parquetview.Column, repeated bool) bool {
	switch c.Kind {
	case parquetview.StructColumn:
		if repeated {
			return true
		}
	case parquetview.ListColumn, parquetview.MapColumn:
		repeated = true
	}
	return slices.ContainsFunc(c.Children, func(f parquetview.Column) bool { return structInRepeated(&f, repeated) })
}

// appendFieldPaths appends the paths of the fields of struct c (at path)
// and of the structs in it that a file lacking them is served with.
func appendFieldPaths(paths [][]string, c *parquetview.Column, path []string) [][]string {
	for i := range c.Children {
		f := &c.Children[i]
		if !f.Fillable() || f.Kind != parquetview.LeafColumn && f.Kind != parquetview.StructColumn {
			continue
		}
		p := append(slices.Clip(path), f.Physical)
		paths = append(paths, p)
		if f.Kind == parquetview.StructColumn {
			paths = appendFieldPaths(paths, f, p)
		}
	}
	return paths
}

// setFillTypes gives the leaves of c (of type t) the types a missing
// column is served in.
func setFillTypes(c *parquetview.Column, t Type) {
	switch t.Kind {
	case Struct:
		for i := range c.Children {
			setFillTypes(&c.Children[i], t.Fields[i].Type)
		}
	case Array:
		setFillTypes(&c.Children[0], *t.Element)
	case Map:
		setFillTypes(&c.Children[0], *t.Key)
		setFillTypes(&c.Children[1], *t.Value)
	default:
		c.Fill = fillType(t.Primitive)
	}
}

// primitiveKinds are the parquetview kinds of Delta's primitives but
// decimals.
var primitiveKinds = map[string]parquetview.LeafKind{
	"boolean": parquetview.BooleanType, "byte": parquetview.ByteType, "short": parquetview.ShortType,
	"integer": parquetview.IntType, "long": parquetview.LongType, "float": parquetview.FloatType,
	"double": parquetview.DoubleType, "string": parquetview.StringType, "binary": parquetview.BinaryType,
	"date": parquetview.DateType, "timestamp": parquetview.TimestampType, "timestamp_ntz": parquetview.TimestampNTZType,
	"void": parquetview.VoidType,
}

// fillType is the parquetview type of a Delta primitive; nil for one a
// file cannot hold as nulls here (variant).
func fillType(primitive string) *parquetview.LeafType {
	if k, ok := primitiveKinds[primitive]; ok {
		return &parquetview.LeafType{Kind: k}
	}
	if t := leafType(primitive); t != nil && t.Kind == parquetview.DecimalType {
		return t
	}
	return nil
}

// statsColumns says which of the data columns top a writer collects stats
// for, as Delta's writers choose them: those delta.dataSkippingStatsColumns
// names, else the first delta.dataSkippingNumIndexedCols leaf columns
// (32 by default, every one for -1; a struct's leaves count one each,
// an array or a map one).
func statsColumns(md *action.Metadata, top []Field) []bool {
	out := make([]bool, len(top))
	if named, ok := md.Configuration["delta.dataSkippingStatsColumns"]; ok {
		for _, n := range strings.Split(named, ",") {
			n = strings.TrimSpace(n)
			if strings.HasPrefix(n, "`") {
				n = strings.TrimPrefix(n, "`")
				n, _, _ = strings.Cut(n, "`")
			} else {
				n, _, _ = strings.Cut(n, ".")
			}
			for i, f := range top {
				if strings.EqualFold(f.Name, n) {
					out[i] = true
				}
			}
		}
		return out
	}
	limit := 32
	if v, ok := md.Configuration["delta.dataSkippingNumIndexedCols"]; ok {
		if _, err := fmt.Sscanf(v, "%d", &limit); err != nil {
			limit = 32
		}
	}
	seen := 0
	for i, f := range top {
		if limit >= 0 && seen >= limit {
			break
		}
		out[i] = true
		seen += leafCount(f.Type)
	}
	return out
}

// leafCount is the number of stats leaves of a type.
func leafCount(t Type) int {
	if t.Kind != Struct {
		return 1
	}
	n := 0
	for _, f := range t.Fields {
		n += leafCount(f.Type)
	}
	return n
}

// lacksColumns says whether file i's stats show that it lacks a column
// (rule): judged once per set of columns, which files share. A file whose
// stats have no null counts says nothing.
func lacksColumns(counted []*action.ColumnSet, rule fillRule) func(i int) bool {
	expected := rule.counted
	if rule.bySome {
		expected = append(slices.Clip(expected), rule.countedBySome...)
	}
	judged := map[*action.ColumnSet]bool{}
	return func(i int) bool {
		set := counted[i]
		if set == nil {
			return false // no nullCount: nothing is known
		}
		lacks, ok := judged[set]
		if !ok {
			lacks = slices.ContainsFunc(expected, func(c string) bool { return !set.Has(c) }) ||
				slices.ContainsFunc(rule.fields, func(p []string) bool { return !set.HasField(p...) })
			judged[set] = lacks
		}
		return lacks
	}
}

// fieldsCounted returns the fields some file's stats count.
func fieldsCounted(counted []*action.ColumnSet, fields [][]string) [][]string {
	if len(fields) == 0 {
		return nil
	}
	var out [][]string
	var last *action.ColumnSet
	seen := map[*action.ColumnSet]bool{}
	for _, set := range counted {
		if set == nil || set == last || seen[set] {
			continue // files written together share their set
		}
		last, seen[set] = set, true
		if len(out) == len(fields) {
			break
		}
		for _, p := range fields {
			if set.HasField(p...) && !slices.ContainsFunc(out, func(q []string) bool { return slices.Equal(p, q) }) {
				out = append(out, p)
			}
		}
	}
	return out
}

// judgedBy completes the rule with what the files' stats count: whether
// some count one of the array and map columns, and which of the fields
// inside structs some count; the others are uncounted.
func (rule fillRule) judgedBy(counted []*action.ColumnSet) fillRule {
	rule.uncounted = slices.Clip(rule.uncounted)
	if rule.bySome = countsSome(counted, rule.countedBySome); !rule.bySome {
		rule.uncounted = append(rule.uncounted, rule.countedBySome...)
	}
	all := rule.fields
	rule.fields = fieldsCounted(counted, all)
	var parent []string // the last field uncounted: its fields go unnamed
	for _, p := range all {
		if slices.ContainsFunc(rule.fields, func(q []string) bool { return slices.Equal(p, q) }) ||
			parent != nil && len(p) > len(parent) && slices.Equal(p[:len(parent)], parent) {
			continue
		}
		parent = p
		rule.uncounted = append(rule.uncounted, strings.Join(p, "."))
	}
	for _, c := range rule.inside {
		if !slices.Contains(rule.uncounted, c) { // else its fields go without saying
			rule.uncounted = append(rule.uncounted, "fields inside "+c)
		}
	}
	return rule
}

// countsSome says whether some file's stats count the nulls of one of
// the columns.
func countsSome(counted []*action.ColumnSet, columns []string) bool {
	if len(columns) == 0 {
		return false
	}
	var last *action.ColumnSet
	for _, set := range counted {
		if set == nil || set == last {
			continue // files written together share their set
		}
		last = set
		if slices.ContainsFunc(columns, set.Has) {
			return true
		}
	}
	return false
}
