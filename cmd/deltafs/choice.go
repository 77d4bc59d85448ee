package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions"
)

// versionChoice is a command's --version N or --at INSTANT (neither:
// the latest version).
type versionChoice struct {
	version   int64
	at        string
	byInstant bool  // --at given
	atMillis  int64 // its instant
}

// chooseVersion registers --version and --at; what says what the version
// is for ("to list").
func chooseVersion(fs *pflag.FlagSet, what string) *versionChoice {
	c := &versionChoice{}
	fs.Int64Var(&c.version, "version", -1, "version "+what)
	fs.Lookup("version").DefValue = "latest"
	fs.StringVar(&c.at, "at", "", "the version a Delta reader resolves for an instant (2024-01-05T09:37:00Z, 2024-01-05T10:37:00.5+01:00, 2024-01-05)")
	return c
}

// check refuses a negative --version, an instant that does not parse, and
// both flags at once.
func (c *versionChoice) check(fs *pflag.FlagSet, stderr io.Writer) error {
	switch {
	case fs.Changed("version") && c.version < 0:
		return usageError(fs, stderr, "--version %d: versions are 0 or more", c.version)
	case fs.Changed("at") && fs.Changed("version"):
		return usageError(fs, stderr, "--at and --version: one or the other")
	case fs.Changed("at"):
		var err error
		if c.atMillis, err = versions.ParseInstant(c.at); err != nil {
			return usageError(fs, stderr, "--at: %v", err)
		}
		c.byInstant = true
	}
	return nil
}

// chosen says whether --version or --at was given.
func (c *versionChoice) chosen() bool { return c.version >= 0 || c.byInstant }

// resolve returns the chosen version of t, latest when none is. The
// version an instant resolves to is told on stderr, apart from the output
// a script reads.
func (c *versionChoice) resolve(ctx context.Context, t *versions.Table, stderr io.Writer) (int64, error) {
	switch {
	case c.byInstant:
		v, ok, err := t.AsOf(ctx, c.atMillis)
		if err != nil {
			return 0, err
		} else if !ok {
			return 0, beforeFirst(ctx, t, "--at "+c.at)
		}
		fmt.Fprintf(stderr, "deltafs: --at %s is version %d\n", c.at, v)
		return v, nil
	case c.version >= 0:
		return c.version, nil
	}
	return t.Latest(), nil
}

// snapshot opens the table at location and builds the chosen version.
func (c *versionChoice) snapshot(ctx context.Context, location string, stderr io.Writer) (*replay.Snapshot, error) {
	t, err := openTable(ctx, location, stderr)
	if err != nil {
		return nil, err
	}
	v, err := c.resolve(ctx, t, stderr)
	if err != nil {
		return nil, err
	}
	snap, err := t.Snapshot(ctx, v)
	if err != nil && !c.chosen() {
		return nil, latestBroken(ctx, t, err, readsIt)
	}
	return snap, err
}

// What to do with the newest version that can be rebuilt, said by a
// command that has --version, and by one that has not (versions: its
// advice was a flag it refuses).
const (
	readsIt   = "--version %d reads it"
	lsListsIt = "`deltafs ls --version %d` lists its files, `deltafs mount --version %[1]d` mounts it"
)

// latestBroken adds to why latest cannot be rebuilt the newest version
// that can, and how to use it: use, a format of the version.
func latestBroken(ctx context.Context, t *versions.Table, err error, use string) error {
	n, ok, nerr := t.NewestBuildable(ctx)
	if nerr != nil || !ok || n >= t.Latest() {
		return err
	}
	return fmt.Errorf("%w (v%d is the newest version that can be rebuilt: %s)", err, n, fmt.Sprintf(use, n))
}
