package layout

import (
	"fmt"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// Entry is one served data file of a version: the path it is served under
// and the live file behind it.
type Entry struct {
	Name string       // served path inside the version, '/'-separated
	File *replay.File // points into the snapshot
	// Fill: the file lacks columns the table added (its stats say so),
	// and is served through Version.Fill.
	Fill bool
}

// Version is how one version of a table is served.
type Version struct {
	// Entries are the served files, sorted by Name. Files outside the
	// table root are left out (see Hidden).
	Entries []Entry
	// Rename gives the served files their logical column names; nil when
	// the stored names are served (no column mapping, or the physical
	// layout).
	Rename *parquetview.Rename
	// SameSize says that a file served through Rename keeps its stored
	// size (its footer never grows: no logical name is longer than its
	// physical one), so its size is known without reading it.
	SameSize bool
	// Fill serves the entries that lack columns, with those columns as
	// nulls; nil when no column can be filled.
	Fill *parquetview.Rename
	// Uncounted are the columns, by stored name, that no file's stats
	// say it has or lacks (FindUncounted).
	Uncounted []string
	// Unjudged counts the files whose stats have no null counts, which
	// say nothing of their columns (FindUncounted).
	Unjudged int
	// Hidden are the files not served, and why: paths outside the table
	// root, names no file system can hold.
	Hidden []Hidden
}

// RenameOf is how an entry's columns are served (nil: as stored), and
// whether it keeps its stored size.
func (v *Version) RenameOf(e *Entry) (*parquetview.Rename, bool) {
	if e.Fill {
		return v.Fill, false
	}
	return v.Rename, v.SameSize
}

// Hidden is a live file a version directory does not show.
type Hidden struct {
	Path string // as stored
	Why  string
}

// nameMax is the longest name of one path element Linux allows (NAME_MAX):
// a longer one cannot be listed or looked up.
const nameMax = 255

// Options say how Of lays a version out.
type Options struct {
	// Physical asks for the stored layout: stored paths and column names.
	Physical bool
	// External says which files outside the table root (absolute URIs)
	// are served, under the logical layout: those the user allowed (a
	// shallow clone's). nil: none.
	External func(path string) bool
	// CheckFooters serves every file as those lacking columns are
	// served, whatever its stats say (none, or wrong): the first stat of
	// each reads its footer, and a file lacking columns is served with
	// them.
	CheckFooters bool
}

// Of lays out a snapshot. parts are the files' partition values and
// counted the columns their stats count nulls of (both index-aligned with
// snap.Files; Snapshot.Details); under the logical layout, parts are
// needed for a partitioned table, and counted says which files lack
// columns (nil: none is filled).
func Of(snap *replay.Snapshot, parts []*replay.Partition, counted []*action.ColumnSet, opts Options) (*Version, error) {
	physical := opts.Physical
	v := &Version{}
	var dirs func(i int) (string, error)
	lacks := func(int) bool { return false }
	if !physical {
		var err error
		if v.Rename, v.SameSize, err = renameOf(&snap.Metadata, &snap.Protocol); err != nil {
			return nil, fmt.Errorf("v%d: %w", snap.Version, err)
		}
		var rule fillRule
		v.Fill, rule = fillOf(&snap.Metadata, &snap.Protocol)
		if v.Fill != nil && len(counted) == len(snap.Files) {
			rule = rule.judgedBy(counted)
			v.Uncounted = rule.uncounted
			lacks = lacksColumns(counted, rule)
			if opts.CheckFooters {
				lacks = func(int) bool { return true } // footers tell, whatever the stats say
			}
		}
		if v.Fill != nil && rule.void {
			lacks = func(int) bool { return true }
		}
		if dirs, err = partitionDirs(&snap.Metadata, &snap.Protocol, parts, len(snap.Files)); err != nil {
			return nil, fmt.Errorf("v%d: %w", snap.Version, err)
		}
	}
	v.Entries = make([]Entry, 0, len(snap.Files))
	for i := range snap.Files {
		f := &snap.Files[i]
		if action.IsExternal(f.Path) && (physical || opts.External == nil || !opts.External(f.Path)) {
			v.Hidden = append(v.Hidden, Hidden{f.Path, "it lies outside the table root"})
			continue
		}
		name := f.Path
		if !physical {
			d, err := dirs(i)
			if err != nil {
				return nil, fmt.Errorf("v%d: %s: %w", snap.Version, f.Path, err)
			}
			name = servedName(d, f.Path)
		}
		if tooLong(name) {
			v.Hidden = append(v.Hidden, Hidden{f.Path, fmt.Sprintf("a name in %q is longer than %d bytes", name, nameMax)})
			continue
		}
		if v.Fill != nil && len(counted) == len(snap.Files) && counted[i] == nil {
			v.Unjudged++
		}
		v.Entries = append(v.Entries, Entry{Name: name, File: f, Fill: lacks(i)})
	}
	sortEntries(v.Entries)
	var renamedTooLong []Hidden
	v.Entries, renamedTooLong = unique(v.Entries, physical)
	v.Hidden = append(v.Hidden, renamedTooLong...)
	return v, nil
}
