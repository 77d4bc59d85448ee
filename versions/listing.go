package versions

import (
	"context"
	"sort"

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

// merge joins two listings, keeping one entry per key, sorted by key.
func merge(a, b []replay.LogFile) []replay.LogFile {
	seen := make(map[string]bool, len(a)+len(b))
	var out []replay.LogFile
	for _, l := range [][]replay.LogFile{a, b} {
		for _, f := range l {
			if !seen[f.Key] {
				seen[f.Key] = true
				out = append(out, f)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// maxVersion is the highest version named in a listing, or -1.
func maxVersion(files []replay.LogFile) int64 {
	m := int64(-1)
	for _, f := range files {
		m = max(m, f.Version)
	}
	return m
}
