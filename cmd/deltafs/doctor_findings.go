package main

import (
	"bufio"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/deltafs/deltafs/versions/layout"
)

// finding is one check of `deltafs doctor`, with a one-line advice.
type finding struct {
	Check   string `json:"check"`
	Level   string `json:"level"` // ok, warn or error
	Message string `json:"message"`
	Advice  string `json:"advice"`
}

// Thresholds of the findings.
const (
	smallFileSize     = 32 << 20 // average size under which many files are small
	manyFiles         = 100      // from how many live files small files matter
	openRoundTripsFar = 4        // a cold open above this many round trips is slow remotely
	listPage          = 1000     // keys per listing page
)

func findings(r *doctorReport) []finding {
	var out []finding
	add := func(check string, warn bool, msg, advice string) {
		level := "ok"
		if warn {
			level = "warn"
		}
		out = append(out, finding{Check: check, Level: level, Message: msg, Advice: advice})
	}
	switch cp := r.Checkpoint; {
	case cp == nil:
		add("checkpoint", r.LatestVersion >= r.CheckpointInterval,
			"no checkpoint: every open replays "+plural(r.CommitsSinceCheckpoint, "commit", "commits"),
			"write a checkpoint (Spark and delta-rs writers do every delta.checkpointInterval commits)")
	case cp.Unusable:
		add("checkpoint", true,
			fmt.Sprintf("the %s checkpoint at v%d cannot be read (see \"checkpoint files\")", cp.Kind, cp.Version),
			"write a new checkpoint: until then each open tries this one, then replays the commits since an older one")
	case r.CommitsSinceCheckpoint > r.CheckpointInterval:
		add("checkpoint", true,
			fmt.Sprintf("%s since the %s checkpoint at v%d, interval %d: checkpoints have stopped", plural(r.CommitsSinceCheckpoint, "commit", "commits"), cp.Kind, cp.Version, r.CheckpointInterval),
			"check that the writers still checkpoint, or write one: each open reads every commit since")
	default:
		add("checkpoint", false,
			fmt.Sprintf("%s since the %s checkpoint at v%d, interval %d", plural(r.CommitsSinceCheckpoint, "commit", "commits"), cp.Kind, cp.Version, r.CheckpointInterval),
			"nothing to do")
	}
	switch r.LastCheckpoint {
	case "valid":
		add("_last_checkpoint", false, fmt.Sprintf("valid: names v%d", r.LastCheckpointVersion), "nothing to do")
	case "stale":
		add("_last_checkpoint", true, fmt.Sprintf("stale: names v%d, a newer checkpoint exists", r.LastCheckpointVersion),
			"the writer failed to update it after a checkpoint; the next checkpoint rewrites it")
	case "missing":
		add("_last_checkpoint", r.Checkpoint != nil, "missing: readers must search the log for the newest checkpoint",
			"write a checkpoint: writers write _last_checkpoint with it")
	default:
		why := "unreadable, or names no complete checkpoint"
		if r.LastCheckpointProblem != "" {
			why = r.LastCheckpointProblem
		}
		add("_last_checkpoint", true, fmt.Sprintf("%s: %s", r.LastCheckpoint, why),
			"delete it or write a new checkpoint; readers fall back to searching the log")
	}
	pages := (r.LogObjects + listPage - 1) / listPage
	add("log size", r.LogObjects > 20*listPage,
		fmt.Sprintf("%s in _delta_log (%s, %s): %s from version 0", plural(r.LogObjects, "object", "objects"), plural(r.LogCommits, "commit", "commits"),
			plural(r.LogCheckpointFiles, "checkpoint file", "checkpoint files"), plural(pages, "listing page", "listing pages")),
		"log cleanup removes commits older than delta.logRetentionDuration at checkpoints; keep it enabled")
	small := r.LiveFiles >= manyFiles && r.AverageFileSize < smallFileSize
	add("file size", small,
		fmt.Sprintf("%s, %s on average", plural(r.LiveFiles, "live file", "live files"), formatBytes(r.AverageFileSize)),
		map[bool]string{true: "compact small files (OPTIMIZE, delta-rs optimize.compact) to 128 MiB-1 GiB", false: "nothing to do"}[small])
	many := r.Tombstones > 10_000 && r.Tombstones > r.LiveFiles
	add("tombstones", many,
		plural(r.Tombstones, "tombstone", "tombstones")+" still retained",
		map[bool]string{true: "they leave checkpoints after delta.deletedFileRetentionDuration; VACUUM deletes their files", false: "nothing to do"}[many])
	ret := r.Retention
	msg := fmt.Sprintf("log kept %s, deleted files %s", ret.LogRetention, ret.DeletedFileRetention)
	if !ret.Valid {
		msg += ": " + ret.Problem
	}
	add("retention", !ret.Valid, msg,
		map[bool]string{true: "set delta.logRetentionDuration >= delta.deletedFileRetentionDuration, both as \"interval N days\"", false: "nothing to do"}[!ret.Valid])
	fl := r.Files
	scope := plural(fl.Checked, "live file", "live files") + " checked"
	if fl.Sampled {
		scope = fmt.Sprintf("a sample of %d of the %d live files checked", fl.Checked, r.LiveFiles)
	}
	switch {
	case fl.Checked == 0 && fl.problems() == 0:
		// Not asked (--files=false), or no live file.
	case fl.problems() > 0:
		advice := "a mount gives EIO for these files; restore them from a backup, or remove them from the table (a commit that removes them)"
		if fl.Unrebuildable > 0 {
			advice += "; rewrite those that cannot be rebuilt without their deletion vectors (Spark: REORG TABLE ... APPLY (PURGE)), or in another codec (zstd, snappy)"
		}
		out = append(out, finding{Check: "data files", Level: "error",
			Message: fmt.Sprintf("%s: %d missing, %d of another size than the log's, %d unreadable, %d with a deletion vector that does not load, %d that cannot be rebuilt without their deleted rows, %d with a negative size; e.g. %s",
				scope, fl.Missing, fl.WrongSize, fl.Unreadable, fl.BadVectors, fl.Unrebuildable, fl.NegativeSizes, strings.Join(fl.Examples, "; ")),
			Advice: advice})
	default:
		add("data files", false, scope+": all present with the log's sizes", "nothing to do")
	}
	if c := r.Columns; c != nil {
		out = append(out, columnsFinding(c, r.LatestVersion))
	}
	if n := len(r.NotShown); n > 0 {
		out = append(out, finding{Check: "served names", Level: "error",
			Message: fmt.Sprintf("%s cannot be shown by a mount: readers of it miss their rows; e.g. %s", plural(n, "live file", "live files"), strings.Join(r.NotShown[:min(n, 3)], "; ")),
			Advice:  "a partition value too long for a folder name (255 bytes): read such a table with a Delta reader, or shorten the values"})
	}
	if fl.External > 0 {
		add("external files", true, plural(fl.External, "live file lies", "live files lie")+" outside the table root, under no --allow-external location",
			"a mount does not show them (it reads nothing outside the root unless told): mount with "+allowExternal(fl.ExternalUnder)+" (a shallow clone's source)")
	}
	o := r.Open
	add("open cost", o.RoundTrips > openRoundTripsFar,
		fmt.Sprintf("cold open of latest: %s, %s, %s, %.1f ms", plural(o.Requests, "request", "requests"), plural(o.RoundTrips, "sequential round trip", "sequential round trips"), formatBytes(o.Bytes), o.Millis),
		map[bool]string{true: "fewer round trips need a valid _last_checkpoint and a recent checkpoint", false: "nothing to do"}[o.RoundTrips > openRoundTripsFar])
	return out
}

