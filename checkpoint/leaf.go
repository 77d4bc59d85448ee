package checkpoint

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// leaf is one leaf column of one row group, fully decoded: its levels and
// its non-null values in order. Values are copied out of the page buffers.
type leaf struct {
	maxDef, maxRep byte
	n              int    // level entries (rows, for a non-repeated column)
	defs, reps     []byte // nil when the column has no levels of that kind

	ints  []int64
	bools []bool
	bytes []byte
	offs  []uint32 // offs[i]:offs[i+1] is the i-th byte-array value
}

// present reports whether entry i holds a value.
func (l *leaf) present(i int) bool {
	return l.defs == nil || l.defs[i] == l.maxDef
}

// str returns the i-th non-null byte-array value, aliasing the leaf.
func (l *leaf) str(v int) []byte { return l.bytes[l.offs[v]:l.offs[v+1]] }

// hasValues reports whether the column holds at least one value.
func (l *leaf) hasValues() bool {
	return l != nil && (len(l.ints) > 0 || len(l.bools) > 0 || len(l.offs) > 1)
}

// readLeaf decodes column chunk idx of a row group.
func readLeaf(rg parquet.RowGroup, col *parquet.Column) (*leaf, error) {
	l := &leaf{maxDef: byte(col.MaxDefinitionLevel()), maxRep: byte(col.MaxRepetitionLevel()), offs: []uint32{0}}
	kind := col.Type().Kind()
	pages := rg.ColumnChunks()[col.Index()].Pages()
	defer pages.Close()
	for {
		page, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("column %v: %w", col.Path(), err)
		}
		if err := l.addPage(page, kind); err != nil {
			return nil, fmt.Errorf("column %v: %w", col.Path(), err)
		}
	}
	if len(l.bytes) > 1<<31 {
		return nil, fmt.Errorf("column %v: over 2 GiB of values in one row group", col.Path())
	}
	if l.defs != nil && len(l.defs) != l.n || l.reps != nil && len(l.reps) != l.n {
		return nil, fmt.Errorf("column %v: levels do not match the values", col.Path())
	}
	return l, nil
}

func (l *leaf) addPage(page parquet.Page, kind parquet.Kind) error {
	n := int(page.NumValues())
	if l.maxDef > 0 {
		defs := page.DefinitionLevels()
		if len(defs) != n {
			return fmt.Errorf("page has %d definition levels for %d values", len(defs), n)
		}
		l.defs = append(l.defs, defs...)
	}
	if l.maxRep > 0 {
		reps := page.RepetitionLevels()
		if len(reps) != n {
			return fmt.Errorf("page has %d repetition levels for %d values", len(reps), n)
		}
		l.reps = append(l.reps, reps...)
	}
	l.n += n
	if kind == parquet.Boolean {
		return l.addBooleans(page)
	}
	data := page.Data()
	var dict encoding.Values
	indexed := page.Dictionary() != nil
	if indexed {
		dict = page.Dictionary().Page().Data()
	}
	switch kind {
	case parquet.ByteArray:
		if indexed {
			dv, doffs := dict.ByteArray()
			for _, i := range data.Int32() {
				if int(i)+1 >= len(doffs) || i < 0 {
					return fmt.Errorf("dictionary index %d out of range", i)
				}
				l.appendBytes(dv[doffs[i]:doffs[i+1]])
			}
			return nil
		}
		v, offs := data.ByteArray()
		for i := 0; i+1 < len(offs); i++ {
			l.appendBytes(v[offs[i]:offs[i+1]])
		}
	case parquet.Int64:
		if indexed {
			dv := dict.Int64()
			for _, i := range data.Int32() {
				if int(i) >= len(dv) || i < 0 {
					return fmt.Errorf("dictionary index %d out of range", i)
				}
				l.ints = append(l.ints, dv[i])
			}
			return nil
		}
		l.ints = append(l.ints, data.Int64()...)
	case parquet.Int32:
		src := data.Int32()
		if indexed {
			dv := dict.Int32()
			for _, i := range src {
				if int(i) >= len(dv) || i < 0 {
					return fmt.Errorf("dictionary index %d out of range", i)
				}
				l.ints = append(l.ints, int64(dv[i]))
			}
			return nil
		}
		for _, v := range src {
			l.ints = append(l.ints, int64(v))
		}
	default:
		return fmt.Errorf("unexpected physical type %v", kind)
	}
	return nil
}

func (l *leaf) appendBytes(b []byte) {
	l.bytes = append(l.bytes, b...)
	l.offs = append(l.offs, uint32(len(l.bytes)))
}

// addBooleans reads a boolean page value by value: booleans are rare here.
func (l *leaf) addBooleans(page parquet.Page) error {
	buf := make([]parquet.Value, 256)
	r := page.Values()
	for {
		n, err := r.ReadValues(buf)
		for _, v := range buf[:n] {
			if !v.IsNull() {
				l.bools = append(l.bools, v.Boolean())
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
	}
}
