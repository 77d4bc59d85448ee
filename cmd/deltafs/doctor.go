package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions"
	"github.com/deltafs/deltafs/versions/layout"
	"github.com/spf13/pflag"
)

// doctorReport is what `deltafs doctor` finds; --json prints it as is.
type doctorReport struct {
	Table                  string            `json:"table"`
	LatestVersion          int64             `json:"latestVersion"`
	LatestRebuilt          bool              `json:"latestRebuilt"` // false: the fields learned from latest's snapshot (checkpoint, live files, tombstones, retention, files) are unknown, zero
	Checkpoint             *doctorCheckpoint `json:"checkpoint"`    // null: none
	CommitsSinceCheckpoint int64             `json:"commitsSinceCheckpoint"`
	CheckpointInterval     int64             `json:"checkpointInterval"`
	LastCheckpoint         string            `json:"lastCheckpoint"` // valid, stale, missing or corrupt
	LastCheckpointVersion  int64             `json:"lastCheckpointVersion"`
	LastCheckpointProblem  string            `json:"lastCheckpointProblem,omitempty"` // why it was not used
	LogObjects             int64             `json:"logObjects"`
	LogCommits             int64             `json:"logCommits"`
	LogCheckpointFiles     int64             `json:"logCheckpointFiles"`
	LiveFiles              int64             `json:"liveFiles"`
	LiveBytes              int64             `json:"liveBytes"`
	AverageFileSize        int64             `json:"averageFileSize"`
	Tombstones             int64             `json:"tombstones"`
	Retention              doctorRetention   `json:"retention"`
	Open                   doctorOpen        `json:"open"`
	Files                  doctorFiles       `json:"files"`
	Columns                *doctorColumns    `json:"columns,omitempty"`  // with --files
	NotShown               []string          `json:"notShown,omitempty"` // with --files: live files a mount cannot show, and why
	Findings               []finding         `json:"findings"`
}

// doctorCheckpoint is the newest complete checkpoint at the latest version.
type doctorCheckpoint struct {
	Version int64  `json:"version"`
	Kind    string `json:"kind"` // classic, multi-part, v2-json, v2-parquet
	Parts   int    `json:"parts"`
	// Unusable: it cannot be read, and latest was rebuilt without it.
	Unusable bool `json:"unusable,omitempty"`
}

// doctorRetention holds the retention properties, as set or defaulted.
type doctorRetention struct {
	LogRetention         string  `json:"logRetentionDuration"`
	LogRetentionDays     float64 `json:"logRetentionDays"`
	DeletedFileRetention string  `json:"deletedFileRetentionDuration"`
	DeletedFileDays      float64 `json:"deletedFileRetentionDays"`
	Valid                bool    `json:"valid"`
	Problem              string  `json:"problem,omitempty"`
}

// doctorOpen is the measured cost of a cold open of latest: versions.Open
// and the latest snapshot, through a fresh store.
type doctorOpen struct {
	Requests   int64   `json:"requests"`
	Gets       int64   `json:"gets"`
	Lists      int64   `json:"lists"`
	Heads      int64   `json:"heads"`
	RoundTrips int64   `json:"roundTrips"` // sequential: requests in parallel count once
	Bytes      int64   `json:"bytes"`
	Millis     float64 `json:"millis"`
	LatencyMs  float64 `json:"injectedLatencyMillis"`
}

// Table property names and defaults.
const (
	propCheckpointInterval   = "delta.checkpointInterval"
	propLogRetention         = "delta.logRetentionDuration"
	propDeletedFileRetention = "delta.deletedFileRetentionDuration"
	defaultCheckpointEvery   = 10
	defaultLogRetention      = "interval 30 days"
	defaultDeletedRetention  = "interval 1 week"
)