// logFindings checks what the listing of the log says: commits missing
// between the oldest and the newest (log cleanup removes the oldest only);
// and the checkpoints latest was rebuilt without (passedOver), unusable.
func logFindings(commits []int64, passedOver map[int64]error) []finding {
	slices.Sort(commits)
	var out []finding
	var gaps []string
	missing := int64(0)
	for i := 1; i < len(commits); i++ {
		if lo, hi := commits[i-1]+1, commits[i]-1; lo <= hi {
			missing += hi - lo + 1
			gaps = append(gaps, versionRange(lo, hi))
		}
	}
	if missing > 0 {
		if len(gaps) > 5 {
			gaps = append(gaps[:5], "...")
		}
		out = append(out, finding{Check: "log gaps", Level: "warn",
			Message: fmt.Sprintf("%s missing between v%d and v%d: %s", plural(missing, "commit", "commits"), commits[0], commits[len(commits)-1], strings.Join(gaps, ", ")),
			Advice:  "versions from a missing commit up to the next checkpoint cannot be rebuilt; restore the commits from a backup"})
	} else if len(commits) > 0 {
		out = append(out, finding{Check: "log gaps", Level: "ok", Message: fmt.Sprintf("commits v%d-v%d, none missing", commits[0], commits[len(commits)-1]), Advice: "nothing to do"})
	}
	for _, v := range slices.Sorted(maps.Keys(passedOver)) {
		out = append(out, finding{Check: "checkpoint files", Level: "warn",
			Message: fmt.Sprintf("the checkpoint of v%d is unusable, latest was rebuilt without it: %v", v, passedOver[v]),
			Advice:  "every open reads it, fails, and replays the commits since an older checkpoint: write a new checkpoint, or delete the damaged files"})
	}
	return out
}

