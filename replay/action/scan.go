package action

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unsafe"

	"github.com/deltafs/deltafs/replay/prefault"
)

// The add and remove lines that make up nearly all of a commit, and its
// commitInfo, are decoded by hand (scanLine): no reflection, no map per
// action, the stats and the partition values kept as the JSON they are
// until asked (Add.NumRecords, Add.Partition), paths copied into one shared
// buffer. Anything the scanner is not sure of (a line that is not one plain
// add, remove or commitInfo, a key that differs from a field's name only in
// case, an escape in a path or a key, a value of an unexpected type,
// invalid JSON) goes to encoding/json, which decides, so both give the
// same actions and the same errors (FuzzScanMatchesJSON). A line that is
// not UTF-8, or holds a lone surrogate escape, is refused (checkText),
// whichever decodes it: encoding/json would make the bad bytes U+FFFD, and
// a path so changed names another file.

// maxScanDepth bounds the nesting the scanner follows; deeper values go to
// encoding/json, which has its own limit.
const maxScanDepth = 100

// lineScanner decodes one commit's add, remove and commitInfo lines.
type lineScanner struct {
	arena []byte // paths; strings point into it, so it is only appended to
	adds  []Add  // Adds handed out, allocated in slabs
	rems  []Remove
	ints  []int64 // numbers Removes point to, allocated in slabs
	size  int     // bytes of the commit: its paths fit in that many
	b     []byte  // the line being scanned
	i     int
	// textToCheck: a string of the line holds a byte past ASCII or a \u
	// escape, so parseLines checks the line is text (checkText): kept
	// out of stringLit, whose loop a call would slow (a JSON replay by 4%).
	textToCheck bool
}

// arenaChunk is the size of each buffer paths are copied into, or the
// commit's size if smaller: a log of many one-file commits would otherwise
// clear 64 KiB for each.
const arenaChunk = 64 << 10

// str copies b into the arena and returns it as a string.
func (s *lineScanner) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaChunk/4 {
		return string(b)
	}
	if cap(s.arena)-len(s.arena) < len(b) {
		s.arena = make([]byte, 0, max(min(arenaChunk, s.size), len(b)))
	}
	start := len(s.arena)
	s.arena = append(s.arena, b...)
	return unsafe.String(&s.arena[start], len(b))
}

// newAdd hands out the next Add of a slab; slabs double from 4 to 256
// Adds, so a small commit allocates little.
func (s *lineScanner) newAdd() *Add {
	if len(s.adds) == cap(s.adds) {
		s.adds = make([]Add, 0, min(max(4, 2*cap(s.adds)), 256))
		if cap(s.adds) == 256 { // a large commit's, filled while others are: see prefault
			prefault.Slice(s.adds[:256])
		}
	}
	s.adds = s.adds[:len(s.adds)+1]
	return &s.adds[len(s.adds)-1]
}

func (s *lineScanner) newRemove() *Remove {
	if len(s.rems) == cap(s.rems) {
		s.rems = make([]Remove, 0, min(max(4, 2*cap(s.rems)), 64))
	}
	s.rems = s.rems[:len(s.rems)+1]
	return &s.rems[len(s.rems)-1]
}