func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := pflag.NewFlagSet("doctor", pflag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object")
	checkData := fs.Bool("files", true, fmt.Sprintf("check that the live data files exist with the log's sizes, their deletion vectors load and the files they delete from can be rebuilt (a stat each, and a footer read each of those, at most %d, spread over the table; a HEAD each on object stores)", maxFileChecks))
	var external externalFlag
	external.register(fs)
	latency := fs.Duration("latency", 0, "latency added to every request of the measured open, e.g. 20ms to see a remote store's cost (default 2ms for local tables, so that parallel requests overlap as they do remotely and round trips count right; 0 for remote ones)")
	if err := parseFlags(fs, args, "TABLE", 1, 1, stdout, stderr); err != nil {
		return err
	}
	if *latency < 0 {
		return usageError(fs, stderr, "--latency %v: want 0 or more", *latency)
	}
	if !fs.Changed("latency") && isLocal(fs.Arg(0)) {
		*latency = localLatency
	}
	r, err := diagnose(ctx, fs.Arg(0), *latency, *checkData, external, stderr)
	if err != nil {
		return err
	}
	defer func() {
		// Files a mount cannot serve, or a latest version that cannot be
		// rebuilt, fail the check, after the report. The report already
		// says why: the text one is pointed at, not repeated; JSON is for
		// programs, and its reader may see only stderr.
		switch {
		case err != nil:
		case r.Files.problems() > 0:
			err = fmt.Errorf("%s cannot be served as the log says (see \"data files\")", plural(r.Files.problems(), "live data file", "live data files"))
		default:
			if i := slices.IndexFunc(r.Findings, func(f finding) bool { return f.Level == "error" }); i >= 0 {
				err = fmt.Errorf("error in %q (see the report above)", r.Findings[i].Check)
				if *asJSON {
					err = errors.New(r.Findings[i].Message)
				}
			}
		}
	}()
	w := bufio.NewWriter(stdout)
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		printDoctor(w, r)
	}
	return w.Flush()
}

// localLatency is injected into the measured open of a local table: local
// requests end in microseconds, before their parallel peers start, and would
// each count as a round trip.
const localLatency = 2 * time.Millisecond

// isLocal reports whether a table location is a path, file:// or mem://.
func isLocal(location string) bool {
	scheme, _, found := strings.Cut(location, "://")
	return !found || scheme == "file" || scheme == "mem"
}

// diagnose opens the table cold, measuring the cost, and inspects it.
func diagnose(ctx context.Context, location string, latency time.Duration, checkData bool, external externalFlag, stderr io.Writer) (*doctorReport, error) {
	st, err := blobstore.Open(ctx, location, blobstore.WithLatency(latency), retryLog(stderr))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	start := time.Now()
	t, err := versions.Open(ctx, st, versions.Options{})
	if err != nil {
		return nil, err
	}
	snap, err := t.Snapshot(ctx, t.Latest())
	if err != nil {
		return brokenLatest(ctx, st, t, err)
	}
	elapsed, c := time.Since(start), st.Counts()
	tombstones, err := snap.Tombstones(ctx)
	if err != nil {
		return nil, err
	}
	r := &doctorReport{
		Table: st.Location(), LatestVersion: snap.Version, LatestRebuilt: true,
		LastCheckpoint: string(t.Hint()), LastCheckpointVersion: t.HintVersion(), LastCheckpointProblem: hintProblem(t),
		LiveFiles: int64(len(snap.Files)), Tombstones: int64(tombstones),
		Open: doctorOpen{
			Requests: c.Requests(), Gets: c.Gets, Lists: c.Lists, Heads: c.Heads, RoundTrips: c.Rounds,
			Bytes: c.Bytes, Millis: float64(elapsed.Microseconds()) / 1000, LatencyMs: float64(latency.Microseconds()) / 1000,
		},
	}
	seg, err := t.Segment(ctx, snap.Version)
	if err != nil {
		return nil, err
	}
	r.CommitsSinceCheckpoint = snap.Version + 1
	if cp := seg.Checkpoint; cp != nil {
		_, unusable := t.PassedOver()[cp.Version]
		r.Checkpoint = &doctorCheckpoint{Version: cp.Version, Kind: cp.Kind.String(), Parts: len(cp.Parts), Unusable: unusable}
		r.CommitsSinceCheckpoint = snap.Version - cp.Version
	}
	conf := snap.Metadata.Configuration
	r.CheckpointInterval = defaultCheckpointEvery
	if v, ok := conf[propCheckpointInterval]; ok {
		fmt.Sscan(v, &r.CheckpointInterval)
	}
	for _, f := range snap.Files {
		r.LiveBytes = addSize(r.LiveBytes, f.Size)
	}
	if r.LiveFiles > 0 {
		r.AverageFileSize = r.LiveBytes / r.LiveFiles
	}
	r.Retention = retention(conf)
	commits, err := countLog(ctx, st, r)
	if err != nil {
		return nil, err
	}
	if checkData {
		// The data files through a store without the injected latency.
		plain, err := blobstore.Open(ctx, location, retryLog(stderr))
		if err != nil {
			return nil, err
		}
		defer plain.Close()
		storage, closeElsewhere, err := external.storage(ctx, plain, retryLog(stderr))
		if err != nil {
			return nil, err
		}
		defer closeElsewhere()
		r.Files = checkFiles(ctx, storage, snap)
		details, err := snap.Details(ctx)
		if err != nil {
			return nil, err
		}
		lay, err := layout.Of(snap, details.Partitions, details.NullCounted, layout.Options{External: storage.Serves})
		if err != nil {
			return nil, err
		}
		r.NotShown = notShown(lay)
		cols := checkColumns(ctx, storage, snap, details, lay)
		r.Columns = &cols
	}
	r.Findings = append(findings(r), logFindings(commits, t.PassedOver())...)
	return r, nil
}

