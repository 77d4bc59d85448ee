package parquetview

import (
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go/format"
)

// match says what the source element child (the c-th of n children,
// the first at first, of a group served as col) is served as.
func (w *renameWalk) match(col *Column, child *format.SchemaElement, n, c int32, first int) (*Column, string, bool, error) {
	if col == nil {
		return nil, child.Name, true, nil
	}
	switch col.Kind {
	case StructColumn:
		if f := w.field(col, child.Name, child.FieldID, false); f != nil {
			return f, f.Name, true, nil
		}
		f, err := w.foldedField(col, child.Name, n, first)
		if f == nil {
			return nil, "", false, err
		}
		return f, f.Name, true, nil
	case ListColumn, MapColumn:
		if n != 1 || len(col.Children) == 0 {
			return nil, child.Name, true, nil
		}
		// The repeated group: for a list of the standard three levels it
		// holds the element; in the legacy two-level form it is the element.
		if col.Kind == ListColumn && (child.NumChildren.V != 1 || child.Name == "array") {
			return &col.Children[0], child.Name, true, nil
		}
		return &Column{Kind: repeatedKind(col.Kind), Children: col.Children}, child.Name, true, nil
	case repeatedList:
		return &col.Children[0], child.Name, true, nil
	case repeatedMap:
		if int(c) < len(col.Children) {
			return &col.Children[c], child.Name, true, nil
		}
	}
	return nil, child.Name, true, nil
}

// field finds the field of col a source child named name (with field id
// id) stores: by id where the Rename and the field have one, else by
// physical name, exact or (folded) equal but for case.
func (w *renameWalk) field(col *Column, name string, id int32, folded bool) *Column {
	for i := range col.Children {
		f := &col.Children[i]
		if w.byID && f.ID != 0 {
			if !folded && id != 0 && int64(id) == f.ID {
				return f
			}
			continue
		}
		if name == f.Physical || (folded && len(name) == len(f.Physical) && strings.EqualFold(name, f.Physical)) {
			return f
		}
	}
	return nil
}

// foldedField finds the field of col a source child named name stores
// under another case, as Delta readers match names, when no sibling (the
// n children from first) has the field's exact name; two such children
// are an error. Only names of equal length match, so that a renamed
// footer stays no longer than the stored one.
func (w *renameWalk) foldedField(col *Column, name string, n int32, first int) (*Column, error) {
	f := w.field(col, name, 0, true)
	if f == nil {
		return nil, nil
	}
	pos := first
	for range n {
		if pos >= len(w.src) {
			return nil, fmt.Errorf("schema tree is truncated: %w", ErrParquet)
		}
		sibling := w.src[pos].Name
		if sibling == f.Physical {
			return nil, nil // that sibling is the field; this one is dropped
		}
		if sibling != name && w.field(col, sibling, 0, true) == f {
			return nil, fmt.Errorf("columns %q and %q both name %q but for case: %w", name, sibling, f.Physical, ErrParquet)
		}
		pos = subtreeEnd(w.src, pos)
	}
	return f, nil
}

// subtreeEnd returns the position after the element at pos and its
// subtree (or len(src) where the tree is truncated).
func subtreeEnd(src []format.SchemaElement, pos int) int {
	for open := int64(1); open > 0 && pos < len(src); pos++ {
		open += int64(max(src[pos].NumChildren.V, 0)) - 1
	}
	return pos
}

// The repeated middle level of a list or map, between the annotated group
// and the element (or key and value).
const (
	repeatedList ColumnKind = 100 + iota
	repeatedMap
)

func repeatedKind(k ColumnKind) ColumnKind {
	if k == ListColumn {
		return repeatedList
	}
	return repeatedMap
}
