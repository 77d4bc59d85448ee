package dvfilter

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
)

// testdataDir returns the shared real-table corpus: $DELTAFS_TESTDATA, or
// ../shared/testdata relative to the repository root. It skips the test
// when the corpus is missing.
func testdataDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("DELTAFS_TESTDATA")
	if dir == "" {
		root, err := filepath.Abs("..")
		if err != nil {
			t.Fatal(err)
		}
		for ; ; root = filepath.Dir(root) {
			if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
				break
			}
			if filepath.Dir(root) == root {
				t.Skip("repository root not found; set DELTAFS_TESTDATA")
			}
		}
		dir = filepath.Join(root, "..", "shared", "testdata")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real-table corpus not available at %s (set DELTAFS_TESTDATA): %v", dir, err)
	}
	return dir
}

// logDV is one deletion vector found in a table's JSON log.
type logDV struct {
	table   string // table root directory
	file    string // log file it came from
	dataKey string // add/remove path it belongs to
	dv      action.DeletionVector
}

// logDVs returns the deletion vectors of add and remove actions in the JSON
// log files of the table at root (or of every table under root when all).
func logDVs(t *testing.T, root string) []logDV {
	t.Helper()
	var out []logDV
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || filepath.Base(filepath.Dir(p)) != "_delta_log" || !strings.HasSuffix(p, ".json") ||
			strings.HasPrefix(d.Name(), "._") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var a struct {
				Add, Remove *struct {
					Path           string                 `json:"path"`
					DeletionVector *action.DeletionVector `json:"deletionVector"`
				}
			}
			if json.Unmarshal(sc.Bytes(), &a) != nil {
				continue
			}
			for _, f := range []*struct {
				Path           string                 `json:"path"`
				DeletionVector *action.DeletionVector `json:"deletionVector"`
			}{a.Add, a.Remove} {
				if f != nil && f.DeletionVector != nil {
					out = append(out, logDV{table: filepath.Dir(filepath.Dir(p)), file: p, dataKey: f.Path, dv: *f.DeletionVector})
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRealTableWithDVSmall(t *testing.T) {
	td := testdataDir(t)
	for _, table := range []string{"delta-rs/data/table-with-dv-small", "delta-kernel-rs/data/table-with-dv-small"} {
		t.Run(table, func(t *testing.T) {
			root := filepath.Join(td, table)
			dvs := logDVs(t, root)
			if len(dvs) != 1 {
				t.Fatalf("found %d DVs in the log, want 1", len(dvs))
			}
			v, err := Load(context.Background(), dirStorage{root}, &dvs[0].dv)
			if err != nil {
				t.Fatal(err)
			}
			if got := rowsOf(v); v.Cardinality() != 2 || !slices.Equal(got, []uint64{0, 9}) {
				t.Fatalf("deleted rows = %v, want [0 9]", got)
			}
		})
	}
}

func TestRealInlineDVs(t *testing.T) {
	// kernel-rs features/cdf.rs: v3 removes rows 0,1,4,5; v4 restores 1,4;
	// v5 restores 0,5 and removes 3. Written with the Rust z85 tail form.
	root := filepath.Join(testdataDir(t), "delta-kernel-rs/data/cdf-table-with-dv")
	want := map[int64][]uint64{4: {0, 1, 4, 5}, 2: {0, 5}, 1: {3}}
	seen := map[string]bool{}
	for _, d := range logDVs(t, root) {
		if d.dv.StorageType != "i" {
			continue
		}
		seen[d.dv.UniqueID()] = true
		v, err := Load(context.Background(), dirStorage{root}, &d.dv)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(d.file), err)
		}
		if got := rowsOf(v); !slices.Equal(got, want[d.dv.Cardinality]) {
			t.Fatalf("%s: rows %v, want %v", filepath.Base(d.file), got, want[d.dv.Cardinality])
		}
	}
	if len(seen) != 3 {
		t.Fatalf("decoded %d distinct inline DVs, want 3", len(seen))
	}
}

// TestRealCorpus loads every deletion vector named in any JSON log of the
// corpus. A DV file may legitimately be gone (vacuumed, or log-only tables),
// but one that exists must decode and match its descriptor.
func TestRealCorpus(t *testing.T) {
	td := testdataDir(t)
	loaded, missing := 0, 0
	seen := map[string]bool{}
	for _, d := range logDVs(t, td) {
		id := d.table + "|" + d.dv.UniqueID()
		if seen[id] {
			continue
		}
		seen[id] = true
		v, err := Load(context.Background(), dirStorage{d.table}, &d.dv)
		if errors.Is(err, fs.ErrNotExist) {
			missing++
			t.Logf("missing DV file: %v", err)
			continue
		}
		if err != nil {
			t.Errorf("%s (%s): %v", d.file, d.dataKey, err)
			continue
		}
		if v.Cardinality() != uint64(d.dv.Cardinality) {
			t.Errorf("%s: cardinality %d, want %d", d.file, v.Cardinality(), d.dv.Cardinality)
		}
		loaded++
	}
	t.Logf("loaded %d distinct DVs, %d files missing", loaded, missing)
	if loaded < 20 {
		t.Fatalf("only %d DVs loaded from the corpus", loaded)
	}
}
