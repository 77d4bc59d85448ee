package main

import "time"

// formatMillis prints a log timestamp (ms since the epoch) in UTC.
func formatMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
}
