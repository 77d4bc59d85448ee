package action

import (
	"encoding/json"
	"sort"
	"strings"
	"unsafe"
)

// File is one live data file of a snapshot: what the mount needs to show
// and serve it. It is kept small because a snapshot may hold millions; the
// file's numRecords and partition values are read on demand (see
// replay.Snapshot.Details).
type File struct {
	// Path is the decoded path relative to the table root, '/'-separated,
	// without "." or ".." elements; or, for a file outside the root, its
	// absolute URI (see IsExternal).
	Path    string
	Size    int64 // bytes, from the add action
	ModTime int64 // milliseconds since the epoch, from the add action
	// DV is the file's deletion vector, nil for most files.
	DV *DeletionVector
}

// DeletedRows is the number of rows the file's deletion vector removes.
func (f *File) DeletedRows() int64 {
	if f.DV == nil {
		return 0
	}
	return f.DV.Cardinality
}

// PartitionValue is one partition column's value; Null marks a null value.
type PartitionValue struct {
	Column string
	Value  string
	Null   bool
}

// Partition is the partition values of a file, sorted by column. Equal
// partitions are interned to one shared value.
type Partition struct {
	Values []PartitionValue
}

// Map returns the values as the add action spells them: null is nil.
func (p *Partition) Map() map[string]*string {
	m := make(map[string]*string)
	if p == nil {
		return m
	}
	for _, v := range p.Values {
		if v.Null {
			m[v.Column] = nil
		} else {
			s := v.Value
			m[v.Column] = &s
		}
	}
	return m
}

// Interner shares one *Partition between files with equal partition values.
// It is not safe for concurrent use; give each worker its own.
type Interner struct {
	m      map[string]*Partition
	raw    map[string]*Partition // by the JSON object they were read from
	key    []byte
	values []PartitionValue // internRaw's, reused
}

// Intern returns the shared partition for values, which must be sorted by
// column. values is copied when it is new.
func (in *Interner) Intern(values []PartitionValue) *Partition {
	return in.intern(values, false)
}

// intern is Intern; with borrowed, the strings of values point into bytes
// that are not kept (a commit's), and are copied too when new.
func (in *Interner) intern(values []PartitionValue, borrowed bool) *Partition {
	if len(values) == 0 {
		return nil
	}
	in.key = in.key[:0]
	for _, v := range values {
		in.key = append(in.key, v.Column...)
		if v.Null {
			in.key = append(in.key, 0, 0)
		} else {
			in.key = append(in.key, 0, 1)
			in.key = append(in.key, v.Value...)
		}
		in.key = append(in.key, 0)
	}
	if p, ok := in.m[string(in.key)]; ok {
		return p
	}
	if in.m == nil {
		in.m = make(map[string]*Partition)
	}
	p := &Partition{Values: append([]PartitionValue(nil), values...)}
	if borrowed {
		for i := range p.Values {
			v := &p.Values[i]
			v.Column, v.Value = strings.Clone(v.Column), strings.Clone(v.Value)
		}
	}
	in.m[string(in.key)] = p
	return p
}

// InternMap interns the partition values of an add action.
func (in *Interner) InternMap(m map[string]*string) *Partition {
	if len(m) == 0 {
		return nil
	}
	values := make([]PartitionValue, 0, len(m))
	for k, v := range m {
		if v == nil {
			values = append(values, PartitionValue{Column: k, Null: true})
		} else {
			values = append(values, PartitionValue{Column: k, Value: *v})
		}
	}
	SortPartitionValues(values)
	return in.Intern(values)
}

// internRaw interns the partition values of a JSON object (checked by the
// scanner: keys without escapes, string or null values). Most files of a
// commit share a few partitions, so the object's text is looked up first;
// an over-partitioned table has a new one every few files, which are read
// here without encoding/json (it took half of replaying 100k adds under 8
// partition columns).
func (in *Interner) internRaw(raw []byte) *Partition {
	if p, ok := in.raw[string(raw)]; ok {
		return p
	}
	values, ok := partitionValues(raw, in.values[:0])
	if !ok {
		return nil // cannot happen: the scanner checked it
	}
	in.values = values
	p := in.intern(values, true)
	if in.raw == nil {
		in.raw = make(map[string]*Partition)
	}
	in.raw[string(raw)] = p
	return p
}

