package checkpoint

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/parquet-go/parquet-go"
)

// Options tell the readers what to read.
type Options struct {
	// Root is the table root URL, for absolute add paths.
	Root string
	// Seen lists the logical files newer commits decided; their rows are
	// dropped.
	Seen *Seen
	// Details asks for each add's partition values and maybe numRecords
	// (Result.Partitions, Result.NumRecords). Serving files needs neither,
	// and the stats column is most of a checkpoint's bytes, so snapshots
	// ask only when someone wants them, and for partition values alone
	// when that is all they want.
	Details Detail
	// Reserve is room to leave at the end of Result.Files, for the files
	// of newer commits that the caller appends.
	Reserve int
}

// Detail is how much a reader reads beyond what serving files needs.
type Detail int

const (
	NoDetails  Detail = iota
	Partitions        // partition values; numRecords read as -1 (unknown)
	AllDetails        // partition values and numRecords (from the stats)
	// tombstones reads the remove rows alone, to count them
	// (CountTombstones): no file is decoded.
	tombstones
)

// partitions reports whether files are read with their partition values.
func (d Detail) partitions() bool { return d == Partitions || d == AllDetails }

// Result is what a checkpoint holds, in file order.
type Result struct {
	// Files are the add rows not in Seen, with decoded paths. The slice
	// has room for Options.Reserve more.
	Files []action.File
	// NumRecords and Partitions hold, aligned with Files, each file's
	// numRecords from its stats (-1 when absent) and its interned
	// partition values; only with Options.Details (NumRecords all -1
	// with Partitions).
	NumRecords []int64
	Partitions []*action.Partition
	// NullCounted holds, with AllDetails, the columns each file's stats
	// count nulls of (nil: unknown).
	NullCounted []*action.ColumnSet
	// Tombstones counts remove rows, only for CountTombstones: no
	// snapshot needs them, and in a checkpoint that keeps many their
	// paths are most of what there is to read.
	Tombstones int
	// Actions are the other actions: protocol, metaData, txn,
	// domainMetadata, sidecar and checkpointMetadata.
	Actions []action.Action
}

// rowGroup decodes the rows of one row group.
type rowGroup struct {
	c      *columns
	leaves map[*parquet.Column]*leaf
	starts map[*parquet.Column]repStart // in the leaves a row group's parts share
	opts   Options
	parts  map[string]*action.Partition
	// lastKey and lastPart are the previous row's partition.
	lastKey  []byte
	lastPart *action.Partition
	// partCodes interns partitions by their dictionary codes.
	partCodes map[partCode]*action.Partition
	dv        dvCursors
	key       []byte
	values    []action.PartitionValue
}

func (g *rowGroup) cur(col *parquet.Column) *cursor { return newCursor(g.leaves[col]) }

// rep returns a cursor on a repeated leaf, at the first row decoded.
func (g *rowGroup) rep(col *parquet.Column) *repCursor {
	at := g.starts[col]
	return &repCursor{l: g.leaves[col], pos: at.pos, v: at.v}
}

// decodeRowGroup decodes the row group of j, whose add.path column was
// read already, putting its files into out from j.start on.
func decodeRowGroup(j *groupJob, out *Result, opts Options, pool *leafPool) error {
	c := j.pf.cols
	g := &rowGroup{c: c, leaves: map[*parquet.Column]*leaf{}, starts: map[*parquet.Column]repStart{}, opts: opts, parts: map[string]*action.Partition{}}
	defer func() {
		for col, l := range g.leaves {
			if col != c.addPath && !j.part.isShared(col) {
				pool.put(col, l)
			}
		}
	}()
	rows, partRows := int(j.rg.NumRows()), int(j.rg.NumRows())
	if j.part != nil {
		partRows = int(j.part.hi - j.part.lo)
	}
	adds := c.adds()
	cols := adds
	if j.part.first() {
		cols = append(slices.Clip(adds), c.others()...)
	}
	for k, col := range cols {
		want := rows // the rows col holds
		if k < len(adds) && !j.part.isShared(col) {
			want = partRows
		}
		l := j.paths
		if col != c.addPath {
			var err error
			if l, err = j.readLeaf(col, col == c.addStats, pool); err != nil {
				return err
			}
		}
		if l.maxRep == 0 && l.n != want {
			return fmt.Errorf("column %v has %d values for %d rows", col.Path(), l.n, want)
		}
		g.leaves[col] = l
		if j.part.isShared(col) {
			g.starts[col] = j.part.sharedStart(col)
		}
	}
	if err := c.checkMaps(g.leaves, j.part.isShared); err != nil {
		return err
	}
	var err error
	if j.kept, err = g.adds(partRows, out, j.start); err != nil {
		return err
	}
	if !j.part.first() {
		return nil
	}
	if l := g.leaves[c.removePath]; l.hasValues() {
		j.res.Tombstones = l.count()
	}
	return g.others(rows, &j.res)
}

