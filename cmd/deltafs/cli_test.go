package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltafs/deltafs/versions"
	"github.com/spf13/pflag"
)

func testdata(t *testing.T, table string) string {
	t.Helper()
	dir := os.Getenv("DELTAFS_TESTDATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "testdata")
	}
	p := filepath.Join(dir, table)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("SKIPPING: shared table %s not found (set DELTAFS_TESTDATA): %v", p, err)
	}
	return p
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVersionsTruncatedHistory(t *testing.T) {
	code, out, errOut := runCLI("versions", testdata(t, "delta-rs/data/checkpoints_vacuumed"))
	if code != 0 || out != "5\n6\n7\n8\n9\n10\n11\n12\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestLsJSON(t *testing.T) {
	table := testdata(t, "delta-rs/data/table_with_deletion_logs")
	code, out, errOut := runCLI("ls", "--json", table)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var e map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &e); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	for _, k := range []string{"path", "size", "modificationTime", "partitionValues", "numRecords", "deletedRows"} {
		if _, ok := e[k]; !ok {
			t.Errorf("no %q in %v", k, e)
		}
	}
	if e["numRecords"] != 100.0 || e["deletedRows"] != 2.0 {
		t.Errorf("numRecords %v deletedRows %v, want 100 and 2", e["numRecords"], e["deletedRows"])
	}
	// An older version, and plain output.
	code, out, _ = runCLI("ls", "--version", "0", testdata(t, "delta-rs/data/simple_table"))
	if code != 0 || strings.Count(out, "\n") != 6 || !strings.Contains(out, ".parquet\n") {
		t.Errorf("ls --version 0: exit %d, %q", code, out)
	}
}

