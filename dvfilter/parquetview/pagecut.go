package parquetview

import (
	"fmt"
	"math/bits"

	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/format"
)

// Cutting a page's deleted rows out of its levels and values: value by
// value where the page's bytes bound its values, run by run where its runs
// claim more (a few bytes may claim a million nulls).

// cutPage is a data page's definition levels and values without its
// deleted rows.
type cutPage struct {
	levels              []byte // hybrid-encoded; nil for a required column
	vals                []byte
	enc                 format.Encoding // of vals
	removedNulls, nulls int64           // nulls deleted, and kept
}

// denseEntries is the most levels a page of size bytes decompressed may
// hold to be cut value by value: that work stays within a multiple of its
// bytes. (A variable: tests cut every page run by run.)
var denseEntries = func(size int) int64 { return 64*int64(size) + 1024 }

// cutValueByValue cuts the positions gone out of a page of entries
// levels (levels as stored, hybrid-encoded; vals encoded enc,
// decompressed), expanding its levels and values one at a time.
func cutValueByValue(levels, vals []byte, entries int64, gone deletions, enc format.Encoding, leaf leafInfo) (cutPage, error) {
	defs, err := expandLevels(levels, entries, leaf)
	if err != nil {
		return cutPage{}, err
	}
	present := entries
	if defs != nil {
		present = 0
		for _, d := range defs {
			if int(d) == leaf.maxDef {
				present++
			}
		}
	}
	keep := make([]bool, present) // of the values stored
	var c cutPage
	var newDefs []byte
	cur := deletedCursor{gone}
	vi := 0
	for e := range entries {
		g := cur.deleted(e)
		switch {
		case defs == nil || int(defs[e]) == leaf.maxDef:
			keep[vi] = !g
			vi++
		case g:
			c.removedNulls++
		default:
			c.nulls++
		}
		if defs != nil && !g {
			newDefs = append(newDefs, defs[e])
		}
	}
	if c.vals, c.enc, err = filterValues(enc, vals, keep, leaf); err != nil {
		return cutPage{}, err
	}
	if defs != nil {
		le := rle.Encoding{BitWidth: bits.Len(uint(leaf.maxDef))}
		if c.levels, err = le.EncodeLevels(nil, newDefs); err != nil {
			return cutPage{}, fmt.Errorf("encode levels: %v: %w", err, errNoSplice)
		}
	}
	return c, nil
}

// cutRunByRun is cutValueByValue run by run: levels, and dictionary
// indexes and RLE booleans.
func cutRunByRun(levels, vals []byte, entries int64, gone deletions, enc format.Encoding, leaf leafInfo) (cutPage, error) {
	var c cutPage
	present, goneValues := entries, gone
	if leaf.maxDef > 0 {
		width := bits.Len(uint(leaf.maxDef))
		defs, err := decodeHybrid(levels, width, entries)
		if err != nil {
			return cutPage{}, fmt.Errorf("definition levels: %w", err)
		}
		var s levelSplit
		if err := s.split(defs, gone, leaf.maxDef); err != nil {
			return cutPage{}, err
		}
		present, goneValues, c.removedNulls, c.nulls = s.present, s.goneValues, s.removedNulls, s.nulls
		c.levels = encodeHybrid(nil, dropRuns(defs, gone), width)
	}
	var err error
	c.vals, c.enc, err = filterValueRuns(enc, vals, present, goneValues, leaf)
	return c, err
}

// levelSplit is what a page's deleted rows take of its definition levels.
type levelSplit struct {
	present             int64     // values stored (levels at the column's maximum)
	goneValues          deletions // the deleted ones among them, by position
	removedNulls, nulls int64     // nulls deleted, and kept
}

// split walks the level runs defs against the deleted positions gone.
func (s *levelSplit) split(defs []valueRun, gone deletions, maxDef int) error {
	var pos int64
	for _, r := range defs {
		if int(r.v) > maxDef {
			return fmt.Errorf("definition level %d above %d: %w", r.v, maxDef, errNoSplice)
		}
		start, end := pos, pos+r.n
		var lost int64
		for len(gone) > 0 && gone[0].lo < end {
			lo, hi := max(gone[0].lo, start), min(gone[0].hi, end)
			if lo < hi {
				lost += hi - lo
				if int(r.v) == maxDef {
					at := s.present + lo - start
					s.goneValues = s.goneValues.add(at, at+hi-lo)
				}
			}
			if gone[0].hi > end {
				break
			}
			gone = gone[1:]
		}
		if int(r.v) == maxDef {
			s.present += r.n
		} else {
			s.removedNulls += lost
			s.nulls += r.n - lost
		}
		pos = end
	}
	return nil
}
