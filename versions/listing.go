package versions

import (
	"context"
	"slices"
	"strings"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
)

// startKey is the listing start that includes every file of version v: the
// padded number without its '.' sorts before all of them.
func startKey(v int64) string {
	if v <= 0 {
		return ""
	}
	return replay.LogDir + replay.Padded(v)
}

// afterKey is the listing start that skips every file of version v.
func afterKey(v int64) string { return replay.LogDir + replay.Padded(v) + "~" }

// logFiles keeps the recognised ones of a listing.
func logFiles(objs []blobstore.Object) []replay.LogFile {
	var out []replay.LogFile
	for _, o := range objs {
		if f, ok := replay.ParseLogFile(o.Key, o.Size, o.ModTime.UnixMilli()); ok {
			out = append(out, f)
		}
	}
	return out
}

// listFrom lists every log file from version v on (all pages).
func listFrom(ctx context.Context, st Store, start string) ([]replay.LogFile, error) {
	var objs []blobstore.Object
	err := st.List(ctx, replay.LogDir, start, func(o blobstore.Object) bool {
		objs = append(objs, o)
		return true
	})
	return logFiles(objs), err
}

// merge joins two listings into a new one, keeping one entry per key (a's
// where both have it), sorted by key. The table's listing is sorted, and a
// refresh adds a short sorted one: they are joined in one pass, where
// sorting the whole listing again cost 28 ms at 100,000 files on every
// refresh that found a commit.
func merge(a, b []replay.LogFile) []replay.LogFile {
	a, b = sortedByKey(a), sortedByKey(b)
	out := make([]replay.LogFile, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		var next replay.LogFile
		switch {
		case len(b) == 0 || (len(a) > 0 && a[0].Key <= b[0].Key):
			if len(b) > 0 && a[0].Key == b[0].Key {
				b = b[1:]
			}
			next, a = a[0], a[1:]
		default:
			next, b = b[0], b[1:]
		}
		if n := len(out); n == 0 || out[n-1].Key != next.Key {
			out = append(out, next)
		}
	}
	return out
}

// sortedByKey returns l sorted by key: l itself when it is (as a listing
// usually is), else a sorted copy.
func sortedByKey(l []replay.LogFile) []replay.LogFile {
	byKey := func(x, y replay.LogFile) int { return strings.Compare(x.Key, y.Key) }
	if slices.IsSortedFunc(l, byKey) {
		return l
	}
	l = slices.Clone(l)
	slices.SortStableFunc(l, byKey)
	return l
}

// maxVersion is the highest version named in a listing, or -1.
func maxVersion(files []replay.LogFile) int64 {
	m := int64(-1)
	for _, f := range files {
		m = max(m, f.Version)
	}
	return m
}