// scanLine decodes line (trimmed, not empty) into a when it is one add,
// remove or commitInfo action it fully understands, reporting whether it
// did.
func (s *lineScanner) scanLine(line []byte, a *Action) bool {
	s.b, s.i = line, 0
	if !s.byte('{') {
		return false
	}
	key, ok := s.key()
	if !ok {
		return false
	}
	switch string(key) {
	case "add":
		add := s.newAdd()
		if !s.add(add) {
			*add = Add{}
			s.adds = s.adds[:len(s.adds)-1]
			return false
		}
		*a = Action{Add: add}
	case "remove":
		rm := s.newRemove()
		if !s.remove(rm) {
			*rm = Remove{}
			s.rems = s.rems[:len(s.rems)-1]
			return false
		}
		*a = Action{Remove: rm}
	case "commitInfo":
		ci := &CommitInfo{}
		if !s.commitInfo(ci) {
			return false
		}
		*a = Action{CommitInfo: ci}
	default:
		return false
	}
	s.ws()
	if !s.byte('}') {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

// object scans an object, calling field for each member with the scanner
// at its value; field returns false to give up.
func (s *lineScanner) object(field func(key []byte) bool) bool {
	s.ws()
	if !s.byte('{') {
		return false
	}
	s.ws()
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		s.ws()
		key, ok := s.key()
		if !ok || !field(key) {
			return false
		}
		s.ws()
		switch s.next() {
		case ',':
		case '}':
			return true
		default:
			return false
		}
	}
}

// key scans a plain key (no escape, ASCII) and the colon after it.
func (s *lineScanner) key() ([]byte, bool) {
	s.ws()
	k, plain, ok := s.stringLit()
	if !ok || !plain {
		return nil, false
	}
	s.ws()
	if !s.byte(':') {
		return nil, false
	}
	s.ws()
	return k, true
}

// Field names of the actions scanned, for the case-insensitive matching of
// encoding/json that the scanner leaves to it.
var (
	addFields        = []string{"path", "partitionValues", "size", "modificationTime", "dataChange", "stats", "tags", "deletionVector", "baseRowId", "defaultRowCommitVersion"}
	commitInfoFields = []string{"timestamp", "inCommitTimestamp", "operation"}
	removeFields     = []string{"path", "deletionTimestamp", "dataChange", "extendedFileMetadata", "partitionValues", "size", "deletionVector", "tags"}
	dvFields         = []string{"storageType", "pathOrInlineDv", "offset", "sizeInBytes", "cardinality", "maxRowIndex"}
)

func (s *lineScanner) add(a *Add) bool {
	partitions := false
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "path":
			return s.pathValue(&a.Path)
		case "partitionValues":
			if partitions { // encoding/json merges the two: leave it that
				return false
			}
			partitions = true
			raw, ok := s.partitionValues()
			a.partitionRaw = raw
			return ok
		case "size":
			return s.int(&a.Size)
		case "modificationTime":
			return s.int(&a.ModificationTime)
		case "dataChange":
			return s.bool(&a.DataChange)
		case "stats":
			if s.peek() != '"' {
				return false
			}
			start := s.i
			if _, _, ok := s.stringLit(); !ok {
				return false
			}
			a.Stats, a.statsRaw = "", s.b[start:s.i]
			return true
		case "tags":
			return s.tags(&a.Tags)
		case "deletionVector":
			return s.deletionVector(&a.DeletionVector)
		case "baseRowId":
			return s.intPtr(&a.BaseRowID)
		case "defaultRowCommitVersion":
			return s.intPtr(&a.DefaultRowCommit)
		}
		return s.unknown(key, addFields)
	})
}

func (s *lineScanner) remove(r *Remove) bool {
	partitions := false
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "path":
			return s.pathValue(&r.Path)
		case "deletionTimestamp":
			return s.intPtr(&r.DeletionTimestamp)
		case "dataChange":
			return s.bool(&r.DataChange)
		case "extendedFileMetadata":
			return s.bool(&r.ExtendedFileMetadata)
		case "partitionValues":
			if partitions {
				return false
			}
			partitions = true
			raw, ok := s.partitionValues()
			r.partitionRaw = raw
			return ok
		case "size":
			return s.intPtr(&r.Size)
		case "deletionVector":
			return s.deletionVector(&r.DeletionVector)
		case "tags":
			return s.tags(&r.Tags)
		}
		return s.unknown(key, removeFields)
	})
}

// commitInfo scans the provenance action every commit starts with: the
// fields deltafs reads, the rest (a writer's parameters and metrics, often
// most of the line) skipped.
func (s *lineScanner) commitInfo(ci *CommitInfo) bool {
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "timestamp":
			return s.intPtr(&ci.Timestamp)
		case "inCommitTimestamp":
			return s.intPtr(&ci.InCommitTimestamp)
		case "operation":
			return s.stringValue(&ci.Operation)
		}
		return s.unknown(key, commitInfoFields)
	})
}

// deletionVector scans a deletion vector or null: on a table under DML,
// half the files of a commit may carry one. Null where encoding/json would
// keep a field's value, a second vector (which it would merge into the
// first), a number out of range: all left to it.
func (s *lineScanner) deletionVector(dst **DeletionVector) bool {
	if *dst != nil {
		return false
	}
	if s.literal("null") {
		return true
	}
	dv := &DeletionVector{}
	ok := s.object(func(key []byte) bool {
		switch string(key) {
		case "storageType":
			return s.stringValue(&dv.StorageType)
		case "pathOrInlineDv":
			return s.stringValue(&dv.PathOrInlineDv)
		case "offset":
			if s.literal("null") {
				dv.Offset = nil
				return true
			}
			var v int32
			if !s.int32(&v) {
				return false
			}
			dv.Offset = &v
			return true
		case "sizeInBytes":
			return s.int32(&dv.SizeInBytes)
		case "cardinality":
			return s.int(&dv.Cardinality)
		case "maxRowIndex":
			return s.intPtr(&dv.MaxRowIndex)
		}
		return s.unknown(key, dvFields)
	})
	if ok {
		*dst = dv
	}
	return ok
}

