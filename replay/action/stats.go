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
	if n, ok := leadingCount(stats, `{"numRecords":`); ok {
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

// leadingCount reads the non-negative integer that follows prefix in b,
// when a ',' or '}' ends it.
func leadingCount(b []byte, prefix string) (int64, bool) {
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return 0, false
	}
	var n int64
	digits := 0
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			return n, digits > 0 && digits < 19 && (c == ',' || c == '}')
		}
		n = n*10 + int64(c-'0')
		digits++
	}
	return 0, false
}
