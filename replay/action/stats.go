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
	const key = `{"numRecords":`
	if bytes.HasPrefix(stats, []byte(key)) {
		var n int64
		digits := 0
		for _, c := range stats[len(key):] {
			if c < '0' || c > '9' {
				if digits > 0 && digits < 19 && (c == ',' || c == '}') {
					return n
				}
				break
			}
			n = n*10 + int64(c-'0')
			digits++
		}
	}
	var s struct {
		NumRecords *int64 `json:"numRecords"`
	}
	if json.Unmarshal(stats, &s) != nil || s.NumRecords == nil {
		return -1
	}
	return *s.NumRecords
}