// stringValue scans a string into *dst; one with escapes (Go's writers
// escape the '<', '>' and '&' of Z85 vectors) is unquoted by encoding/json.
func (s *lineScanner) stringValue(dst *string) bool {
	if s.peek() != '"' {
		return false
	}
	start := s.i
	v, plain, ok := s.stringLit()
	if !ok {
		return false
	}
	if plain {
		*dst = s.str(v)
		return true
	}
	return json.Unmarshal(s.b[start:s.i], dst) == nil
}

// int32 scans an integer that fits an int32.
func (s *lineScanner) int32(dst *int32) bool {
	var v int64
	if !s.int(&v) || v != int64(int32(v)) {
		return false
	}
	*dst = int32(v)
	return true
}

// unknown skips the value of a key no field has, unless encoding/json
// would match it to one regardless of case.
func (s *lineScanner) unknown(key []byte, fields []string) bool {
	for _, f := range fields {
		if bytes.EqualFold(key, []byte(f)) {
			return false
		}
	}
	return s.skip(0)
}

// pathValue scans a plain string (no escape, ASCII) into *dst.
func (s *lineScanner) pathValue(dst *string) bool {
	if s.peek() != '"' {
		return false
	}
	v, plain, ok := s.stringLit()
	if !ok || !plain {
		return false
	}
	*dst = s.str(v)
	return true
}

// partitionValues scans an object whose values are strings or null and
// returns it as it stands (nil for null).
func (s *lineScanner) partitionValues() ([]byte, bool) {
	if s.literal("null") {
		return nil, true
	}
	start := s.i
	ok := s.object(func([]byte) bool {
		if s.literal("null") {
			return true
		}
		if s.peek() != '"' {
			return false
		}
		_, _, ok := s.stringLit()
		return ok
	})
	if !ok {
		return nil, false
	}
	return s.b[start:s.i], true
}

// tags scans an object of plain strings, or null, into *dst: Databricks
// writes four tags on every add. Anything else (a null value, an escape,
// a second tags key, which encoding/json merges into the first) is left to
// encoding/json.
func (s *lineScanner) tags(dst *map[string]string) bool {
	if *dst != nil {
		return false
	}
	if s.literal("null") {
		return true
	}
	m := map[string]string{}
	ok := s.object(func(key []byte) bool {
		if s.peek() != '"' {
			return false
		}
		v, plain, ok := s.stringLit()
		if ok && plain {
			m[s.str(key)] = s.str(v)
		}
		return ok && plain
	})
	if ok {
		*dst = m
	}
	return ok
}

// int scans an integer that fits an int64.
func (s *lineScanner) int(dst *int64) bool {
	start := s.i
	if s.peek() == '-' {
		s.i++
	}
	digits := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	n := s.i - digits
	if n == 0 || (n > 1 && s.b[digits] == '0') || n > 19 {
		return false
	}
	if c := s.peek(); c == '.' || c == 'e' || c == 'E' {
		return false
	}
	v, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	*dst = v
	return err == nil
}

// intPtr scans an integer or null.
func (s *lineScanner) intPtr(dst **int64) bool {
	if s.literal("null") {
		*dst = nil
		return true
	}
	var v int64
	if !s.int(&v) {
		return false
	}
	*dst = s.newInt(v)
	return true
}

// newInt hands out an int64 of a slab: a remove holds two pointers to
// numbers, and a compaction commit holds a million removes.
func (s *lineScanner) newInt(v int64) *int64 {
	if len(s.ints) == cap(s.ints) {
		s.ints = make([]int64, 0, min(max(8, 2*cap(s.ints)), 512))
	}
	s.ints = append(s.ints, v)
	return &s.ints[len(s.ints)-1]
}

func (s *lineScanner) bool(dst *bool) bool {
	switch {
	case s.literal("true"):
		*dst = true
	case s.literal("false"):
		*dst = false
	default:
		return false
	}
	return true
}
