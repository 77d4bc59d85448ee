package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// runDemo writes a small sample table, mounts it and says what to try.
//
//	deltafs demo [DIR [MOUNTPOINT]]
//
// The table goes to DIR/table (DIR defaults to a new temp dir, removed on
// exit) and is mounted at DIR/mnt unless MOUNTPOINT is given, through the
// same code as `deltafs mount`. A DIR that already holds the sample table is
// reused as it is.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	surviveClosedOutput()
	flags := pflag.NewFlagSet("demo", pflag.ContinueOnError)
	var mf mountFlags
	mf.register(flags)
	if err := parseFlags(flags, args, "[DIR [MOUNTPOINT]]", 0, 2, stdout, stderr); err != nil {
		return err
	}
	if err := mf.check(flags, stderr); err != nil {
		return err
	}
	if !flags.Changed("xattrs") {
		mf.xattrs = true // the tour shows them; the table is small
	}

	dir, temp := flags.Arg(0), false
	if dir == "" {
		d, err := os.MkdirTemp("", "deltafs-demo-")
		if err != nil {
			return err
		}
		dir, temp = d, true
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	table := filepath.Join(dir, "table")
	mnt := filepath.Join(dir, "mnt")
	if flags.Arg(1) != "" {
		if mnt, err = filepath.Abs(flags.Arg(1)); err != nil {
			return err
		}
	}

	if _, err := os.Stat(filepath.Join(table, "_delta_log")); err == nil {
		fmt.Fprintf(stdout, "using the sample table already in %s\n", table)
	} else {
		summary, err := writeDemoTable(table)
		if err != nil {
			return fmt.Errorf("write the sample table: %w", err)
		}
		fmt.Fprintf(stdout, "wrote a sample Delta table to %s:\n%s", table, summary)
	}
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		return err
	}

	out := &tourWriter{w: stdout, tour: demoTour(mnt)}
	err = mountAndServe(ctx, table, mnt, mf, out, stderr)
	if temp && err == nil {
		if rmErr := os.RemoveAll(dir); rmErr != nil {
			fmt.Fprintf(stderr, "deltafs demo: remove %s: %v\n", dir, rmErr)
		}
	}
	return err
}

// demoCommit is one version of the sample table.
type demoCommit struct {
	op     string
	add    []demoFile
	remove []string // paths of files added earlier
}

type demoFile struct {
	path, date string
	rows       int
}

// demoCommits is the sample table's history: partitioned appends, a delete
// that removes a whole file (it stays on disk, but not in the table), and a
// compaction that replaces two files with one.
var demoCommits = []demoCommit{
	{op: "CREATE TABLE AS SELECT", add: []demoFile{
		{"date=2024-01-01/part-00000.parquet", "2024-01-01", 1000},
		{"date=2024-01-02/part-00000.parquet", "2024-01-02", 1500},
	}},
	{op: "WRITE", add: []demoFile{{"date=2024-01-03/part-00000.parquet", "2024-01-03", 800}}},
	{op: "WRITE", add: []demoFile{{"date=2024-01-03/part-00001.parquet", "2024-01-03", 700}}},
	{op: "DELETE", remove: []string{"date=2024-01-01/part-00000.parquet"}},
	{op: "WRITE", add: []demoFile{{"date=2024-01-04/part-00000.parquet", "2024-01-04", 1200}}},
	{op: "OPTIMIZE", add: []demoFile{{"date=2024-01-03/part-00002.parquet", "2024-01-03", 1500}},
		remove: []string{"date=2024-01-03/part-00000.parquet", "date=2024-01-03/part-00001.parquet"}},
}

// demoCheckpoint is the version checkpointed (with _last_checkpoint), so the
// newest versions are rebuilt from a checkpoint plus the commits after it.
const demoCheckpoint = 3

