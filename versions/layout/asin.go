package layout

import (
	"path"
	"strings"

	"github.com/deltafs/deltafs/replay"
)

// NameAsIn gives the entries of part, a layout of some of whole's files
// (what a commit added, or removed from the version before), the names
// those files have when whole is laid out with the same options: so that
// changes/<N>/added names a file as v/<N> does. Laid out alone, a part
// settles the clashes among its own files only (unique), and a file that
// shares its served name with a file of whole outside the part would keep
// a name whole gives another. That needs a file of whole outside the part
// with one of the part's served base names (under the physical layout,
// path elements: a file named as a folder); only then is whole laid out,
// for names alone (no stats, no footers), with the partition values
// wholeParts reads (not called under the physical layout).
func NameAsIn(part *Version, whole *replay.Snapshot, wholeParts func() ([]*replay.Partition, error), opts Options) error {
	if !mayBeNamedApart(part, whole, opts.Physical) {
		return nil
	}
	var parts []*replay.Partition
	if !opts.Physical {
		var err error
		if parts, err = wholeParts(); err != nil {
			return err
		}
	}
	w, err := Of(whole, parts, nil, opts)
	if err != nil {
		return err
	}
	type fileKey struct{ path, dv string }
	index := make(map[fileKey]int, len(part.Entries))
	for i, e := range part.Entries {
		index[fileKey{e.File.Path, e.File.DV.UniqueID()}] = i
	}
	for _, e := range w.Entries {
		k := fileKey{e.File.Path, e.File.DV.UniqueID()}
		if i, ok := index[k]; ok {
			part.Entries[i].Name = e.Name
			delete(index, k)
		}
	}
	sortEntries(part.Entries)
	return nil
}

// mayBeNamedApart reports whether whole holds more files than part under
// one of the names that decide the part's clashes (clashNames): only
// then may whole name a file of part otherwise than part does.
func mayBeNamedApart(part *Version, whole *replay.Snapshot, physical bool) bool {
	count := make(map[string]int)
	for _, e := range part.Entries {
		clashNames(e.File.Path, physical, func(n string) { count[n]++ })
	}
	if len(count) == 0 {
		return false
	}
	more := false
	for i := range whole.Files {
		clashNames(whole.Files[i].Path, physical, func(n string) {
			if c, ok := count[n]; ok {
				count[n] = c - 1
				more = more || c == 0
			}
		})
		if more {
			return true
		}
	}
	return false
}

// clashNames calls name with the names of a stored path that a served
// name can share with another file's: its base name as served under the
// logical layout (servedName), every element of it under the physical one.
func clashNames(stored string, physical bool, name func(string)) {
	if !physical {
		name(servedName("", path.Base(stored)))
		return
	}
	for rest := stored; rest != ""; {
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			name(rest)
			return
		}
		name(rest[:i])
		rest = rest[i+1:]
	}
}
