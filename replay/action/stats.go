package action

import (
	"bytes"
	"encoding/json"
)

// NumRecords returns the numRecords field of an add's stats JSON, or -1 when
// the stats are absent or carry none. Writers put numRecords first, so the
// common case is a prefix scan; anything else falls back to a full decode.
func NumRecords(stats []byte) int64 {
	if len(stats) == 0 {
		return -1
	}
	if n, ok := leadingCount(stats, `{"numRecords"`); ok {
		return n
	}
	var s struct {
		NumRecords *int64 `json:"numRecords"`
	}
	if json.Unmarshal(stats, &s) != nil || s.NumRecords == nil {
		return -1
	}
	return *s.NumRecords
}

// leadingCount reads the non-negative integer that follows key and a
// colon at the start of b (JSON spaces allowed around the colon and the
// number, as Python's json module writes them), when a ',' or '}' ends it.
func leadingCount(b []byte, key string) (int64, bool) {
	if !bytes.HasPrefix(b, []byte(key)) {
		return 0, false
	}
	i := skipSpaces(b, len(key))
	if i == len(b) || b[i] != ':' {
		return 0, false
	}
	i = skipSpaces(b, i+1)
	start := i
	var n int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	digits := i - start
	if digits == 0 || digits >= 19 || digits > 1 && b[start] == '0' {
		return 0, false
	}
	i = skipSpaces(b, i)
	return n, i < len(b) && (b[i] == ',' || b[i] == '}')
}

// skipSpaces returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpaces(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}
