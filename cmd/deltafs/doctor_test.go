package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// doctorJSON runs `deltafs doctor --json` on a table whose log is all
// there is (no data files: not checked) and decodes its one object.
func doctorJSON(t *testing.T, table string) *doctorReport {
	t.Helper()
	return doctorJSONOf(t, "--files=false", table)
}

// doctorJSONOf runs `deltafs doctor --json` with args, which must exit
// 0, and decodes its one object.
func doctorJSONOf(t *testing.T, args ...string) *doctorReport {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"doctor", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("doctor %v: exit %d: %s", args, code, errOut)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("want one JSON line, got %q", out)
	}
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	return &r
}

// level returns the level of the named finding ("" when absent).
func level(r *doctorReport, check string) string {
	for _, f := range r.Findings {
		if f.Check == check {
			if f.Advice == "" {
				return "no advice"
			}
			return f.Level
		}
	}
	return ""
}

func TestDoctorMissingHint(t *testing.T) {
	r := doctorJSON(t, testdata(t, "delta-rs/data/checkpoints_vacuumed"))
	if r.LatestVersion != 12 || r.Checkpoint == nil || r.Checkpoint.Version != 10 || r.Checkpoint.Kind != "classic" || r.CommitsSinceCheckpoint != 2 {
		t.Errorf("latest %d, checkpoint %+v, %d commits since", r.LatestVersion, r.Checkpoint, r.CommitsSinceCheckpoint)
	}
	if r.LastCheckpoint != "missing" || level(r, "_last_checkpoint") != "warn" {
		t.Errorf("_last_checkpoint %q (%s), want missing, warned", r.LastCheckpoint, level(r, "_last_checkpoint"))
	}
	if r.Open.RoundTrips < 1 || r.Open.RoundTrips > 6 || r.Open.Requests < r.Open.RoundTrips || r.Open.Bytes == 0 {
		t.Errorf("open cost %+v", r.Open)
	}
	if r.LogObjects < r.LogCommits+r.LogCheckpointFiles || r.LogCommits == 0 {
		t.Errorf("log: %d objects, %d commits, %d checkpoint files", r.LogObjects, r.LogCommits, r.LogCheckpointFiles)
	}
	if !r.Retention.Valid || r.Retention.LogRetentionDays != 30 || r.Retention.DeletedFileDays != 7 {
		t.Errorf("retention %+v, want the defaults, valid", r.Retention)
	}
}

// A _last_checkpoint that is a folder is reported, with why, not refused.
func TestDoctorUnreadableHint(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	if _, err := gen.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(gen.LastCheckpointPath(), 0o755); err != nil {
		t.Fatal(err)
	}
	r := doctorJSON(t, dir)
	if r.LastCheckpoint != "corrupt" || !strings.Contains(r.LastCheckpointProblem, "not a regular file") || level(r, "_last_checkpoint") != "warn" {
		t.Errorf("_last_checkpoint %q (%s), problem %q; want corrupt, warned, not a regular file", r.LastCheckpoint, level(r, "_last_checkpoint"), r.LastCheckpointProblem)
	}
}

func TestDoctorStaleHint(t *testing.T) {
	r := doctorJSON(t, testdata(t, "delta-rs/data/table_failed_last_checkpoint_update"))
	if r.LastCheckpoint != "stale" || r.LastCheckpointVersion != 1 || r.Checkpoint == nil || r.Checkpoint.Version != 3 {
		t.Errorf("_last_checkpoint %q at v%d, checkpoint %+v; want stale at v1, checkpoint 3", r.LastCheckpoint, r.LastCheckpointVersion, r.Checkpoint)
	}
	if level(r, "_last_checkpoint") != "warn" || level(r, "checkpoint") != "ok" {
		t.Errorf("findings %+v", r.Findings)
	}
}

