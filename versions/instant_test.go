package versions

import (
	"strings"
	"testing"
)

// Every spelling RFC 3339 allows, lower-case t and z and a space for the T
// included, and a date; a date and time without a zone is refused, saying so.
func TestParseInstant(t *testing.T) {
	for s, want := range map[string]int64{
		"2023-11-14T22:13:20Z":           1_700_000_000_000,
		"2023-11-14t22:13:20z":           1_700_000_000_000,
		"2023-11-14T23:13:20.5+01:00":    1_700_000_000_500,
		"2023-11-14":                     1_699_920_000_000,
		"2023-11-14T22:13:20.000000001Z": 1_700_000_000_000,
		"2023-11-14 22:13:20Z":           1_700_000_000_000,
		"2023-11-14 23:13:20.25+01:00":   1_700_000_000_250,
	} {
		if got, err := ParseInstant(s); err != nil || got != want {
			t.Errorf("ParseInstant(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "yesterday", "1700000000000", "2023-11-14  22:13:20Z", "2023-11-14_22:13:20Z",
		"2023-11-14T22:13:20,5Z", "2023-11-14T22:13:20-24:00", "2023-11-14T22:13:20+00:60"} {
		if _, err := ParseInstant(s); err == nil || strings.Contains(err.Error(), "zone") {
			t.Errorf("ParseInstant(%q): %v; want an error naming the forms", s, err)
		}
	}
	for _, s := range []string{"2023-11-14 22:13:20", "2023-11-14T22:13:20.5", "2023-11-14t22:13:20"} {
		if _, err := ParseInstant(s); err == nil || !strings.Contains(err.Error(), "no time zone: add Z for UTC ("+s+"Z)") {
			t.Errorf("ParseInstant(%q): %v; want an error asking for a zone", s, err)
		}
	}
}