func versionRange(lo, hi int64) string {
	if lo == hi {
		return fmt.Sprintf("v%d", lo)
	}
	return fmt.Sprintf("v%d-v%d", lo, hi)
}

// printDoctor prints the report for people.
func printDoctor(w *bufio.Writer, r *doctorReport) {
	fmt.Fprintf(w, "table        %s\nlatest       v%d\n", r.Table, r.LatestVersion)
	if !r.LatestRebuilt {
		// What rebuilding latest would have told: say so, not "none".
		checkpoint := "unknown (latest cannot be rebuilt)"
		if r.LogCheckpointFiles == 0 {
			checkpoint = "none (no checkpoint file in _delta_log)"
		}
		fmt.Fprintf(w, "checkpoint   %s\nlive files   unknown (latest cannot be rebuilt)\n\n", checkpoint)
	} else {
		printLatestState(w, r)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "%-5s %-16s %s\n", f.Level, f.Check, f.Message)
		if f.Level != "ok" {
			fmt.Fprintf(w, "      %-16s -> %s\n", "", f.Advice)
		}
	}
}

// printLatestState prints the checkpoint and live files of latest.
func printLatestState(w *bufio.Writer, r *doctorReport) {
	if cp := r.Checkpoint; cp != nil {
		unusable := ""
		if cp.Unusable {
			unusable = ", unusable"
		}
		fmt.Fprintf(w, "checkpoint   v%d, %s, %s%s\n", cp.Version, cp.Kind, plural(cp.Parts, "part", "parts"), unusable)
	} else {
		fmt.Fprintf(w, "checkpoint   none\n")
	}
	fmt.Fprintf(w, "live files   %d (%s), %s\n\n", r.LiveFiles, formatBytes(r.LiveBytes), plural(r.Tombstones, "tombstone", "tombstones"))
}

// formatBytes prints a size in B, KiB, MiB, GiB or TiB.
func formatBytes(n int64) string {
	f, units := float64(n), []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

// columnsFinding says which files a mount serves lacking columns.
func columnsFinding(c *doctorColumns, latest int64) finding {
	filled := plural(c.Filled, "file lacks columns the table added and is", "files lack columns the table added and are") + " served with them, as nulls"
	var unknown []string // why stats do not tell of some files
	if c.WithoutCounts > 0 {
		unknown = append(unknown, plural(c.WithoutCounts, "file has no null counts in its stats", "files have no null counts in their stats"))
	}
	if len(c.Uncounted) > 0 {
		unknown = append(unknown, fmt.Sprintf("no stats count %s (%s)", plural(len(c.Uncounted), "column", "columns"), layout.FewNames(c.Uncounted)))
	}
	if len(unknown) > 0 {
		filled += "; " + strings.Join(unknown, ", and ") + ": the files were judged by the oldest files' footers"
	}
	if c.Lacking > 0 {
		return finding{Check: "columns", Level: "warn",
			Message: fmt.Sprintf("%s; %d of the %d files served as stored that were checked %s columns of v%d (%s), served without them; e.g. %s",
				filled, c.Lacking, c.Checked, map[bool]string{true: "lacks", false: "lack"}[c.Lacking == 1], latest, strings.Join(c.Columns, ", "), strings.Join(c.Examples, "; ")),
			Advice: "readers then keep or drop those columns by the file they meet first: mount with --check-footers, or tell them to fill columns (DuckDB union_by_name=true, Polars missing_columns=\"insert\", pyarrow a unified schema)"}
	}
	if c.Checked > 0 {
		filled += fmt.Sprintf(" (%s served as stored checked: none lacks a column)", plural(c.Checked, "file", "files"))
	}
	return finding{Check: "columns", Level: "ok", Message: filled, Advice: "nothing to do"}
}
