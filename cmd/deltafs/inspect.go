package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/versions"
	"github.com/deltafs/deltafs/versions/layout"
	"github.com/deltafs/deltafs/versions/serve"
	"github.com/spf13/pflag"
)

// openTable opens the table at location, logging retries on stderr.
func openTable(ctx context.Context, location string, stderr io.Writer) (*versions.Table, error) {
	st, err := blobstore.Open(ctx, location, retryLog(stderr))
	if err != nil {
		return nil, err
	}
	return versions.Open(ctx, st, versions.Options{})
}

func runVersions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("versions", pflag.ContinueOnError)
	asJSON := fs.Bool("json", false, `JSON Lines: one object per version, {"version":N}`)
	if err := parseFlags(fs, args, "TABLE", 1, 1, stdout, stderr); err != nil {
		return err
	}
	t, err := openTable(ctx, fs.Arg(0), stderr)
	if err != nil {
		return err
	}
	vs, err := t.Versions(ctx)
	if err != nil {
		return err
	}
	// A table deltafs cannot read (an unknown reader feature, no metadata)
	// is refused here as by ls and mount, not listed: its newest
	// rebuildable version must build.
	if len(vs) > 0 {
		if _, err := t.Snapshot(ctx, vs[len(vs)-1]); err != nil {
			return latestBroken(ctx, t, err, lsListsIt)
		}
	}
	w := bufio.NewWriter(stdout)
	for _, v := range vs {
		if *asJSON {
			fmt.Fprintf(w, "{\"version\":%d}\n", v)
		} else {
			fmt.Fprintln(w, v)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	noteBrokenLatest(ctx, t, vs, fs.Name(), stderr)
	return nil
}

// noteBrokenLatest says on stderr, after a list of the versions that can
// be rebuilt, that the newest version in the log is not among them: what
// ls and mount refuse the table for.
func noteBrokenLatest(ctx context.Context, t *versions.Table, vs []int64, cmd string, stderr io.Writer) {
	if latest := t.Latest(); len(vs) == 0 || vs[len(vs)-1] < latest {
		if _, err := t.Snapshot(ctx, latest); err != nil {
			fmt.Fprintf(stderr, "deltafs %s: note: v%d, the newest version in the log, is not listed: %v\n", cmd, latest, err)
		}
	}
}

// lsEntry is one line of `deltafs ls --json`.
type lsEntry struct {
	// ServedPath is where the mount serves the file in the version's
	// directory (the logical layout); absent for a file it does not serve.
	ServedPath       string             `json:"servedPath,omitempty"`
	Path             string             `json:"path"`
	Size             int64              `json:"size"`
	ModificationTime int64              `json:"modificationTime"`
	PartitionValues  map[string]*string `json:"partitionValues"`
	NumRecords       *int64             `json:"numRecords"`
	DeletedRows      int64              `json:"deletedRows"`
	// ServedSize is, for a file with a deletion vector, or renamed or
	// added columns, whose size changes, the size the mount serves it
	// with; absent when that is Size, or the file is not served.
	ServedSize *int64 `json:"servedSize,omitempty"`
}

func runLs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("ls", pflag.ContinueOnError)
	choice := chooseVersion(fs, "to list")
	asJSON := fs.Bool("json", false, "JSON Lines: one object per file")
	var external externalFlag
	external.register(fs)
	if err := parseFlags(fs, args, "TABLE", 1, 1, stdout, stderr); err != nil {
		return err
	}
	if err := choice.check(fs, stderr); err != nil {
		return err
	}
	snap, err := choice.snapshot(ctx, fs.Arg(0), stderr)
	if err != nil {
		return err
	}
	order := layout.PathOrder(snap.Files)
	if !*asJSON {
		return layout.WritePaths(stdout, snap.Files, order)
	}
	details, err := snap.Details(ctx)
	if err != nil {
		return err
	}
	elsewhere, closeElsewhere, err := external.storage(ctx, nil, retryLog(stderr))
	if err != nil {
		return err
	}
	defer closeElsewhere()
	lay, entries, err := servedLayout(snap, details.Partitions, details.NullCounted, elsewhere.Serves)
	if err != nil {
		return err
	}
	var served *servedSizes
	if lay.StatsUnsure() {
		// The files lacking columns their stats do not count: their
		// footers tell, as a mount's (layout.Version.FindUncounted).
		if served, err = newServedSizes(ctx, fs.Arg(0), elsewhere.Elsewhere, stderr); err != nil {
			return err
		}
		defer served.Close()
		if err := lay.FindUncounted(func(f *replay.File) (bool, error) { return served.files.Lacks(ctx, f, lay.Fill) }); err != nil {
			fmt.Fprintf(stderr, "deltafs ls: note: files are served as stored, whether or not they lack %s: %v\n", lay.Unsure(), err)
		}
	}
	var resized []serve.Sized // the files served at another size than the stored one, in order
	resizes := make([]bool, len(snap.Files))
	for _, i := range order {
		f := &snap.Files[i]
		entry := entries[f]
		if entry == nil {
			continue // not served: no served size
		}
		rename, sameSize := lay.RenameOf(entry)
		if s := (serve.Sized{File: f, Rename: rename, SameSize: sameSize}); !s.KeepsSize() {
			resized, resizes[i] = append(resized, s), true
		}
	}
	if len(resized) > 0 && served == nil {
		if served, err = newServedSizes(ctx, fs.Arg(0), elsewhere.Elsewhere, stderr); err != nil {
			return err
		}
		defer served.Close()
	}
	if served != nil {
		served.order = resized
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, i := range order {
		f := &snap.Files[i]
		e := lsEntry{ServedPath: servedPath(entries, f), Path: f.Path, Size: f.Size, ModificationTime: f.ModTime, PartitionValues: details.Partitions[i].Map(), DeletedRows: f.DeletedRows()}
		if n := details.NumRecords[i]; n >= 0 {
			e.NumRecords = &n
		}
		if resizes[i] {
			// A file that cannot be served gets no size and a line on
			// stderr.
			if n, err := served.nextSize(ctx); err != nil {
				fmt.Fprintf(stderr, "deltafs ls: %s: no servedSize: %v\n", f.Path, err)
			} else {
				e.ServedSize = &n
			}
		}
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return w.Flush()
}

// servedLayout is the logical layout of a snapshot (its files'
// partitions and null-counted columns given, as for layout.Of; external
// says which files outside the table root are served) and each file's
// entry in it; a file it does not serve has none.
func servedLayout(snap *replay.Snapshot, parts []*replay.Partition, counted []*action.ColumnSet, external func(path string) bool) (*layout.Version, map[*replay.File]*layout.Entry, error) {
	lay, err := layout.Of(snap, parts, counted, layout.Options{External: external})
	if err != nil {
		return nil, nil, err
	}
	entries := make(map[*replay.File]*layout.Entry, len(lay.Entries))
	for i := range lay.Entries {
		entries[lay.Entries[i].File] = &lay.Entries[i]
	}
	return lay, entries, nil
}

// servedPath is where a layout's entries serve f ("": nowhere).
func servedPath(entries map[*replay.File]*layout.Entry, f *replay.File) string {
	if e := entries[f]; e != nil {
		return e.Name
	}
	return ""
}

func runHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("history", pflag.ContinueOnError)
	asJSON := fs.Bool("json", false, "JSON Lines: one object per version")
	if err := parseFlags(fs, args, "TABLE", 1, 1, stdout, stderr); err != nil {
		return err
	}
	t, err := openTable(ctx, fs.Arg(0), stderr)
	if err != nil {
		return err
	}
	h, err := t.History(ctx)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	for _, c := range h {
		if *asJSON {
			b, _ := json.Marshal(c)
			fmt.Fprintf(w, "%s\n", b)
			continue
		}
		op := c.Operation
		switch {
		case c.Error != "":
			op = "(damaged: " + c.Error + ")"
		case c.Added == nil:
			op = "(commit gone: known from its checkpoint)"
		}
		at := "-" // timed by in-commit timestamps, and its commit is gone
		if c.Instant != nil {
			at = versions.FormatInstant(*c.Instant)
		}
		fmt.Fprintf(w, "%d\t%s\t%s\n", c.Version, at, printable(op))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	vs := make([]int64, len(h))
	for i, c := range h {
		vs[i] = c.Version
	}
	noteBrokenLatest(ctx, t, vs, fs.Name(), stderr)
	return nil
}

// printable is s, quoted when it holds a control character: text a commit
// wrote (its operation) must not make lines or escapes of its own on a
// terminal.
func printable(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
