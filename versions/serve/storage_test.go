package serve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deltafs/deltafs/blobstore"
)

// TestStoreStorageElsewhere: a file outside the table root is read only
// where its URI lies under a location allowed (Elsewhere), whatever its
// spelling; a sibling whose name starts alike, a path climbing out (plain
// or escaped) and another scheme are refused.
func TestStoreStorageElsewhere(t *testing.T) {
	base := t.TempDir()
	for _, f := range []string{"table/own.parquet", "src/a.parquet", "src-x/b.parquet"} {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	open := func(dir string) *blobstore.Store {
		st, err := blobstore.Open(t.Context(), filepath.Join(base, dir))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	s := StoreStorage{Store: open("table"), Elsewhere: []*blobstore.Store{open("src")}}
	for path, want := range map[string]string{
		"own.parquet":                                    "table/own.parquet",
		"file://" + base + "/src/a.parquet":              "src/a.parquet",
		"file://" + base + "/src-x/b.parquet":            "",
		"file://" + base + "/src/../src-x/b.parquet":     "",
		"file://" + base + "/src/%2E%2E/src-x/b.parquet": "",
		"s3://src/a.parquet":                             "",
	} {
		got, err := s.ReadRange(t.Context(), path, 0, 100)
		if string(got) != want || (err != nil) != (want == "") {
			t.Errorf("%s: read %q, %v; want %q", path, got, err, want)
		}
		if s.Serves(path) != (want != "") {
			t.Errorf("%s: Serves %v", path, !s.Serves(path))
		}
	}
}