func TestLsPartitionValuesAndNullStats(t *testing.T) {
	code, out, errOut := runCLI("ls", "--json", testdata(t, "delta-rs/data/delta-0.8.0-null-partition"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"partitionValues":{"k":null}`) {
		t.Errorf("a null partition value should print as null: %s", out)
	}
}

func TestRefusedTablesExitNonZeroWithOneLine(t *testing.T) {
	for table, want := range map[string]string{
		"delta-rs/data/simple_table_features":                                              "blahabl",
		"delta-kernel-rs/golden_data/deltalog-invalid-protocol-version/delta":              "minReaderVersion 99",
		"delta-kernel-rs/golden_data/versions-not-contiguous/delta":                        "missing commit 1",
		"delta-kernel-rs/golden_data/deltalog-state-reconstruction-without-protocol/delta": "no protocol",
	} {
		code, out, errOut := runCLI("ls", testdata(t, table))
		if code == 0 || out != "" || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want a non-zero exit and one line naming %q", table, code, out, errOut, want)
		}
	}
	// versions lists what can be rebuilt, and notes why latest is not.
	code, out, errOut := runCLI("versions", testdata(t, "delta-kernel-rs/golden_data/versions-not-contiguous/delta"))
	if code != 0 || out != "0\n" || !strings.Contains(errOut, "note: v2, the newest version in the log, is not listed: version 2 cannot be rebuilt: missing commit 1") {
		t.Errorf("versions past a gap: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = runCLI("versions", t.TempDir())
	if code == 0 || !strings.Contains(errOut, "no Delta log") {
		t.Errorf("a folder without a log: exit %d, %q", code, errOut)
	}
	for dir, hint := range map[string]string{
		"_delta_log":      "not the log itself",
		"date=2024-01-01": "date=2024-01-01 looks like a partition folder: name the table's folder, above it",
	} {
		d := filepath.Join(t.TempDir(), dir)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if code, _, errOut = runCLI("versions", d); code == 0 || !strings.Contains(errOut, hint) {
			t.Errorf("versions of %s: exit %d, %q; want the hint %q", dir, code, errOut, hint)
		}
	}
	// The folder above tables: those among its folders are named (a link
	// to one is not followed).
	above := t.TempDir()
	for _, f := range []string{"events/delta/_delta_log/00000000000000000000.json", "events/other/x.bin", "two/a/_delta_log/00000000000000000000.checkpoint.parquet", "two/b/_delta_log/00000000000000000003.json"} {
		if err := os.MkdirAll(filepath.Join(above, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(above, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(above, "events/delta"), filepath.Join(above, "events/link")); err != nil {
		t.Fatal(err)
	}
	for dir, hint := range map[string]string{
		"events": "(a table lies one folder down: name file://" + above + "/events/delta)",
		"two":    "(tables lie one folder down: name one of file://" + above + "/two/a, file://" + above + "/two/b)",
	} {
		if code, _, errOut = runCLI("versions", filepath.Join(above, dir)); code == 0 || !strings.Contains(errOut, hint) {
			t.Errorf("versions of %s: exit %d, %q; want the hint %q", dir, code, errOut, hint)
		}
	}
	// A file of a table named for the table, and a file outside any.
	for file, hint := range map[string]string{
		filepath.Join(above, "events/delta/_delta_log/00000000000000000000.json"): "a file, not a table's folder: name the table it lies in, " + filepath.Join(above, "events/delta"),
		filepath.Join(above, "events/other/x.bin"):                                "a file, not a table's folder (the one holding _delta_log/)",
	} {
		if code, _, errOut = runCLI("versions", file); code == 0 || !strings.Contains(errOut, hint) {
			t.Errorf("versions of %s: exit %d, %q; want the hint %q", file, code, errOut, hint)
		}
	}
	code, _, errOut = runCLI("versions", filepath.Join(t.TempDir(), "nothing"))
	if code == 0 || !strings.Contains(errOut, "no such file") {
		t.Errorf("a missing folder: exit %d, %q", code, errOut)
	}
}

// TestHistory: history prints each version's instant by Delta's clock (this
// table has no in-commit timestamps: its commit files' modification times,
// made increasing), and --json also gives the commit's own timestamps.
func TestHistory(t *testing.T) {
	table := testdata(t, "delta-rs/data/simple_table")
	code, out, errOut := runCLI("history", table)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	info, err := os.Stat(filepath.Join(table, "_delta_log", "00000000000000000000.json"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || lines[0] != "0\t"+versions.FormatInstant(info.ModTime().UnixMilli())+"\tWRITE" {
		t.Errorf("history:\n%s", out)
	}
	code, out, _ = runCLI("history", "--json", table)
	if code != 0 || !strings.Contains(out, `"commitInfoTimestamp":1587968586154`) || !strings.Contains(out, `"instant":`) {
		t.Errorf("history --json: exit %d\n%s", code, out)
	}
}

// TestHistoryCommitGone: a version known only from its checkpoint has no
// operation nor counts to give; history says so rather than "" and 0.
func TestHistoryCommitGone(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(testdata(t, "delta-rs/data/checkpoints_vacuumed"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "_delta_log", "00000000000000000005.json")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("history", dir)
	if lines := strings.Split(out, "\n"); code != 0 || !strings.HasSuffix(lines[0], "\t(commit gone: known from its checkpoint)") ||
		!strings.HasSuffix(lines[1], "\tWRITE") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI("history", "--json", dir)
	lines := strings.Split(out, "\n")
	if code != 0 || strings.Contains(lines[0], `"added"`) || strings.Contains(lines[0], `"operation"`) ||
		!strings.Contains(lines[1], `"added":1,"removed":0`) {
		t.Errorf("history --json: exit %d\n%s", code, out)
	}
}

// TestHistoryQuotesControlCharacters: an operation a commit wrote with a
// newline or an escape is printed quoted, on its own line.
func TestHistoryQuotesControlCharacters(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755); err != nil {
		t.Fatal(err)
	}
	commit := `{"commitInfo":{"timestamp":1,"operation":"WRITE\n1\tforged\u001b[2J"}}
{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":[],"configuration":{}}}
`
	if err := os.WriteFile(filepath.Join(dir, "_delta_log", "00000000000000000000.json"), []byte(commit), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("history", dir)
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\t\"WRITE\\n1\\tforged\\x1b[2J\"\n") {
		t.Errorf("exit %d: %q %s", code, out, errOut)
	}
}

func TestUsage(t *testing.T) {
	if code, _, _ := runCLI(); code != 2 {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
	if code, _, errOut := runCLI("nope"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCLI("ls"); code != 2 {
		t.Errorf("ls without a table: exit %d, want 2", code)
	}
}

// TestMountTuningByLocation: object stores get large blocks, deep
// read-ahead and direct I/O by default; local tables the opposite; flags
// win over both, and bad values are refused.
func TestMountTuningByLocation(t *testing.T) {
	for _, c := range []struct {
		location, blockSize, directIO string
		readAhead                     int
		wantBlock                     int64
		wantAhead                     int
		wantDirect                    bool
	}{
		{"/data/t", "auto", "auto", -1, localBlockSize, localReadAhead, false},
		{"file:///data/t", "auto", "auto", -1, localBlockSize, localReadAhead, false},
		{"s3://bucket/t?region=x", "auto", "auto", -1, remoteBlockSize, remoteReadAhead, true},
		{"GS://bucket/t", "auto", "auto", -1, remoteBlockSize, remoteReadAhead, true},
		{"azblob://c/t", "8MiB", "off", 4, 8 << 20, 4, false},
		{"/data/t", "512KiB", "on", 0, 512 << 10, 0, true},
	} {
		f := mountFlags{blockSize: c.blockSize, readAhead: c.readAhead, directIO: c.directIO}
		bs, ra, err := f.readTuning(c.location)
		if err != nil || bs != c.wantBlock || ra != c.wantAhead {
			t.Errorf("%s: block %d, read-ahead %d, %v; want %d, %d", c.location, bs, ra, err, c.wantBlock, c.wantAhead)
		}
		if d, err := f.directIOFor(c.location); err != nil || d != c.wantDirect {
			t.Errorf("%s --direct-io %s: %v, %v; want %v", c.location, c.directIO, d, err, c.wantDirect)
		}
	}
	if _, err := (&mountFlags{directIO: "yes"}).directIOFor("/t"); err == nil {
		t.Error("--direct-io yes accepted")
	}
	if _, _, err := (&mountFlags{blockSize: "1KiB", readAhead: -1}).readTuning("/t"); err == nil {
		t.Error("--block-size 1KiB accepted")
	}
}

// TestLsJSONServedPath: `ls --json` gives where the mount serves each file
// (logical partition folders from the log) beside its stored path.
func TestLsJSONServedPath(t *testing.T) {
	code, out, errOut := runCLI("ls", "--json", testdata(t, "delta-rs/data/table_with_partitioning_mapping"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`"servedPath":"newid=2/part-00000-f4dfefa0-7ef5-4c48-a4a0-61a6d4f2f813.c000.snappy.parquet","path":"aL/part-00000-f4dfefa0-7ef5-4c48-a4a0-61a6d4f2f813.c000.snappy.parquet"`,
		`"servedPath":"newid=1/part-00000-d480fbfc-9bf7-406a-b3e9-e2e1a89a6073.c000.snappy.parquet","path":"id=1/part-00000-d480fbfc-9bf7-406a-b3e9-e2e1a89a6073.c000.snappy.parquet"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
}

// TestSchema: `deltafs schema` gives each column's logical path, physical
// name and id, partition columns marked, nested ones as paths.
func TestSchema(t *testing.T) {
	code, out, errOut := runCLI("schema", "--json", testdata(t, "delta-kernel-rs/golden_data/table-with-columnmapping-mode-name/delta"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`{"path":["nested_struct","ac","aca"],"type":"integer","nullable":true,"physicalName":"col-`,
		`{"path":["array_of_structs","element","ab"],"type":"long"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	code, out, _ = runCLI("schema", testdata(t, "delta-rs/data/table_with_partitioning_mapping"))
	if code != 0 || !strings.Contains(out, "newid\tinteger\tphysical id\tid 1\tpartition\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// --at as ls has it: an instant after the last commit is latest.
	// The version it resolved to is told on stderr.
	code, out, errOut = runCLI("schema", "--at", "2099-01-01", testdata(t, "delta-rs/data/simple_table"))
	if code != 0 || !strings.HasPrefix(out, "# v4, column mapping: none\n") || errOut != "deltafs: --at 2099-01-01 is version 4\n" {
		t.Errorf("schema --at 2099-01-01: exit %d, stderr %q:\n%s", code, errOut, out)
	}
	// A Databricks pipeline's first commit has a metaData action without a schema.
	code, _, errOut = runCLI("schema", "--version", "0", testdata(t, "delta-rs/data/delta-live-table"))
	if want := "deltafs schema: v0: schema: the metaData action has no schemaString"; code != 1 || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stderr %q, want 1 and %q", code, errOut, want)
	}
}

// TestDiff: diff lists the files added and removed between two versions,
// or the versions two instants resolve to, in path order.
func TestDiff(t *testing.T) {
	table := testdata(t, "delta-rs/data/simple_table")
	code, out, errOut := runCLI("diff", table, "0", "4")
	if code != 0 || strings.Count(out, "\n") != 11 || !strings.HasPrefix(out, "+ part-00000-2befed33") {
		t.Errorf("diff 0 4: exit %d, %q, stdout:\n%s", code, errOut, out)
	}
	code, out, _ = runCLI("diff", "--json", table, "3", "4")
	if code != 0 || !strings.Contains(out, `{"change":"removed","servedPath":"part-00000-f17fcbf5-e0dc-40ba-adae-ce66d1fcaef6-c000.snappy.parquet","path":"part-00000-f17fcbf5-e0dc-40ba-adae-ce66d1fcaef6-c000.snappy.parquet","size":429}`) {
		t.Errorf("diff --json 3 4: exit %d:\n%s", code, out)
	}
	// Where a mount serves it: the logical partition folder, not the stored one.
	code, out, _ = runCLI("diff", "--json", testdata(t, "delta-rs/data/table_with_partitioning_mapping"), "3", "4")
	if code != 0 || !strings.Contains(out, `"servedPath":"newid=2/part-00000-f4dfefa0-7ef5-4c48-a4a0-61a6d4f2f813.c000.snappy.parquet","path":"aL/part-00000-f4dfefa0`) {
		t.Errorf("diff --json 3 4 of a column-mapped partitioned table: exit %d:\n%s", code, out)
	}
	// The same version twice, by number and by an instant after the last commit.
	code, out, errOut = runCLI("diff", table, "4", "2099-01-01")
	if code != 0 || out != "" {
		t.Errorf("diff 4 2099-01-01: exit %d, %q, %q", code, out, errOut)
	}
	// A file whose deletion vector changed is removed and added, said so.
	code, out, _ = runCLI("diff", testdata(t, "delta-rs/data/table-with-dv-small"), "0", "1")
	if code != 0 || strings.Count(out, "\t(its deletion vector changed)\n") != 2 || !strings.HasPrefix(out, "- part-00000-fae5310a") {
		t.Errorf("diff of a new deletion vector: exit %d:\n%s", code, out)
	}
	// An instant before the table names the first one that resolves.
	code, _, errOut = runCLI("diff", table, "1999-01-01", "4")
	if code != 1 || !strings.Contains(errOut, "1999-01-01: before the first version that can be rebuilt (v0, at ") {
		t.Errorf("diff 1999-01-01 4: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI("diff", table, "4", "soon")
	if code != 2 || !strings.Contains(errOut, `"soon" is neither a version`) {
		t.Errorf("diff 4 soon: exit %d, %q", code, errOut)
	}
}

// TestFlagValuesRefused: flag values that parse but mean nothing, or that
// would only burn CPU, are command-line mistakes (exit 2, one line),
// found before anything is opened or mounted.
func TestFlagValuesRefused(t *testing.T) {
	table, mnt := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mount", "--refresh", "1ns", table, mnt}, "--refresh 1ns: want 100ms or more, or 0"},
		{[]string{"mount", "--cache-mb", "-1", table, mnt}, "--cache-mb -1"},
		{[]string{"mount", "--snapshot-cache-mb", "0", table, mnt}, "--snapshot-cache-mb 0: want 1 or more"},
		{[]string{"mount", "--dv-cache-mb", "0", table, mnt}, "--dv-cache-mb 0: want 1 or more"},
		{[]string{"mount", "--cache-mb", "9223372036854775807", table, mnt}, "--cache-mb 9223372036854775807: want at most 268435456 (256 TiB"},
		{[]string{"mount", "--dv-cache-mb", "268435457", table, mnt}, "--dv-cache-mb 268435457: want at most 268435456"},
		{[]string{"mount", "--snapshot-cache-mb", "17592186044416", table, mnt}, "--snapshot-cache-mb 17592186044416: want at most 268435456"},
		{[]string{"mount", "--read-ahead", "-5", table, mnt}, `invalid argument "-5" for "--read-ahead" flag: want 0 or more, or auto`},
		{[]string{"mount", "--block-size", "garbage", table, mnt}, `--block-size: "garbage" is not a size`},
		{[]string{"mount", "--direct-io", "maybe", table, mnt}, `--direct-io "maybe"`},
		{[]string{"mount", "--cache-dir", filepath.Join(table, "nope"), table, mnt}, "not a directory"},
		{[]string{"doctor", "--latency", "-5ms", table}, "--latency -5ms: want 0 or more"},
		{[]string{"ls", "--at", "", table}, "--at: instant"},
		{[]string{"schema", "--at", "2024-01-05", "--version", "1", table}, "--at and --version: one or the other"},
		{[]string{"ls", "--json", "false", table}, "a yes/no flag takes its value after '='"},
		{[]string{"diff", table, "-1", "2"}, "-1: versions are 0 or more"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, %q; want exit 2 and one line with %q", c.args, code, errOut, c.want)
		}
	}
	// The ceiling itself is taken, and its bytes fit the memory limit's sum.
	fs := pflag.NewFlagSet("mount", pflag.ContinueOnError)
	var mf mountFlags
	mf.register(fs)
	if err := fs.Parse([]string{"--cache-mb=268435456", "--dv-cache-mb=268435456", "--snapshot-cache-mb=268435456"}); err != nil {
		t.Fatal(err)
	}
	if err := mf.check(fs, io.Discard); err != nil || mf.cacheBytes() != 1<<48 {
		t.Errorf("--cache-mb 268435456: %v, %d bytes", err, mf.cacheBytes())
	}
	f := mountFlags{refresh: 0, cacheMiB: 0}
	if f.refreshInterval() >= 0 || f.cacheBytes() >= 0 {
		t.Error("--refresh 0 and --cache-mb 0 are not never and off")
	}
}
