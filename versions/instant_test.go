package versions

import "testing"

// Every spelling RFC 3339 allows, lower-case t and z included, and a date.
func TestParseInstant(t *testing.T) {
	for s, want := range map[string]int64{
		"2023-11-14T22:13:20Z":           1_700_000_000_000,
		"2023-11-14t22:13:20z":           1_700_000_000_000,
		"2023-11-14T23:13:20.5+01:00":    1_700_000_000_500,
		"2023-11-14":                     1_699_920_000_000,
		"2023-11-14T22:13:20.000000001Z": 1_700_000_000_000,
	} {
		if got, err := ParseInstant(s); err != nil || got != want {
			t.Errorf("ParseInstant(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "yesterday", "1700000000000", "2023-11-14 22:13:20",
		"2023-11-14T22:13:20,5Z", "2023-11-14T22:13:20-24:00", "2023-11-14T22:13:20+00:60"} {
		if _, err := ParseInstant(s); err == nil {
			t.Errorf("ParseInstant(%q): no error", s)
		}
	}
}
