package versions

import (
	"fmt"
	"strings"
	"time"
)

// InstantLayout is the one canonical spelling of an instant: UTC, to the
// millisecond (2024-01-05T09:37:00.000Z).
const InstantLayout = "2006-01-02T15:04:05.000Z"

// FormatInstant spells an instant (ms since the epoch) canonically.
func FormatInstant(ms int64) string { return time.UnixMilli(ms).UTC().Format(InstantLayout) }

// Spellable reports whether an instant has a spelling ParseInstant reads
// back: RFC 3339 has years 0000 to 9999 only. A hostile or broken log can
// time a version outside them.
func Spellable(ms int64) bool {
	y := time.UnixMilli(ms).UTC().Year()
	return y >= 0 && y <= 9999
}

// ParseInstant reads an instant as people write one: RFC 3339 with Z or an
// offset and optional fractional seconds (2024-01-05T09:37:00Z,
// 2024-01-05T10:37:00.5+01:00; a space for the T, as RFC 3339 allows and
// SQL writes), or a plain date (2024-01-05: midnight UTC). It returns
// milliseconds since the epoch; sub-millisecond digits are cut, as a
// commit's instant has none. A date and time without a zone is refused,
// saying so: read in UTC it could name another version than the one meant
// in local time, as Spark reads it.
func ParseInstant(s string) (int64, error) {
	// RFC 3339 allows a lower-case t and z; Go's layout does not. Go also
	// takes what RFC 3339 does not: a comma before the fraction, an offset
	// of 24 hours or 60 minutes.
	spelled := strings.ToUpper(s)
	if len(spelled) > 10 && spelled[10] == ' ' {
		spelled = spelled[:10] + "T" + spelled[11:]
	}
	if t, err := time.Parse(time.RFC3339Nano, spelled); err == nil && strictRFC3339(s) {
		return t.UnixMilli(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.UnixMilli(), nil
	}
	if _, err := time.Parse("2006-01-02T15:04:05.999999999", spelled); err == nil {
		return 0, fmt.Errorf("instant %q has no time zone: add Z for UTC (%sZ) or an offset (%s+01:00)", s, s, s)
	}
	return 0, fmt.Errorf("instant %q: want RFC 3339 (2024-01-05T09:37:00Z, 2024-01-05T10:37:00.5+01:00) or a date (2024-01-05)", s)
}

// strictRFC3339 refuses, in a spelling Go's RFC 3339 layout reads, what
// RFC 3339 does not allow: a comma for the decimal point, an offset's hour
// past 23 or minute past 59.
func strictRFC3339(s string) bool {
	if strings.Contains(s, ",") {
		return false
	}
	if n := len(s); n > 6 && (s[n-6] == '+' || s[n-6] == '-') {
		return s[n-5:n-3] <= "23" && s[n-2:] <= "59"
	}
	return true
}
