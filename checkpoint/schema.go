package checkpoint

import (
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/replay/action"
)

// columns are the leaf columns of a checkpoint file that replay needs. A nil
// column is absent from the file (an older writer, or a kind of action the
// file has none of) and reads as all null.
type columns struct {
	addPath, addSize, addModTime, addStats, addNumRecords *parquet.Column
	addPartKey, addPartValue                              *parquet.Column
	// addNullCounts are, where a checkpoint has parsed stats, a leaf of
	// each column of stats_parsed.nullCount and of the struct columns in
	// it, once each; addNullCountKeys name those columns: each is not
	// null where the file's stats count it.
	addNullCounts    []*parquet.Column
	addNullCountKeys []nullCountKey

	dvType, dvPath, dvOffset, dvSize, dvCard, dvMaxRow *parquet.Column

	removePath *parquet.Column

	protoReader, protoWriter, protoReaderFeatures, protoWriterFeatures *parquet.Column

	mdID, mdName, mdDescription, mdProvider, mdSchema *parquet.Column
	mdPartitionColumns, mdConfKey, mdConfValue        *parquet.Column
	mdCreated                                         *parquet.Column

	txnAppID, txnVersion, txnLastUpdated *parquet.Column

	dmDomain, dmConfig, dmRemoved *parquet.Column

	scPath, scSize, scModTime *parquet.Column

	cmVersion *parquet.Column
}

func resolve(root *parquet.Column, details Detail) *columns {
	c := &columns{}
	// Sidecars are followed whatever is read: they hold file actions.
	sc := child(root, "sidecar")
	c.scPath = leafAt(sc, "path")
	c.scSize = leafAt(sc, "sizeInBytes")
	c.scModTime = leafAt(sc, "modificationTime")
	if details == tombstones {
		c.removePath = leafAt(child(root, "remove"), "path")
		return c
	}
	add := child(root, "add")
	c.addPath = leafAt(add, "path")
	c.addSize = leafAt(add, "size")
	c.addModTime = leafAt(add, "modificationTime")
	// Checkpoints written with writeStatsAsStruct carry numRecords and
	// the null counts parsed (and may have no stats strings): reading
	// those spares decoding every stats string, most of the bytes.
	if details == AllDetails {
		parsed := child(add, "stats_parsed")
		c.addNumRecords = leafAt(parsed, "numRecords")
		c.nullCountLeaves(child(parsed, "nullCount"), 0)
		if c.addNumRecords == nil || len(c.addNullCounts) == 0 {
			if c.addStats = leafAt(add, "stats"); c.addStats != nil {
				c.addNullCounts, c.addNullCountKeys = nil, nil
			}
		}
	}
	if details.partitions() {
		c.addPartKey, c.addPartValue = mapLeaves(child(add, "partitionValues"))
	}
	dv := child(add, "deletionVector")
	c.dvType = leafAt(dv, "storageType")
	c.dvPath = leafAt(dv, "pathOrInlineDv")
	c.dvOffset = leafAt(dv, "offset")
	c.dvSize = leafAt(dv, "sizeInBytes")
	c.dvCard = leafAt(dv, "cardinality")
	c.dvMaxRow = leafAt(dv, "maxRowIndex")

	p := child(root, "protocol")
	c.protoReader = leafAt(p, "minReaderVersion")
	c.protoWriter = leafAt(p, "minWriterVersion")
	c.protoReaderFeatures = listLeaf(child(p, "readerFeatures"))
	c.protoWriterFeatures = listLeaf(child(p, "writerFeatures"))

	md := child(root, "metaData")
	c.mdID = leafAt(md, "id")
	c.mdName = leafAt(md, "name")
	c.mdDescription = leafAt(md, "description")
	c.mdProvider = leafAt(child(md, "format"), "provider")
	c.mdSchema = leafAt(md, "schemaString")
	c.mdPartitionColumns = listLeaf(child(md, "partitionColumns"))
	c.mdConfKey, c.mdConfValue = mapLeaves(child(md, "configuration"))
	c.mdCreated = leafAt(md, "createdTime")

	txn := child(root, "txn")
	c.txnAppID = leafAt(txn, "appId")
	c.txnVersion = leafAt(txn, "version")
	c.txnLastUpdated = leafAt(txn, "lastUpdated")

	dm := child(root, "domainMetadata")
	c.dmDomain = leafAt(dm, "domain")
	c.dmConfig = leafAt(dm, "configuration")
	c.dmRemoved = leafAt(dm, "removed")

	c.cmVersion = leafAt(child(root, "checkpointMetadata"), "version")
	return c
}

