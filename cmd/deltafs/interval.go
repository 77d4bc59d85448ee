package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// intervalUnits are the units a Delta duration property may use.
var intervalUnits = map[string]time.Duration{
	"nanosecond": time.Nanosecond, "microsecond": time.Microsecond, "millisecond": time.Millisecond,
	"second": time.Second, "minute": time.Minute, "hour": time.Hour,
	"day": 24 * time.Hour, "week": 7 * 24 * time.Hour,
}

// parseInterval reads a Delta duration property such as "interval 30 days"
// or "interval 1 week 12 hours": an optional "interval", then number and
// unit pairs. Months and years are refused, as Delta refuses them.
func parseInterval(s string) (time.Duration, error) {
	fields := strings.Fields(strings.ToLower(s))
	if len(fields) > 0 && fields[0] == "interval" {
		fields = fields[1:]
	}
	if len(fields) == 0 || len(fields)%2 != 0 {
		return 0, fmt.Errorf("%q is not an interval such as \"interval 7 days\"", s)
	}
	var d time.Duration
	for i := 0; i < len(fields); i += 2 {
		n, err := strconv.ParseInt(fields[i], 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q: %q is not a count", s, fields[i])
		}
		unit, ok := intervalUnits[strings.TrimSuffix(fields[i+1], "s")]
		if !ok {
			return 0, fmt.Errorf("%q: unknown unit %q", s, fields[i+1])
		}
		d += time.Duration(n) * unit
	}
	return d, nil
}

// formatDuration prints a retention as days, hours or a Go duration.
func formatDuration(d time.Duration) string {
	day := 24 * time.Hour
	switch {
	case d >= day && d%day == 0:
		return plural(d/day, "day", "days")
	case d >= time.Hour && d%time.Hour == 0:
		return plural(d/time.Hour, "hour", "hours")
	}
	return d.String()
}