// adds decodes the add rows into out from index start on and returns how
// many it kept: the hot loop of opening a big table.
func (g *rowGroup) adds(rows int, out *Result, start int) (int, error) {
	c := g.c
	paths := g.leaves[c.addPath]
	if !paths.hasValues() {
		return 0, nil
	}
	size, mtime := g.cur(c.addSize), g.cur(c.addModTime)
	numRecords, stats := g.cur(c.addNumRecords), g.cur(c.addStats)
	pkey, pval := g.rep(c.addPartKey), g.rep(c.addPartValue)
	g.dv = dvCursors{typ: g.cur(c.dvType), path: g.cur(c.dvPath), offset: g.cur(c.dvOffset), size: g.cur(c.dvSize), card: g.cur(c.dvCard), maxRow: g.cur(c.dvMaxRow)}
	hasDV := g.leaves[c.dvType].hasValues()
	// The windows are exactly paths.count() long.
	files := out.Files[start : start+paths.count()]
	var records []int64
	var parts []*action.Partition
	var counted []*action.ColumnSet
	if g.opts.Details.partitions() {
		records, parts = out.NumRecords[start:start+len(files)], out.Partitions[start:start+len(files)]
	}
	var nullCounts []*cursor // parsed stats' null counts, without stats strings
	if g.opts.Details == AllDetails {
		counted = out.NullCounted[start : start+len(files)]
		for _, col := range c.addNullCounts {
			nullCounts = append(nullCounts, g.cur(col))
		}
	}
	v, kept := 0, 0
	for i := 0; i < rows; i++ {
		if !paths.present(i) {
			continue
		}
		raw := paths.str(v)
		v++
		var dv *action.DeletionVector
		if hasDV {
			dv = g.dv.at(i)
		}
		path, err := action.CleanPath(raw, g.opts.Root)
		if err != nil {
			return 0, fmt.Errorf("add: %w", err)
		}
		if g.opts.Seen.Has(path, dv) {
			continue
		}
		f := &files[kept]
		f.Path, f.DV = path, dv
		f.Size, _ = size.int(i)
		f.ModTime, _ = mtime.int(i)
		if g.opts.Details.partitions() {
			n := int64(-1) // absent columns (Partitions) read as null
			sv := stats.at(i)
			if v, ok := numRecords.int(i); ok {
				n = v
			} else if sv >= 0 {
				n = stats.l.ints[sv]
			}
			records[kept] = n
			switch {
			case sv >= 0 && counted != nil:
				counted[kept] = stats.l.sets[sv]
			case len(nullCounts) > 0:
				counted[kept] = parsedNullCounts(nullCounts, c.addNullCountKeys, i)
			}
			var p *action.Partition
			if pkey.l != nil {
				p = g.partition(pkey, pval, i)
			}
			parts[kept] = p
		}
		kept++
	}
	return kept, nil
}

// dvCursors walk the deletion-vector columns of the add rows.
type dvCursors struct {
	typ, path, offset, size, card, maxRow *cursor
	boxes                                 []dvBox // handed out by at
}

// dvBox holds a deletion vector and the numbers it points to: on a table
// under DML most files have a vector, and boxes come in slabs, not three
// allocations each.
type dvBox struct {
	dv     action.DeletionVector
	offset int32
	maxRow int64
}

// at returns row i's deletion vector, or nil.
func (d *dvCursors) at(i int) *action.DeletionVector {
	typ, ok := d.typ.str(i)
	if !ok {
		return nil
	}
	if len(d.boxes) == cap(d.boxes) {
		d.boxes = make([]dvBox, 0, min(max(16, 2*cap(d.boxes)), 1024))
	}
	d.boxes = d.boxes[:len(d.boxes)+1]
	b := &d.boxes[len(d.boxes)-1]
	dv := &b.dv
	dv.StorageType = typ
	dv.PathOrInlineDv, _ = d.path.str(i)
	if off, ok := d.offset.int(i); ok {
		b.offset = int32(off)
		dv.Offset = &b.offset
	}
	size, _ := d.size.int(i)
	dv.SizeInBytes = int32(size)
	dv.Cardinality, _ = d.card.int(i)
	if m, ok := d.maxRow.int(i); ok {
		b.maxRow = m
		dv.MaxRowIndex = &b.maxRow
	}
	return dv
}