// all lists the resolved columns, for fetching their chunks: the add
// columns first.
func (c *columns) all() []*parquet.Column { return append(c.adds(), c.others()...) }

// others lists the resolved columns that are not of add rows.
func (c *columns) others() []*parquet.Column {
	return nonNil(
		c.removePath,
		c.protoReader, c.protoWriter, c.protoReaderFeatures, c.protoWriterFeatures,
		c.mdID, c.mdName, c.mdDescription, c.mdProvider, c.mdSchema, c.mdPartitionColumns,
		c.mdConfKey, c.mdConfValue, c.mdCreated, c.txnAppID, c.txnVersion, c.txnLastUpdated,
		c.dmDomain, c.dmConfig, c.dmRemoved, c.scPath, c.scSize, c.scModTime, c.cmVersion,
	)
}

// adds lists the resolved columns of add rows: those a part of a row group
// reads (rowparts.go).
func (c *columns) adds() []*parquet.Column {
	return append(nonNil(c.addPath, c.addSize, c.addModTime, c.addStats, c.addNumRecords, c.addPartKey, c.addPartValue,
		c.dvType, c.dvPath, c.dvOffset, c.dvSize, c.dvCard, c.dvMaxRow), c.addNullCounts...)
}

// nullCountKey is a column of stats_parsed.nullCount (or a field of a
// struct column's counts, at depth > 0), told present by the leaf
// addNullCounts[leaf].
type nullCountKey struct {
	name        []byte
	depth, leaf int
}

// nullCountLeaves finds a leaf of each column of a stats_parsed.nullCount
// group (at depth), and of the groups in it: its first, which holds a
// count (an integer), not repeated.
func (c *columns) nullCountLeaves(group *parquet.Column, depth int) {
	if group == nil || group.Leaf() || depth > action.MaxCountDepth {
		return
	}
	for _, col := range group.Columns() {
		l := col
		for !l.Leaf() && len(l.Columns()) > 0 {
			l = l.Columns()[0]
		}
		if k := l.Type().Kind(); !l.Leaf() || l.MaxRepetitionLevel() != 0 || k != parquet.Int64 && k != parquet.Int32 {
			continue
		}
		i := slices.Index(c.addNullCounts, l)
		if i < 0 {
			i = len(c.addNullCounts)
			c.addNullCounts = append(c.addNullCounts, l)
		}
		c.addNullCountKeys = append(c.addNullCountKeys, nullCountKey{name: []byte(col.Name()), depth: depth, leaf: i})
		c.nullCountLeaves(col, depth+1)
	}
}

func nonNil(cols ...*parquet.Column) []*parquet.Column {
	out := cols[:0]
	for _, col := range cols {
		if col != nil {
			out = append(out, col)
		}
	}
	return out
}