// brokenLatest is the report on a table whose latest version cannot be
// rebuilt (a missing or damaged log file): what the log holds, and that.
func brokenLatest(ctx context.Context, st *blobstore.Store, t *versions.Table, cause error) (*doctorReport, error) {
	r := &doctorReport{Table: st.Location(), LatestVersion: t.Latest(), LastCheckpoint: string(t.Hint()), LastCheckpointVersion: t.HintVersion(),
		LastCheckpointProblem: hintProblem(t)}
	commits, err := countLog(ctx, st, r)
	if err != nil {
		return nil, err
	}
	advice := "readers refuse the table: restore the missing or damaged log file from a backup"
	if n, ok, err := t.NewestBuildable(ctx); err == nil && ok && n < r.LatestVersion {
		advice += fmt.Sprintf("; meanwhile `deltafs mount --version %d` mounts the newest version that can be rebuilt", n)
	}
	r.Findings = append(logFindings(commits, t.PassedOver()), finding{Check: "latest", Level: "error",
		Message: fmt.Sprintf("v%d: %v", r.LatestVersion, cause), Advice: advice})
	return r, nil
}

// countLog counts the objects of _delta_log: one full listing, as `ls`
// would do, after (and not part of) the measured open. It returns the
// versions of the commits listed, in listing (version) order.
func countLog(ctx context.Context, st *blobstore.Store, r *doctorReport) ([]int64, error) {
	var commits []int64
	err := st.List(ctx, replay.LogDir, "", func(o blobstore.Object) bool {
		r.LogObjects++
		if f, ok := replay.ParseLogFile(o.Key, o.Size, 0); ok {
			switch f.Kind {
			case replay.Commit:
				r.LogCommits++
				commits = append(commits, f.Version)
			case replay.CheckpointFile:
				r.LogCheckpointFiles++
			}
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", replay.LogDir, err)
	}
	return commits, nil
}

// retention reads the retention pair and checks it: both parse, and the
// log is kept at least as long as deleted files.
func retention(conf map[string]string) doctorRetention {
	r := doctorRetention{LogRetention: defaultLogRetention, DeletedFileRetention: defaultDeletedRetention}
	if v, ok := conf[propLogRetention]; ok {
		r.LogRetention = v
	}
	if v, ok := conf[propDeletedFileRetention]; ok {
		r.DeletedFileRetention = v
	}
	logKeep, err1 := parseInterval(r.LogRetention)
	fileKeep, err2 := parseInterval(r.DeletedFileRetention)
	day := float64(24 * time.Hour)
	r.LogRetentionDays, r.DeletedFileDays = float64(logKeep)/day, float64(fileKeep)/day
	switch {
	case err1 != nil:
		r.Problem = propLogRetention + ": " + err1.Error()
	case err2 != nil:
		r.Problem = propDeletedFileRetention + ": " + err2.Error()
	case logKeep < fileKeep:
		r.Problem = fmt.Sprintf("the log is kept %s, less than deleted files (%s)", formatDuration(logKeep), formatDuration(fileKeep))
	default:
		r.Valid = true
	}
	return r
}

// hintProblem says why the table did not use its _last_checkpoint, or "".
func hintProblem(t *versions.Table) string {
	if err := t.HintProblem(); err != nil {
		return err.Error()
	}
	return ""
}