// TestDoctorGeneratedTable: checkpoints that stopped, a corrupt hint,
// small files, tombstones, an invalid retention pair, a set interval.
func TestDoctorGeneratedTable(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	conf := map[string]string{
		"delta.checkpointInterval":           "5",
		"delta.logRetentionDuration":         "interval 2 days",
		"delta.deletedFileRetentionDuration": "interval 1 week",
	}
	var adds []action.Action
	for i := range 150 {
		adds = append(adds, deltagen.AddFile(fmt.Sprintf("part-%03d.parquet", i), 4096, 1, nil, ""))
	}
	if _, err := gen.Commit(append([]action.Action{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, conf)}, adds...)...); err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Checkpoint(0); err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		if _, err := gen.Commit(deltagen.Remove(fmt.Sprintf("part-%03d.parquet", i), 2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := gen.WriteCorruptLastCheckpoint(); err != nil {
		t.Fatal(err)
	}
	r := doctorJSON(t, dir)
	if r.LatestVersion != 12 || r.Checkpoint == nil || r.Checkpoint.Version != 0 || r.CommitsSinceCheckpoint != 12 || r.CheckpointInterval != 5 {
		t.Errorf("latest %d, checkpoint %+v, %d commits since, interval %d", r.LatestVersion, r.Checkpoint, r.CommitsSinceCheckpoint, r.CheckpointInterval)
	}
	if r.LiveFiles != 138 || r.Tombstones != 12 || r.AverageFileSize != 4096 || r.LiveBytes != 138*4096 {
		t.Errorf("%d live files (%d bytes, %d on average), %d tombstones", r.LiveFiles, r.LiveBytes, r.AverageFileSize, r.Tombstones)
	}
	if r.LastCheckpoint != "corrupt" || r.Retention.Valid || r.Retention.Problem == "" {
		t.Errorf("_last_checkpoint %q, retention %+v", r.LastCheckpoint, r.Retention)
	}
	for check, want := range map[string]string{"checkpoint": "warn", "_last_checkpoint": "warn", "file size": "warn", "tombstones": "ok", "retention": "warn", "log size": "ok"} {
		if got := level(r, check); got != want {
			t.Errorf("finding %q: %q, want %q", check, got, want)
		}
	}

	// The text report shows each warning with its advice.
	code, out, errOut := runCLI("doctor", "--files=false", dir)
	if code != 0 || !strings.Contains(out, "latest       v12") || strings.Count(out, "-> ") != 4 {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}

// TestDoctorRoundTripsFromOutside: --json reports the round trips of the
// cold open, the figure the cost model budgets: 3 for a checkpointed table
// with a valid hint, and --latency makes the time follow.
func TestDoctorRoundTripsFromOutside(t *testing.T) {
	dir := t.TempDir()
	if _, err := deltagen.WriteBenchTable(dir, deltagen.BenchOptions{Files: 500, Partitions: 5, CheckpointVersion: 100, TailCommits: 9}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("doctor", "--json", "--files=false", "--latency", "10ms", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Open.RoundTrips != 3 || r.Open.Requests != 12 || r.Open.LatencyMs != 10 {
		t.Errorf("open %+v, want 3 round trips and 12 requests at 10ms", r.Open)
	}
	if min := 3 * 10.0; r.Open.Millis < min {
		t.Errorf("open took %.1f ms, at least %.0f with 3 round trips of 10ms", r.Open.Millis, min)
	}
	if r.LastCheckpoint != "valid" || r.CommitsSinceCheckpoint != 9 || r.LiveFiles != 500 {
		t.Errorf("hint %q, %d commits since, %d files", r.LastCheckpoint, r.CommitsSinceCheckpoint, r.LiveFiles)
	}
}

func TestDoctorCannotOpen(t *testing.T) {
	code, out, errOut := runCLI("doctor", filepath.Join(t.TempDir(), "nothing"))
	if code == 0 || out != "" || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q: want non-zero and one line", code, out, errOut)
	}
}

func TestParseInterval(t *testing.T) {
	day := 24 * time.Hour
	for in, want := range map[string]time.Duration{
		"interval 30 days": 30 * day, "interval 1 week": 7 * day, "INTERVAL 1 Day": day,
		"2 hours": 2 * time.Hour, "interval 1 week 12 hours": 7*day + 12*time.Hour, "interval 0 seconds": 0,
	} {
		if got, err := parseInterval(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "interval", "30", "interval 1 month", "interval x days", "interval -1 days", "7d"} {
		if _, err := parseInterval(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// TestDoctorDataFiles: doctor stats the live data files and loads their
// deletion vectors: a missing file, one of another size, a symbolic link,
// a vector that does not load and a negative size are errors (exit 1,
// each counted, examples named); a file outside the root is a warning; a
// size near 2^63 does not overflow the total.
func TestDoctorDataFiles(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	if _, err := gen.Commit(deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)); err != nil {
		t.Fatal(err)
	}
	var adds []action.Action
	for _, name := range []string{"good.parquet", "gone.parquet", "resized.parquet", "link.parquet", "badvec.parquet"} {
		a, err := gen.DataFileAdd(name, 10, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		adds = append(adds, a)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Remove(filepath.Join(dir, "gone.parquet")))
	adds[2].Add.Size++
	must(os.Remove(filepath.Join(dir, "link.parquet")))
	must(os.Symlink("good.parquet", filepath.Join(dir, "link.parquet")))
	dvs, err := gen.WriteDVFile("", []uint64{1})
	must(err)
	bad := dvs[0]
	bad.Cardinality = 5 // the file holds 1 row
	adds[4].Add.DeletionVector = &bad
	huge := deltagen.AddFile("huge.parquet", math.MaxInt64-1, 1, nil, "")
	neg := deltagen.AddFile("neg.parquet", -1, 1, nil, "")
	ext := deltagen.AddFile("s3://elsewhere/x.parquet", 10, 1, nil, "")
	_, err = gen.Commit(append(adds, huge, neg, ext)...)
	must(err)

	code, out, errOut := runCLI("doctor", "--json", dir)
	if code != 1 || !strings.Contains(errOut, "cannot be served as the log says") {
		t.Fatalf("exit %d, stderr %q; want 1 and a line saying why", code, errOut)
	}
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	f := r.Files
	// huge.parquet is missing too.
	if f.Checked != 6 || f.Missing != 2 || f.WrongSize != 1 || f.Unreadable != 1 || f.BadVectors != 1 || f.NegativeSizes != 1 || f.External != 1 || f.Sampled {
		t.Errorf("files %+v", f)
	}
	if r.LiveBytes <= 0 {
		t.Errorf("live bytes %d: the total overflowed", r.LiveBytes)
	}
	if level(&r, "data files") != "error" || level(&r, "external files") != "warn" {
		t.Errorf("findings %+v", r.Findings)
	}
	code, out, _ = runCLI("doctor", dir)
	if code != 1 || !strings.Contains(out, "error data files") || !strings.Contains(out, "gone.parquet: missing from storage") {
		t.Errorf("text report, exit %d:\n%s", code, out)
	}
}

// TestDoctorNotShown: a live file whose partition folder's name would be
// longer than 255 bytes cannot be shown by a mount; doctor says so, as an
// error (readers of the mount miss its rows).
func TestDoctorNotShown(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	if _, err := gen.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, []string{"value"}, nil)); err != nil {
		t.Fatal(err)
	}
	long, short := strings.Repeat("é", 130), "x"
	var adds []action.Action
	for i, v := range []*string{&short, &long} {
		a, err := gen.DataFileAdd(fmt.Sprintf("part-%d.parquet", i), 10, 1, map[string]*string{"value": v})
		if err != nil {
			t.Fatal(err)
		}
		adds = append(adds, a)
	}
	if _, err := gen.Commit(adds...); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI("doctor", "--json", dir)
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if code != 1 || level(&r, "served names") != "error" || len(r.NotShown) != 1 || !strings.HasPrefix(r.NotShown[0], "part-1.parquet: ") {
		t.Errorf("exit %d, not shown %q, findings %+v", code, r.NotShown, r.Findings)
	}
}

// TestDoctorBrokenLog: a health check reports damage rather than failing
// as a reader does: a commit missing in the middle of the log (a warning;
// with the latest version past it unbuildable, an error and exit 1, after
// the report), and a checkpoint that cannot be read (latest rebuilt
// without it).
func TestDoctorBrokenLog(t *testing.T) {
	write := func(t *testing.T, commits int) (string, *deltagen.Table) {
		dir := t.TempDir()
		gen := deltagen.New(dir)
		if _, err := gen.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < commits; i++ {
			if _, err := gen.Commit(deltagen.AddFile(fmt.Sprintf("part-%d.parquet", i), 10, 1, nil, "")); err != nil {
				t.Fatal(err)
			}
		}
		return dir, gen
	}
	commit := func(dir string, v int) string {
		return filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", v))
	}

	dir, _ := write(t, 4)
	if err := os.Remove(commit(dir, 2)); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("doctor", "--json", "--files=false", dir)
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 1 || !strings.Contains(errOut, "v3: version 3 cannot be rebuilt: missing commit 2") {
		t.Fatalf("missing v2 under latest v3: exit %d, %v, stderr %q", code, err, errOut)
	}
	if level(&r, "latest") != "error" || level(&r, "log gaps") != "warn" {
		t.Errorf("findings %+v", r.Findings)
	}
	if i := slices.IndexFunc(r.Findings, func(f finding) bool { return f.Check == "latest" }); i < 0 || !strings.Contains(r.Findings[i].Advice, "deltafs mount --version 1") {
		t.Errorf("the advice does not name the newest version that can be rebuilt: %+v", r.Findings)
	}

	dir, gen := write(t, 6)
	if _, err := gen.Checkpoint(3); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(commit(dir, 1)); err != nil { // below the checkpoint: latest builds
		t.Fatal(err)
	}
	r = *doctorJSON(t, dir)
	if level(&r, "log gaps") != "warn" || level(&r, "latest") != "" || level(&r, "checkpoint files") != "" {
		t.Errorf("missing v1 below a checkpoint: findings %+v", r.Findings)
	}

	dir, gen = write(t, 6)
	if _, err := gen.Checkpoint(3); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.checkpoint.parquet", 3))
	if err := os.Truncate(cp, 100); err != nil {
		t.Fatal(err)
	}
	r = *doctorJSON(t, dir)
	if level(&r, "checkpoint files") != "warn" || level(&r, "checkpoint") != "warn" || !r.Checkpoint.Unusable || level(&r, "log gaps") != "ok" || r.LiveFiles != 5 {
		t.Errorf("truncated checkpoint: %d live files, findings %+v", r.LiveFiles, r.Findings)
	}
}

// TestDoctorColumns: after a column is added, doctor counts the files the
// mount fills: one whose stats lack the column, and one whose stats have
// no null counts, whose footer tells (the oldest such file).
func TestDoctorColumns(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	var adds []action.Action
	for _, name := range []string{"counted.parquet", "uncounted.parquet"} {
		a, err := gen.DataFileAdd(name, 10, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		adds = append(adds, a)
	}
	adds[1].Add.Stats = `{"numRecords":10}`
	grown := strings.Replace(deltagen.SimpleSchema, `]}`, `,{"name":"extra","type":"double","nullable":true,"metadata":{}}]}`, 1)
	for _, c := range [][]action.Action{append([]action.Action{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)}, adds...), {deltagen.Metadata(grown, nil, nil)}} {
		if _, err := gen.Commit(c...); err != nil {
			t.Fatal(err)
		}
	}
	r := doctorJSONOf(t, dir)
	if c := r.Columns; c == nil || c.Filled != 2 || c.WithoutCounts != 1 || c.Checked != 0 || c.Lacking != 0 {
		t.Errorf("columns %+v", c)
	}
	if code, out, _ := runCLI("doctor", dir); code != 0 || !strings.Contains(out, "ok    columns          2 files lack columns the table added and are served with them, as nulls; 1 file has no null counts in its stats: the files were judged by the oldest files' footers") {
		t.Errorf("text report, exit %d:\n%s", code, out)
	}
}

// TestDoctorUncountedColumns: in a table collecting stats for its first
// column only, no stats say which files lack the column it added. Where
// the oldest files lack it, the mount serves them with it (their footers
// tell), which doctor counts; where the oldest file has it and newer
// ones lack it (not how writers go), they are served without it, which
// doctor's sample of footers finds.
func TestDoctorUncountedColumns(t *testing.T) {
	grown := strings.Replace(deltagen.SimpleSchema, `]}`, `,{"name":"extra","type":"double","nullable":true,"metadata":{}}]}`, 1)
	conf := map[string]string{"delta.dataSkippingNumIndexedCols": "1"}
	for _, c := range []struct {
		name   string
		full   bool // the oldest file has every column
		want   string
		finish string
	}{
		{"the oldest files lack it", false, "filled 2, checked 0, lacking 0 [] uncounted [value extra]", "ok"},
		{"a newer file lacks it", true, "filled 0, checked 3, lacking 2 [extra] uncounted [value extra]", "warn"},
	} {
		dir := t.TempDir()
		gen := deltagen.New(dir)
		adds := []action.Action{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(grown, nil, conf)}
		for i, name := range []string{"a.parquet", "b.parquet"} {
			a, err := gen.DataFileAdd(name, 10, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			a.Add.ModificationTime = int64(10 + i)
			adds = append(adds, a)
		}
		if c.full {
			type fullRow struct {
				ID    int64    `parquet:"id"`
				Value *string  `parquet:"value,optional"`
				Extra *float64 `parquet:"extra,optional"`
			}
			p := filepath.Join(dir, "full.parquet")
			if err := parquet.WriteFile(p, []fullRow{{ID: 1}}); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			adds = append(adds, deltagen.AddFile("full.parquet", info.Size(), 1, nil, `{"numRecords":1,"nullCount":{"id":0}}`))
		}
		if _, err := gen.Commit(adds...); err != nil {
			t.Fatal(err)
		}
		r := doctorJSONOf(t, dir)
		col := r.Columns
		if col == nil {
			t.Fatalf("%s: no columns check", c.name)
		}
		if got := fmt.Sprintf("filled %d, checked %d, lacking %d %v uncounted %v", col.Filled, col.Checked, col.Lacking, col.Columns, col.Uncounted); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
		if level(r, "columns") != c.finish {
			t.Errorf("%s: findings %+v", c.name, r.Findings)
		}
	}
}

// TestDoctorStatsClaimColumns: a file whose stats count the nulls of a
// column it lacks (delta-kernel-rs's parsed-stats table) is served as
// stored; doctor reads some footers the stats vouch for too, and warns.
func TestDoctorStatsClaimColumns(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	a, err := gen.DataFileAdd("claims.parquet", 10, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	a.Add.Stats = `{"numRecords":10,"nullCount":{"id":0,"value":0,"extra":0}}`
	grown := strings.Replace(deltagen.SimpleSchema, `]}`, `,{"name":"extra","type":"double","nullable":true,"metadata":{}}]}`, 1)
	if _, err := gen.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(grown, nil, nil), a); err != nil {
		t.Fatal(err)
	}
	r := doctorJSONOf(t, dir)
	if c := r.Columns; c == nil || c.Filled != 0 || c.Checked != 1 || c.Lacking != 1 || fmt.Sprint(c.Columns) != "[extra]" {
		t.Errorf("columns %+v", c)
	}
	if level(r, "columns") != "warn" {
		t.Errorf("findings %+v", r.Findings)
	}
	for _, f := range r.Findings {
		if f.Check == "columns" && !strings.Contains(f.Message, "1 of the 1 files served as stored that were checked lacks columns") {
			t.Errorf("columns finding: %q", f.Message)
		}
	}
}

// TestDamagedLatestNamesNewestBuildable: a latest commit that does not
// parse is listed like any other, yet cannot be rebuilt: the commands
// that refuse the table name the newest version that can be (found by
// building, not by the listing), and --version reads it.
func TestDamagedLatestNamesNewestBuildable(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	for _, c := range [][]action.Action{
		{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)},
		{deltagen.AddFile("part-1.parquet", 10, 1, nil, "")},
		{deltagen.AddFile("part-2.parquet", 10, 1, nil, "")},
	} {
		if _, err := gen.Commit(c...); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", 2)), []byte("{\"add\": garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each names a command that takes the advice: versions has no
	// --version, and once told to use it.
	for cmd, want := range map[string]string{
		"ls":       "(v1 is the newest version that can be rebuilt: --version 1 reads it)",
		"schema":   "(v1 is the newest version that can be rebuilt: --version 1 reads it)",
		"versions": "(v1 is the newest version that can be rebuilt: `deltafs ls --version 1` lists its files, `deltafs mount --version 1` mounts it)",
	} {
		code, _, errOut := runCLI(cmd, dir)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, %q, want %q", cmd, code, errOut, want)
		}
	}
	if code, out, errOut := runCLI("ls", "--version", "1", dir); code != 0 || out != "part-1.parquet\n" {
		t.Errorf("ls --version 1: exit %d, %q, %q", code, out, errOut)
	}
	code, out, _ := runCLI("doctor", "--files=false", dir)
	if code != 1 || !strings.Contains(out, "`deltafs mount --version 1` mounts the newest version that can be rebuilt") {
		t.Errorf("doctor: exit %d:\n%s", code, out)
	}
}

// TestDoctorUnrebuildableFiles: a file with a deletion vector that a mount
// could not rebuild without its deleted rows (in LZO, which no reader here
// decodes) is an error, named, with what to do.
func TestDoctorUnrebuildableFiles(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	type idRow struct {
		ID int64 `parquet:"id"`
	}
	rows := make([]idRow, 50)
	for i := range rows {
		rows[i].ID = int64(i)
	}
	if err := parquet.WriteFile(filepath.Join(dir, "lzo.parquet"), rows, parquet.Compression(lzoLabel{&parquet.Uncompressed})); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "lzo.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	dv, err := deltagen.InlineDV([]uint64{3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Commit(deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}), deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
		deltagen.AddFileDV("lzo.parquet", st.Size(), 1, nil, `{"numRecords":50}`, dv)); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI("doctor", "--json", dir)
	var r doctorReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if code != 1 || r.Files.Unrebuildable != 1 || level(&r, "data files") != "error" ||
		!strings.Contains(strings.Join(r.Files.Examples, " "), `lzo.parquet: cannot be served without its deleted rows: row group 0: compression codec LZO`) {
		t.Errorf("exit %d, files %+v", code, r.Files)
	}
}

// lzoLabel stores pages as they are, labelled LZO.
type lzoLabel struct{ compress.Codec }

func (lzoLabel) CompressionCodec() format.CompressionCodec { return format.LZO }

// TestDoctorBrokenLatestText: the text report on a table whose latest
// version cannot be rebuilt gives the error once (stderr points at the
// report) and says its checkpoint and live files are unknown, not "none"
// and 0: with a checkpoint at v3 in the log, latest v6 lacks commit 5.
func TestDoctorBrokenLatestText(t *testing.T) {
	for _, checkpoint := range []bool{true, false} {
		dir := t.TempDir()
		gen := deltagen.New(dir)
		if _, err := gen.Commit(deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < 7; i++ {
			if _, err := gen.Commit(deltagen.AddFile(fmt.Sprintf("part-%d.parquet", i), 10, 1, nil, "")); err != nil {
				t.Fatal(err)
			}
		}
		wantCheckpoint := "checkpoint   none (no checkpoint file in _delta_log)\n"
		if checkpoint {
			if _, err := gen.Checkpoint(3); err != nil {
				t.Fatal(err)
			}
			wantCheckpoint = "checkpoint   unknown (latest cannot be rebuilt)\n"
		}
		if rebuilt := doctorLatestRebuilt(t, dir); !rebuilt {
			t.Errorf("checkpoint %v: latestRebuilt false before the commit is removed", checkpoint)
		}
		if err := os.Remove(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", 5))); err != nil {
			t.Fatal(err)
		}
		if rebuilt := doctorLatestRebuilt(t, dir); rebuilt {
			t.Errorf("checkpoint %v: latestRebuilt true with a commit missing", checkpoint)
		}
		code, out, errOut := runCLI("doctor", "--files=false", dir)
		const cause = "version 6 cannot be rebuilt: missing commit 5"
		if code != 1 || strings.Count(out+errOut, cause) != 1 || errOut != "deltafs doctor: error in \"latest\" (see the report above)\n" {
			t.Errorf("checkpoint %v: exit %d, stdout:\n%s\nstderr %q; want exit 1 and %q once, in the report", checkpoint, code, out, errOut, cause)
		}
		if !strings.Contains(out, wantCheckpoint) || !strings.Contains(out, "live files   unknown (latest cannot be rebuilt)\n") {
			t.Errorf("checkpoint %v: want %q and live files unknown:\n%s", checkpoint, wantCheckpoint, out)
		}
	}
}

// doctorLatestRebuilt is what doctor --json says of latest: rebuilt or not
// (its checkpoint and live files then unknown).
func doctorLatestRebuilt(t *testing.T, dir string) bool {
	t.Helper()
	_, out, _ := runCLI("doctor", "--files=false", "--json", dir)
	var r struct {
		LatestRebuilt *bool `json:"latestRebuilt"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.LatestRebuilt == nil {
		t.Fatalf("doctor --json: %v, no latestRebuilt in %s", err, out)
	}
	return *r.LatestRebuilt
}
