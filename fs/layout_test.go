package fs

import (
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

func partitionOf(values ...replay.PartitionValue) *replay.Partition {
	return &replay.Partition{Values: values}
}

// TestLogicalPartitionFolders: under the logical layout a partitioned
// table's files sit under <column>=<value>/ folders built from the log
// (in partitionColumns order, escaped as Spark escapes them, nulls as
// __HIVE_DEFAULT_PARTITION__), whatever their stored folders; a file
// keeps its base name and a clash gets a hash of its stored path; the
// bytes are the stored file's; user.delta.path names the stored file.
func TestLogicalPartitionFolders(t *testing.T) {
	tbl := newFakeTable(t)
	tbl.logical = true
	tbl.metadata = action.Metadata{
		SchemaString:     `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"b","type":"string","nullable":true,"metadata":{}},{"name":"a","type":"string","nullable":true,"metadata":{}}]}`,
		PartitionColumns: []string{"b", "a"},
	}
	pv := func(col, v string) replay.PartitionValue { return replay.PartitionValue{Column: col, Value: v} }
	null := func(col string) replay.PartitionValue { return replay.PartitionValue{Column: col, Null: true} }
	tbl.addVersion(t, "WRITE", []fakeFile{
		{path: "Xy/part-0.parquet", size: 100, modTime: mtime0, part: partitionOf(pv("a", "1"), pv("b", "x/y=z%"))},
		{path: "b=wrong/a=9/part-1.parquet", size: 101, modTime: mtime0, part: partitionOf(pv("a", "2"), pv("b", "é ü"))},
		{path: "part-2.parquet", size: 102, modTime: mtime0, part: partitionOf(null("a"), pv("b", ""))},
		{path: "Zq/part-2.parquet", size: 103, modTime: mtime0, part: partitionOf(null("a"), null("b"))},
	}, true)
	m := mountFake(t, tbl, Options{})
	for dir, want := range map[string]string{
		"v/0":                    "b=__HIVE_DEFAULT_PARTITION__ b=x%2Fy%3Dz%25 b=é ü",
		"v/0/b=x%2Fy%3Dz%25":     "a=1",
		"v/0/b=x%2Fy%3Dz%25/a=1": "part-0.parquet",
		"v/0/b=é ü/a=2":          "part-1.parquet",
		"v/0/b=__HIVE_DEFAULT_PARTITION__/a=__HIVE_DEFAULT_PARTITION__": "part-2-" + clashHash("part-2.parquet") + ".parquet part-2.parquet",
	} {
		if got := names(t, m.path(dir)); got != want {
			t.Errorf("ls %s = %q, want %q", dir, got, want)
		}
	}
	p := m.path("v/0/b=x%2Fy%3Dz%25/a=1/part-0.parquet")
	got, err := os.ReadFile(p)
	if err != nil || string(got) != string(tbl.contents["Xy/part-0.parquet"]) {
		t.Errorf("read %s: %d bytes, %v", p, len(got), err)
	}
	if v, err := getxattr(t, p, "user.delta.path"); err != nil || v != "Xy/part-0.parquet" {
		t.Errorf("user.delta.path = %q, %v", v, err)
	}
	// The file whose stored path sorts first keeps the name.
	clash := m.path("v/0/b=__HIVE_DEFAULT_PARTITION__/a=__HIVE_DEFAULT_PARTITION__/part-2.parquet")
	if v, err := getxattr(t, clash, "user.delta.path"); err != nil || v != "Zq/part-2.parquet" {
		t.Errorf("user.delta.path of the clash = %q, %v", v, err)
	}
}

// clashHash is the suffix a clashing file gets: FNV-1a (32 bits) of its
// stored path.
func clashHash(stored string) string {
	h := fnv.New32a()
	h.Write([]byte(stored))
	return fmt.Sprintf("%08x", h.Sum32())
}

// TestOverlongNameIsHiddenNotFatal: a file whose name has an element
// longer than 255 bytes (which no file system can list) is left out of its
// directory with a log line; the rest of the directory lists and reads.
func TestOverlongNameIsHiddenNotFatal(t *testing.T) {
	tbl := newFakeTable(t)
	long := strings.Repeat("x", 300) + ".parquet"
	tbl.addVersion(t, "WRITE", []fakeFile{
		{path: "a.parquet", size: 10, modTime: mtime0},
		{path: "d/" + long, size: 10, modTime: mtime0, missing: true},
		{path: "d/b.parquet", size: 10, modTime: mtime0},
	}, true)
	m := mountFake(t, tbl, Options{})
	if got := names(t, m.path("v/0/d")); got != "b.parquet" {
		t.Errorf("ls v/0/d = %q, want b.parquet", got)
	}
	if got := names(t, m.path("v/0")); got != "a.parquet d" {
		t.Errorf("ls v/0 = %q", got)
	}
	if !strings.Contains(m.logs.String(), "longer than 255 bytes") {
		t.Errorf("no log line; log:\n%s", m.logs.String())
	}
}

// TestHiddenFilesLoggedInBrief: a tree leaving out many files (a shallow
// clone's, mounted without --allow-external) names the first few in the
// log and counts the rest.
func TestHiddenFilesLoggedInBrief(t *testing.T) {
	tbl := newFakeTable(t)
	files := []fakeFile{{path: "own.parquet", size: 10, modTime: mtime0}}
	for i := range 5 {
		files = append(files, fakeFile{path: fmt.Sprintf("file:///src/part-%d.parquet", i), size: 10, modTime: mtime0, missing: true})
	}
	tbl.addVersion(t, "WRITE", files, true)
	m := mountFake(t, tbl, Options{})
	if got := names(t, m.path("v/0")); got != "own.parquet" {
		t.Errorf("ls v/0 = %q, want own.parquet", got)
	}
	logs := m.logs.String()
	if strings.Count(logs, "it lies outside the table root") != 3 || !strings.Contains(logs, "v0: not shown: 2 more files") {
		t.Errorf("want 3 files named and 2 more counted; log:\n%s", logs)
	}
}
