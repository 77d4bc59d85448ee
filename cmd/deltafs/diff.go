package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/versions"
	"github.com/deltafs/deltafs/versions/layout"
)

// diffEntry is one line of `deltafs diff --json`.
type diffEntry struct {
	Change string `json:"change"` // added or removed
	// ServedPath is where a mount serves the file (as ls --json gives
	// it), in B for an added file, in A for a removed one.
	ServedPath string `json:"servedPath,omitempty"`
	Path       string `json:"path"`
	Size       int64  `json:"size"`
	// DeletionVector is the file's deletion vector id, when it has one: a
	// file whose vector changed is removed with the old one and added with
	// the new one.
	DeletionVector string `json:"deletionVector,omitempty"`
}

// runDiff lists the live files that differ between two versions (or
// instants): those of B that A lacks (+) and those of A that B lacks (-).
func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
	asJSON := fs.Bool("json", false, `JSON Lines: one object per file, {"change":"added"|"removed","path":...}`)
	var external externalFlag
	external.register(fs)
	if err := parseFlags(fs, args, "TABLE A B (each a version or an instant)", 3, 3, stdout, stderr); err != nil {
		return err
	}
	t, err := openTable(ctx, fs.Arg(0), stderr)
	if err != nil {
		return err
	}
	var snaps [2]*replay.Snapshot
	for i, arg := range []string{fs.Arg(1), fs.Arg(2)} {
		v, err := resolveVersion(ctx, t, arg)
		if err == errBadVersion {
			return usageError(fs, stderr, "%q is neither a version (0 or more) nor an instant (2024-01-05T09:37:00Z, 2024-01-05)", arg)
		}
		if err != nil {
			return err
		}
		if snaps[i], err = t.Snapshot(ctx, v); err != nil {
			return err
		}
	}
	var served [2]map[*replay.File]*layout.Entry
	if *asJSON {
		elsewhere, closeElsewhere, err := external.storage(ctx, nil, retryLog(stderr))
		if err != nil {
			return err
		}
		defer closeElsewhere()
		for i, snap := range snaps {
			parts, err := snap.Partitions(ctx)
			if err != nil {
				return err
			}
			if _, served[i], err = servedLayout(snap, parts, nil, elsewhere.Serves); err != nil {
				return err
			}
		}
	}
	var out []diffEntry
	a, b := liveByKey(snaps[0]), liveByKey(snaps[1])
	for k, f := range b {
		if _, ok := a[k]; !ok {
			out = append(out, diffEntry{"added", servedPath(served[1], f), f.Path, f.Size, f.DV.UniqueID()})
		}
	}
	for k, f := range a {
		if _, ok := b[k]; !ok {
			out = append(out, diffEntry{"removed", servedPath(served[0], f), f.Path, f.Size, f.DV.UniqueID()})
		}
	}
	slices.SortFunc(out, func(x, y diffEntry) int {
		// By path; for one path, removed (the old vector) before added.
		return cmp.Or(strings.Compare(x.Path, y.Path), strings.Compare(y.Change, x.Change))
	})
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, e := range out {
		if *asJSON {
			if err := enc.Encode(e); err != nil {
				return err
			}
			continue
		}
		sign, note := "+", ""
		if e.Change == "removed" {
			sign = "-"
		}
		// A file removed and added again: its deletion vector changed.
		if (i > 0 && sameFile(out[i-1], e)) || (i+1 < len(out) && sameFile(e, out[i+1])) {
			note = "\t(its deletion vector changed)"
		}
		fmt.Fprintf(w, "%s %s%s\n", sign, e.Path, note)
	}
	return w.Flush()
}

// sameFile reports whether two neighbouring entries are one file with
// another deletion vector.
func sameFile(x, y diffEntry) bool {
	return x.Path == y.Path && x.DeletionVector != y.DeletionVector
}

// errBadVersion says an argument is neither a version nor an instant.
var errBadVersion = fmt.Errorf("not a version or an instant")

// resolveVersion reads a version number, or resolves an instant as at/ does.
func resolveVersion(ctx context.Context, t *versions.Table, arg string) (int64, error) {
	if v, err := strconv.ParseInt(arg, 10, 64); err == nil {
		if v < 0 {
			return 0, errBadVersion
		}
		return v, nil
	}
	ms, err := versions.ParseInstant(arg)
	if err != nil {
		return 0, errBadVersion
	}
	v, ok, err := t.AsOf(ctx, ms)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, beforeFirst(ctx, t, arg)
	}
	return v, nil
}

// beforeFirst is the error for an instant that resolves to no version:
// it names the first instant that does.
func beforeFirst(ctx context.Context, t *versions.Table, instant string) error {
	inst, err := t.Instants(ctx)
	if err != nil {
		return err
	}
	for _, in := range inst {
		if in.Resolves {
			return fmt.Errorf("%s: before the first version that can be rebuilt (v%d, at %s)", instant, in.Version, versions.FormatInstant(in.Millis))
		}
	}
	return fmt.Errorf("%s: no version can be rebuilt", instant)
}

// liveByKey indexes a snapshot's files by logical key (path and deletion
// vector).
func liveByKey(s *replay.Snapshot) map[string]*replay.File {
	m := make(map[string]*replay.File, len(s.Files))
	for i := range s.Files {
		f := &s.Files[i]
		m[action.LogicalKey(f.Path, f.DV.UniqueID())] = f
	}
	return m
}
