package action

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// ColumnSet is the set of columns an add's stats count nulls of: the keys
// of their nullCount, and the keys nested in a struct column's counts.
// Spark and delta-rs count the nulls of every column they collect stats
// for (the first 32 leaves by default), so a file written before a column
// or a struct field was added lacks its key. Sets are shared: the files
// written under one schema have one.
type ColumnSet struct {
	names  []string // top-level, in the stats' order
	fields []string // nested: paths, names joined by fieldSep, in order
}

// fieldSep joins the names of a nested field's path.
const fieldSep = "\x00"

// MaxCountDepth bounds the nesting of counts read: deeper keys are left
// out of the set.
const MaxCountDepth = 32

// Has reports whether the set holds the top-level column named name.
func (s *ColumnSet) Has(name string) bool { return slices.Contains(s.names, name) }

// HasField reports whether the set holds the nested field at path (a
// top-level column's name and the names of the fields below it).
func (s *ColumnSet) HasField(path ...string) bool {
	return slices.Contains(s.fields, strings.Join(path, fieldSep))
}

// Names returns the top-level columns of the set, in the stats' order.
func (s *ColumnSet) Names() []string { return slices.Clone(s.names) }

// Fields returns the paths of the nested fields of the set, in the
// stats' order.
func (s *ColumnSet) Fields() [][]string {
	out := make([][]string, len(s.fields))
	for i, f := range s.fields {
		out[i] = strings.Split(f, fieldSep)
	}
	return out
}

// AppendCountKey appends to keys a member name of a nullCount object at
// its depth: 0 for a top-level column, 1 for a field of a struct column's
// counts, and so on. A key at depth d > 0 follows its parent's, at depth
// d-1. Keys so encoded (the name's length, the depth, the name) are what
// InternCounts takes, and what sets are interned by.
func AppendCountKey(keys, name []byte, depth int) []byte {
	keys = binary.AppendUvarint(keys, uint64(len(name)))
	return append(append(keys, byte(depth)), name...)
}