// partitionValues appends the values of a partitionValues object as the
// scanner checked it to dst, sorted by column. Plain strings point into
// raw. Of a column named twice, the last value counts, as with
// encoding/json.
func partitionValues(raw []byte, dst []PartitionValue) ([]PartitionValue, bool) {
	s := lineScanner{b: raw}
	ok := s.object(func(key []byte) bool {
		v := PartitionValue{Column: unsafe.String(unsafe.SliceData(key), len(key))}
		switch {
		case s.literal("null"):
			v.Null = true
		case s.peek() == '"':
			start := s.i
			lit, plain, ok := s.stringLit()
			if !ok {
				return false
			}
			if plain {
				v.Value = unsafe.String(unsafe.SliceData(lit), len(lit))
			} else if json.Unmarshal(raw[start:s.i], &v.Value) != nil {
				return false
			}
		default:
			return false
		}
		dst = append(dst, v)
		return true
	})
	if !ok {
		return nil, false
	}
	sort.SliceStable(dst, func(i, j int) bool { return dst[i].Column < dst[j].Column })
	out := dst[:0]
	for i, v := range dst {
		if i+1 < len(dst) && dst[i+1].Column == v.Column {
			continue // a later value of the column follows
		}
		out = append(out, v)
	}
	return out, true
}

// Settle reads, of each add of a commit's actions, what a replay keeps of
// its stats (its numRecords, the columns it counts nulls of), and copies
// its raw partition values into one buffer of their own, so that the
// actions hold nothing of the commit's bytes: pointed into, every commit's
// were held until a replay ended.
func Settle(actions []Action) {
	size := 0
	for i := range actions {
		if a := actions[i].Add; a != nil {
			size += len(a.partitionRaw)
		}
	}
	keep := make([]byte, 0, size)
	for i := range actions {
		a := actions[i].Add
		if a == nil {
			continue
		}
		a.NullCounted()
		a.numRecords, a.settled, a.statsRaw = a.NumRecords(), true, nil
		if a.partitionRaw != nil {
			start := len(keep)
			keep = append(keep, a.partitionRaw...)
			a.partitionRaw = keep[start:len(keep):len(keep)]
		}
	}
}

// Partition returns the add's partition values, interned by in.
func (a *Add) Partition(in *Interner) *Partition {
	if a.partitionRaw != nil {
		return in.internRaw(a.partitionRaw)
	}
	return in.InternMap(a.PartitionValues)
}

// NumRecords is the numRecords of the add's stats, or -1 (NumRecords).
func (a *Add) NumRecords() int64 {
	if a.settled {
		return a.numRecords
	}
	if a.statsRaw == nil {
		return NumRecords([]byte(a.Stats))
	}
	// The stats as written in the line: a JSON string whose text starts
	// with the same key in nearly every writer.
	const key = `"{\"numRecords\"`
	if n, ok := leadingCount(a.statsRaw, key); ok {
		return n
	}
	var stats string
	if json.Unmarshal(a.statsRaw, &stats) != nil {
		return -1
	}
	return NumRecords([]byte(stats))
}

// NullCounted is the set of columns the add's stats count nulls of
// (NullCounted), or nil. It is read once: a replay reads it where commits
// are decoded in parallel, and uses it where they are applied.
func (a *Add) NullCounted() *ColumnSet {
	if !a.counted {
		if a.statsRaw == nil {
			a.nullCounted = NullCounted([]byte(a.Stats))
		} else {
			a.nullCounted = nullCountedQuoted(a.statsRaw)
		}
		a.counted = true
	}
	return a.nullCounted
}

// SortPartitionValues sorts values by column, the order Intern expects.
func SortPartitionValues(values []PartitionValue) {
	sort.Slice(values, func(i, j int) bool { return values[i].Column < values[j].Column })
}

// FileOf turns an add action into a File, decoding its path against the
// table root.
func FileOf(a *Add, root string) (File, error) {
	path, err := CleanPath(a.Path, root)
	if err != nil {
		return File{}, err
	}
	f := File{Path: path, Size: a.Size, ModTime: a.ModificationTime, DV: a.DeletionVector}
	return f, nil
}