// partition interns row i's partition values. Rows of one partition share
// one *action.Partition; the lookup key is built from the raw bytes, so a
// hit allocates nothing.
func (g *rowGroup) partition(keys, vals *repCursor, i int) *action.Partition {
	ks, ke, kv := keys.rowAt(i)
	_, _, vv := vals.rowAt(i)
	if code, ok := partitionCode(keys, vals, ks, ke, kv, vv); ok {
		if p, ok := g.partCodes[code]; ok {
			return p
		}
		p := g.partitionOf(keys, vals, ks, ke, kv, vv)
		if g.partCodes == nil {
			g.partCodes = map[partCode]*action.Partition{}
		}
		g.partCodes[code] = p
		return p
	}
	return g.partitionOf(keys, vals, ks, ke, kv, vv)
}

// partCode is a row's partition entries as dictionary codes, an entry of
// 32 bits (its key's index + 1, then its value's + 1, 0 for null) in its
// place: equal codes are equal partitions.
type partCode [4]uint64

// partitionCode packs a row's partition entries into a partCode when both
// columns are dictionary-encoded, there are at most eight entries and
// their dictionary indexes fit 15 bits: an exact key, no hashing of
// strings.
func partitionCode(keys, vals *repCursor, ks, ke, kv, vv int) (partCode, bool) {
	var code partCode
	if !keys.l.codesValid || !vals.l.codesValid || ke-ks > 2*len(code) {
		return code, false
	}
	for j, n, k, v := ks, 0, kv, vv; j < ke; j, n = j+1, n+1 {
		if !keys.l.present(j) {
			continue // an empty map: all zero
		}
		kc := uint64(keys.l.codes[k])
		k++
		vc := uint64(0) // null value
		if vals.l.present(j) {
			vc = uint64(vals.l.codes[v]) + 1
			v++
		}
		if kc >= 1<<15 || vc >= 1<<15 {
			return code, false
		}
		code[n/2] |= ((kc+1)<<16 | vc) << (32 * (n % 2))
	}
	return code, true
}

// partitionOf interns a row's partition by its strings.
func (g *rowGroup) partitionOf(keys, vals *repCursor, ks, ke, kv, vv int) *action.Partition {
	g.key = g.key[:0]
	for j, k, v := ks, kv, vv; j < ke; j++ {
		if !keys.l.present(j) {
			continue
		}
		g.key = append(g.key, keys.l.str(k)...)
		k++
		if vals.l.present(j) {
			g.key = append(g.key, 0, 1)
			g.key = append(g.key, vals.l.str(v)...)
			v++
		} else {
			g.key = append(g.key, 0, 0)
		}
		g.key = append(g.key, 0)
	}
	if len(g.key) == 0 {
		return nil
	}
	// Rows of one partition usually come together: compare with the row
	// before first, which is cheaper than hashing.
	if g.lastPart != nil && bytes.Equal(g.key, g.lastKey) {
		return g.lastPart
	}
	g.lastKey = append(g.lastKey[:0], g.key...)
	if p, ok := g.parts[string(g.key)]; ok {
		g.lastPart = p
		return p
	}
	var values []action.PartitionValue
	for j, k, v := ks, kv, vv; j < ke; j++ {
		if !keys.l.present(j) {
			continue
		}
		// Clone: a shared partition must not pin the page it came from.
		pv := action.PartitionValue{Column: strings.Clone(keys.l.str(k)), Null: true}
		k++
		if vals.l.present(j) {
			pv.Value, pv.Null = strings.Clone(vals.l.str(v)), false
			v++
		}
		values = append(values, pv)
	}
	action.SortPartitionValues(values)
	p := &action.Partition{Values: values}
	g.parts[string(g.key)] = p
	g.lastPart = p
	return p
}

// parsedNullCounts is the set of columns whose null count row i's parsed
// stats hold: nil when they hold none (no stats). The fields of a struct
// whose counts are absent are left out with it.
func parsedNullCounts(cursors []*cursor, keys []nullCountKey, i int) *action.ColumnSet {
	var buf [512]byte
	counted := buf[:0]
	absent := -1 // the depth of the last key absent, while its fields follow
	for _, k := range keys {
		if absent >= 0 && k.depth > absent {
			continue
		}
		absent = -1
		if cursors[k.leaf].at(i) < 0 {
			absent = k.depth
			continue
		}
		counted = action.AppendCountKey(counted, k.name, k.depth)
	}
	if len(counted) == 0 {
		return nil
	}
	return action.InternCounts(counted)
}