// writeDemoTable writes the sample table with tests/deltagen and returns a
// one-line-per-version summary.
func writeDemoTable(dir string) (string, error) {
	t := deltagen.New(dir)
	start := time.Date(2024, 1, 5, 9, 0, 0, 0, time.UTC)
	var summary strings.Builder
	for i, c := range demoCommits {
		ts := start.Add(time.Duration(i) * 37 * time.Minute).UnixMilli()
		actions := []action.Action{deltagen.CommitInfo(c.op, ts)}
		if i == 0 {
			actions = append(actions,
				deltagen.Protocol(1, 2, nil, nil),
				deltagen.Metadata(deltagen.PartitionedSchema, []string{"date"}, nil))
		}
		for _, f := range c.add {
			a, err := t.DataFileAdd(f.path, f.rows, 2, map[string]*string{"date": deltagen.Str(f.date)})
			if err != nil {
				return "", err
			}
			actions = append(actions, a)
		}
		for _, p := range c.remove {
			actions = append(actions, deltagen.Remove(deltagen.EncodePath(p), ts))
		}
		v, err := t.Commit(actions...)
		if err != nil {
			return "", err
		}
		// The commit file's time is the commit's instant by Delta's clock
		// (at/): the same as its commitInfo, as a writer at that time leaves.
		when := time.UnixMilli(ts)
		if err := os.Chtimes(filepath.Join(dir, replay.CommitKey(v)), when, when); err != nil {
			return "", err
		}
		fmt.Fprintf(&summary, "  v%d %-22s", v, c.op)
		for _, f := range c.add {
			fmt.Fprintf(&summary, " +%s", f.path)
		}
		for _, p := range c.remove {
			fmt.Fprintf(&summary, " -%s", p)
		}
		summary.WriteByte('\n')
		if v == demoCheckpoint {
			info, err := t.Checkpoint(v)
			if err != nil {
				return "", err
			}
			if err := t.WriteLastCheckpointFor(info); err != nil {
				return "", err
			}
			fmt.Fprintf(&summary, "     checkpoint at v%d (_delta_log/%020d.checkpoint.parquet)\n", v, v)
		}
	}
	return summary.String(), nil
}

// demoTour is what to try once the demo table is mounted at mnt.
func demoTour(mnt string) string {
	// `make demo` names the Python it prepared (pyarrow, DuckDB); run
	// from a checkout that has the test venv, that one does too.
	py := os.Getenv("DELTAFS_DEMO_PYTHON")
	if _, err := os.Stat(".venv/bin/python"); py == "" && err == nil {
		py = ".venv/bin/python"
	}
	needs := ""
	if py == "" {
		py, needs = "python3", "  (the last two need pyarrow and duckdb: `make demo` installs them and runs this demo with them)\n"
	}
	return fmt.Sprintf(`
Try, in another terminal:
  ls -l %[1]s/latest/                 the newest version's live files
  readlink %[1]s/latest               latest -> v/N; moves when new commits land
  ls %[1]s/v/                         every version that can be rebuilt
  find %[1]s/v/0 -type f              version 0, before the DELETE
  cat %[1]s/history.jsonl             one line per version
  ls %[1]s/at/                        versions by commit instant; at/2024-01-05T10:00:00Z is v/1
  find %[1]s/changes/5                what v5 (OPTIMIZE) added and removed
  getfattr -d %[1]s/latest/date=2024-01-02/part-00000.parquet     user.delta.* attributes (apt-get install attr)
  %[2]s -c "import pyarrow.dataset as ds; print(ds.dataset('%[3]s/latest', format='parquet', partitioning='hive').to_table().num_rows)"
  %[2]s -c "import duckdb; duckdb.sql(\"select date, count(*) from read_parquet('%[3]s/latest/**/*.parquet', hive_partitioning=true) group by date order by date\").show()"
%[4]sReplace latest with v/0 in any of these to see the table as it was at version 0.
Press Ctrl-C to unmount and exit.
`, shellQuote(mnt), py, mnt, needs)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	safe := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tourWriter passes output through and, right after the mount's "ready"
// line, prints the tour once.
type tourWriter struct {
	w    io.Writer
	tour string
	once sync.Once
}

func (t *tourWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err == nil && strings.HasPrefix(string(p), "ready:") {
		t.once.Do(func() { _, err = io.WriteString(t.w, t.tour) })
	}
	return n, err
}
