package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestdataDir is the shared real tables: $DELTAFS_TESTDATA, else
// ../shared/testdata beside the repository.
func TestdataDir(t testing.TB) string {
	dir := os.Getenv("DELTAFS_TESTDATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "testdata")
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		if _, err = os.Stat(filepath.Join(abs, "inventory.jsonl")); err == nil {
			return abs
		}
	}
	t.Skipf("SKIPPING: shared test tables not found at %s (set DELTAFS_TESTDATA): %v", dir, err)
	return ""
}

// Expect is the oracle's count for one version.
type Expect struct {
	Version int64
	Files   int
	Rows    int64 // -1: unknown (data files absent)
}

// InventoryTable is one line of inventory.jsonl, the fields tests use.
type InventoryTable struct {
	Table            string   `json:"table"`
	PerVersion       []string `json:"per_version"`
	LatestVersion    int64    `json:"latest_version"`
	MissingDataFiles int      `json:"missing_data_files"`
	MissingDVFiles   int      `json:"missing_dv_files"`
	ColumnMapping    string   `json:"column_mapping"`
	Expects          []Expect `json:"-"`
}

// LoadInventory reads inventory.jsonl and parses its per-version counts.
func LoadInventory(t testing.TB, dir string) []InventoryTable {
	f, err := os.Open(filepath.Join(dir, "inventory.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []InventoryTable
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var it InventoryTable
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatalf("inventory.jsonl: %v", err)
		}
		for _, pv := range it.PerVersion {
			e, err := parsePerVersion(pv)
			if err != nil {
				t.Fatalf("inventory %s: %v", it.Table, err)
			}
			it.Expects = append(it.Expects, e)
		}
		out = append(out, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// parsePerVersion parses "v12:5f/40r" ("-1r" or "?r": rows unknown).
func parsePerVersion(s string) (Expect, error) {
	v, rest, ok1 := strings.Cut(strings.TrimPrefix(s, "v"), ":")
	files, rows, ok2 := strings.Cut(rest, "f/")
	if !ok1 || !ok2 || !strings.HasSuffix(rows, "r") {
		return Expect{}, fmt.Errorf("bad per_version entry %q", s)
	}
	e := Expect{Rows: -1}
	var err error
	if e.Version, err = strconv.ParseInt(v, 10, 64); err != nil {
		return Expect{}, fmt.Errorf("bad per_version entry %q", s)
	}
	if e.Files, err = strconv.Atoi(files); err != nil {
		return Expect{}, fmt.Errorf("bad per_version entry %q", s)
	}
	if n, err := strconv.ParseInt(strings.TrimSuffix(rows, "r"), 10, 64); err == nil {
		e.Rows = n
	}
	return e, nil
}

// NegativeTables are the tables INVENTORY.md marks NEGATIVE: a reader must
// refuse their latest version.
func NegativeTables(t testing.TB, dir string) map[string]bool {
	data, err := os.ReadFile(filepath.Join(dir, "INVENTORY.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "NEGATIVE") {
			out[strings.TrimSpace(strings.Split(line, "|")[1])] = true
		}
	}
	return out
}
