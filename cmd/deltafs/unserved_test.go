package main

import (
	"strings"
	"testing"

	"github.com/deltafs/deltafs/replay"
)

// unserved names the deepest folder every file not served lies under,
// none where they share nothing past the scheme.
func TestUnservedFolder(t *testing.T) {
	for _, c := range []struct {
		paths []string
		n     int
		under string
	}{
		{[]string{"a.parquet", "date=1/b.parquet"}, 0, ""},
		{[]string{"a.parquet", "file:///src/t/date=1/x.parquet", "file:///src/t/date=2/y.parquet"}, 2, "file:///src/t"},
		{[]string{"s3://bucket/t/x.parquet"}, 1, "s3://bucket/t"},
		{[]string{"s3://bucket/x.parquet", "s3://bucket/t/y.parquet"}, 2, "s3://bucket"},
		{[]string{"file:///x.parquet", "file:///t/y.parquet"}, 2, ""},
		{[]string{"s3://a/x.parquet", "gs://a/y.parquet"}, 2, ""},
	} {
		files := make([]replay.File, len(c.paths))
		for i, p := range c.paths {
			files[i].Path = p
		}
		n, under := unserved(files, func(p string) bool { return !strings.Contains(p, "://") })
		if n != c.n || under != c.under {
			t.Errorf("%q: %d under %q, want %d under %q", c.paths, n, under, c.n, c.under)
		}
	}
}