// checkKinds checks that every column read has the physical type its
// values are read as, and repeats as they are walked: a string column
// read as numbers would index values that are not there, and a repeated
// add.path would be walked as if each entry were a row.
func (c *columns) checkKinds() error {
	strs := []*parquet.Column{c.addPath, c.addStats, c.addPartKey, c.addPartValue, c.dvType, c.dvPath, c.removePath,
		c.protoReaderFeatures, c.protoWriterFeatures, c.mdID, c.mdName, c.mdDescription, c.mdProvider, c.mdSchema,
		c.mdPartitionColumns, c.mdConfKey, c.mdConfValue, c.txnAppID, c.dmDomain, c.dmConfig, c.scPath}
	ints := []*parquet.Column{c.addSize, c.addModTime, c.addNumRecords, c.dvOffset, c.dvSize, c.dvCard, c.dvMaxRow,
		c.protoReader, c.protoWriter, c.mdCreated, c.txnVersion, c.txnLastUpdated, c.scSize, c.scModTime, c.cmVersion}
	for _, set := range []struct {
		cols  []*parquet.Column
		kinds []parquet.Kind
		what  string
	}{
		{strs, []parquet.Kind{parquet.ByteArray}, "strings"},
		{ints, []parquet.Kind{parquet.Int32, parquet.Int64}, "integers"},
		{[]*parquet.Column{c.dmRemoved}, []parquet.Kind{parquet.Boolean}, "booleans"},
	} {
		for _, col := range nonNil(set.cols...) {
			if !slices.Contains(set.kinds, col.Type().Kind()) {
				return fmt.Errorf("column %v holds %v values, not %s", col.Path(), col.Type().Kind(), set.what)
			}
			repeats := 0 // lists and maps repeat once, the rest not at all
			if slices.Contains([]*parquet.Column{c.addPartKey, c.addPartValue, c.protoReaderFeatures, c.protoWriterFeatures,
				c.mdPartitionColumns, c.mdConfKey, c.mdConfValue}, col) {
				repeats = 1
			}
			if col.MaxRepetitionLevel() != repeats {
				return fmt.Errorf("column %v repeats %d deep, not %d", col.Path(), col.MaxRepetitionLevel(), repeats)
			}
		}
	}
	return nil
}

// checkMaps checks that the key and value leaves of each map column read
// line up (leaf.alignedWith), but for the maps whose keys skip says to
// leave (checked elsewhere).
func (c *columns) checkMaps(leaves map[*parquet.Column]*leaf, skip func(*parquet.Column) bool) error {
	for _, m := range [][2]*parquet.Column{{c.addPartKey, c.addPartValue}, {c.mdConfKey, c.mdConfValue}} {
		k, v := leaves[m[0]], leaves[m[1]]
		if k == nil || v == nil || skip != nil && skip(m[0]) {
			continue
		}
		if err := k.alignedWith(v); err != nil {
			return fmt.Errorf("map %v: %w", m[0].Path()[:len(m[0].Path())-2], err)
		}
	}
	return nil
}

func child(c *parquet.Column, name string) *parquet.Column {
	if c == nil || c.Leaf() {
		return nil
	}
	return c.Column(name)
}

// leafAt returns a primitive child column, or nil.
func leafAt(c *parquet.Column, name string) *parquet.Column {
	l := child(c, name)
	if l == nil || !l.Leaf() {
		return nil
	}
	return l
}

// mapLeaves returns the key and value leaves of a MAP column, whatever the
// writer named its repeated group ("key_value", "map", ...).
func mapLeaves(c *parquet.Column) (key, value *parquet.Column) {
	if c == nil || c.Leaf() || len(c.Columns()) != 1 {
		return nil, nil
	}
	kv := c.Columns()[0]
	key, value = leafAt(kv, "key"), leafAt(kv, "value")
	if key == nil || value == nil {
		return nil, nil
	}
	return key, value
}

// listLeaf returns the element leaf of a LIST column in the standard
// three-level layout or the legacy two-level one.
func listLeaf(c *parquet.Column) *parquet.Column {
	for c != nil && !c.Leaf() {
		if len(c.Columns()) != 1 {
			return nil
		}
		c = c.Columns()[0]
	}
	if c == nil || c.MaxRepetitionLevel() == 0 {
		return nil
	}
	return c
}