// NullCounted returns the columns the nullCount object of an add's stats
// JSON names, or nil when the stats have no such object. It reads them as
// encoding/json does: the commit scanner's (scan.go) where the names are
// plain, encoding/json for anything it is unsure of.
func NullCounted(stats []byte) *ColumnSet {
	if set, ok := lastNullCount(stats); ok {
		return set
	}
	s := lineScanner{b: stats}
	var set *ColumnSet
	ok := s.object(func(key []byte) bool {
		if string(key) != "nullCount" {
			return s.skip(1)
		}
		set = nil // the last member of a name counts, as in encoding/json
		if s.peek() != '{' {
			return s.skip(1)
		}
		var buf [512]byte
		keys, ok := s.countKeys(buf[:0], 0)
		if ok {
			set = InternCounts(keys)
		}
		return ok
	})
	if s.ws(); ok && s.i == len(s.b) {
		return set
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(stats, &members) != nil {
		return nil
	}
	keys, ok := decodedKeys(members["nullCount"], nil, 0)
	if !ok {
		return nil
	}
	return InternCounts(keys)
}

// decodedKeys appends the names of an object's members in their order, and
// those of the objects nested in it, as the scanner does, decoded by
// encoding/json; ok is false for anything but an object.
func decodedKeys(object []byte, keys []byte, depth int) ([]byte, bool) {
	d := json.NewDecoder(bytes.NewReader(object))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for d.More() {
		t, err := d.Token()
		name, isName := t.(string)
		var value json.RawMessage
		if err != nil || !isName || d.Decode(&value) != nil {
			return nil, false
		}
		keys = AppendCountKey(keys, []byte(name), depth)
		if value[0] == '{' && depth < MaxCountDepth {
			var ok bool
			if keys, ok = decodedKeys(value, keys, depth+1); !ok {
				return nil, false
			}
		}
	}
	return keys, true
}

// lastNullCount reads nullCount where writers put it, last: a member
// followed by nothing but the closing brace of the whole object is one of
// its own members. ok is false when the stats are not so written.
func lastNullCount(stats []byte) (*ColumnSet, bool) {
	const name = `"nullCount"`
	i := bytes.LastIndex(stats, []byte(name))
	if i < 0 {
		// Without escapes no member can be named nullCount.
		return nil, bytes.IndexByte(stats, '\\') < 0
	}
	if before := skipSpacesBack(stats, i-1); before < 0 || stats[before] != ',' && stats[before] != '{' {
		return nil, false
	}
	s := lineScanner{b: stats, i: i + len(name)}
	if s.ws(); !s.byte(':') {
		return nil, false
	}
	if s.ws(); s.peek() != '{' {
		return nil, false
	}
	var buf [512]byte
	keys, ok := s.countKeys(buf[:0], 0)
	if s.ws(); !ok || !s.byte('}') {
		return nil, false
	}
	if s.ws(); s.i != len(s.b) {
		return nil, false
	}
	return InternCounts(keys), true
}

// countKeys scans a nullCount object (at depth 0) or one nested in it,
// appending its members' names to keys, and those of the objects in it.
func (s *lineScanner) countKeys(keys []byte, depth int) ([]byte, bool) {
	ok := s.object(func(key []byte) bool {
		keys = AppendCountKey(keys, key, depth)
		if s.peek() == '{' && depth < MaxCountDepth {
			var ok bool
			keys, ok = s.countKeys(keys, depth+1)
			return ok
		}
		return s.skip(depth + 2) // the stats, nullCount, then its members
	})
	return keys, ok
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// columnSets interns ColumnSets by their names, each after its length. Past
// maxColumnSets distinct sets (a log written under thousands of schemas)
// new ones are no longer kept: memory stays bounded.
var columnSets = struct {
	sync.RWMutex
	m map[string]*ColumnSet
}{m: map[string]*ColumnSet{}}

const maxColumnSets = 4096

// InternCounts returns the set of the keys (AppendCountKey's), shared
// with every other set of the same keys in the same order.
func InternCounts(keys []byte) *ColumnSet {
	columnSets.RLock()
	set := columnSets.m[string(keys)]
	columnSets.RUnlock()
	if set != nil {
		return set
	}
	set = newColumnSet(keys)
	columnSets.Lock()
	defer columnSets.Unlock()
	if old := columnSets.m[string(keys)]; old != nil {
		return old
	}
	if len(columnSets.m) < maxColumnSets {
		columnSets.m[string(keys)] = set
	}
	return set
}

// newColumnSet builds the set of the keys (AppendCountKey's).
func newColumnSet(keys []byte) *ColumnSet {
	set := &ColumnSet{}
	var path []string
	for len(keys) > 0 {
		n, w := binary.Uvarint(keys)
		if w <= 0 || uint64(len(keys)-w-1) < n {
			break // not AppendCountKey's
		}
		depth, name := int(keys[w]), string(keys[w+1:w+1+int(n)])
		keys = keys[w+1+int(n):]
		if depth > len(path) {
			continue // no parent: the collectors write none such
		}
		path = append(path[:depth], name)
		if depth == 0 {
			set.names = append(set.names, path[0])
		} else {
			set.fields = append(set.fields, strings.Join(path, fieldSep))
		}
	}
	return set
}

// nullCountedQuoted is NullCounted of stats written as a JSON string, as
// a JSON replay reads every add's: where nullCount comes last, only it is
// unquoted.
func nullCountedQuoted(raw []byte) *ColumnSet {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil
	}
	if set, ok := lastNullCountQuoted(raw); ok {
		return set
	}
	var stats string
	if json.Unmarshal(raw, &stats) != nil {
		return nil
	}
	return NullCounted([]byte(stats))
}

// lastNullCountQuoted is lastNullCount of quoted stats whose nullCount
// object holds no escape but its quotes': the object is found by walking
// back from the end, so only it is read.
func lastNullCountQuoted(raw []byte) (*ColumnSet, bool) {
	j := skipSpacesBack(raw, len(raw)-2)
	if j < 0 || raw[j] != '}' { // the stats object's end
		return nil, false
	}
	end := skipSpacesBack(raw, j-1)
	if end < 0 || raw[end] != '}' {
		return nil, false
	}
	depth, quoted := 0, false
	for j = end; j > 0; j-- {
		switch raw[j] {
		case '"':
			if raw[j-1] != '\\' || j >= 2 && raw[j-2] == '\\' {
				return nil, false
			}
			quoted = !quoted
			j--
		case '\\':
			return nil, false
		case '}':
			if !quoted {
				depth++
			}
		case '{':
			if !quoted {
				depth--
			}
		}
		if depth == 0 {
			break
		}
	}
	const name = `\"nullCount\"`
	k := skipSpacesBack(raw, j-1)
	if k < 0 || raw[k] != ':' {
		return nil, false
	}
	k = skipSpacesBack(raw, k-1) + 1
	if !bytes.HasSuffix(raw[:k], []byte(name)) {
		return nil, false
	}
	if k = skipSpacesBack(raw, k-len(name)-1); k < 0 || raw[k] != ',' && raw[k] != '{' {
		return nil, false
	}
	var buf [512]byte
	keys, ok := quotedKeys(raw[j+1:end], buf[:0], 0)
	if !ok {
		return nil, false
	}
	return InternCounts(keys), true
}

// quotedKeys appends the names of the members of an object's inside as
// quoted stats hold it (quotes escaped, no other escape), and those of
// the objects in their values, skipping the other values.
func quotedKeys(in []byte, keys []byte, depth int) ([]byte, bool) {
	for i := skipSpaces(in, 0); i < len(in); {
		if len(in)-i < 4 || in[i] != '\\' || in[i+1] != '"' {
			return nil, false
		}
		n := bytes.Index(in[i+2:], []byte(`\"`))
		if n < 0 {
			return nil, false
		}
		keys = AppendCountKey(keys, in[i+2:i+2+n], depth)
		if i = skipSpaces(in, i+4+n); i == len(in) || in[i] != ':' {
			return nil, false
		}
		// The value: a number, or an object (a struct's counts), whose
		// names may hold commas but no unescaped quote.
		open, quoted := 0, false
		start := skipSpaces(in, i+1)
	value:
		for i = start; i < len(in); i++ {
			switch c := in[i]; {
			case c == '"':
				quoted = !quoted
			case quoted:
			case c == '{':
				open++
			case c == '}':
				open--
			case c == ',' && open == 0:
				break value
			}
		}
		if open != 0 || quoted {
			return nil, false
		}
		if start < len(in) && in[start] == '{' && depth < MaxCountDepth {
			var ok bool
			end := skipSpacesBack(in, i-1) // the object's closing brace
			if in[end] != '}' {
				return nil, false
			}
			if keys, ok = quotedKeys(in[start+1:end], keys, depth+1); !ok {
				return nil, false
			}
		}
		if i < len(in) {
			i = skipSpaces(in, i+1) // past the comma
			if i == len(in) {
				return nil, false
			}
		}
	}
	return keys, true
}

// skipSpacesBack returns the index of the last byte at or before i that
// is not JSON white space (-1: none).
func skipSpacesBack(b []byte, i int) int {
	for i >= 0 && isSpace(b[i]) {
		i--
	}
	return i
}
