package layout

import (
	"fmt"
	"hash/fnv"
	"path"
	"strings"
)

// servedName is the name of a stored file under the partition directory
// dir ("" or ending in '/'): dir and the stored base name, its first
// character escaped for a hidden name (hiddenName). Writers put a partitioned file in that very
// directory, mostly: the stored path then is the name, shared instead of
// copied (a million names of 84 bytes were a tenth of a version's first
// listing, and as much memory again).
func servedName(dir, stored string) string {
	base := path.Base(stored)
	if hiddenName(base) {
		return dir + escapeBytes(base, func(i int, _ byte) bool { return i == 0 })
	}
	if len(stored) == len(dir)+len(base) && strings.HasPrefix(stored, dir) {
		return stored
	}
	return dir + base
}

// hiddenName reports whether a data file's name begins with "_" or ".",
// which servedName escapes (as a partition folder's name is escaped):
// pyarrow, pandas and Spark take such files for metadata, and skip them.
func hiddenName(base string) bool { return base != "" && (base[0] == '_' || base[0] == '.') }

// unique gives every entry, sorted by byName, a name of its own, and
// returns those kept (sorted again) and those hidden. A name several files
// would share (two stored folders holding the same base name; a stored
// path live under two deletion vectors) is kept by the first, by stored
// path; each other gets "-" and 8 hex digits of a hash of its stored path
// before its extension (part-0.parquet -> part-0-1a2b3c4d.parquet), so its
// name is the same in every version. A hash that gives a name already
// taken, by a file, a folder or another hash, is taken again with a count.
// Under the physical layout a file may also be named as a folder (a key
// "a" and a key "a/b" in an object store): it is renamed the same way.
// Logical folders cannot be: every file lies below all of them.
func unique(es []Entry, physical bool) ([]Entry, []Hidden) {
	var folders map[string]bool
	if physical {
		folders = foldersOf(es)
	}
	var renamed []int
	for i := range es {
		if i > 0 && es[i].Name == es[i-1].Name || folders[es[i].Name] {
			renamed = append(renamed, i)
		}
	}
	if len(renamed) == 0 {
		return es, nil
	}
	taken := make(map[string]bool, len(es)+len(folders))
	for _, e := range es {
		taken[e.Name] = true
	}
	for f := range folders {
		taken[f] = true
	}
	var hidden []Hidden
	for _, i := range renamed {
		e := &es[i]
		name := disambiguate(e.Name, e.File.Path, 0)
		for k := 1; taken[name]; k++ {
			name = disambiguate(e.Name, e.File.Path, k)
		}
		taken[name] = true
		if tooLong(name) {
			hidden = append(hidden, Hidden{e.File.Path, fmt.Sprintf("%q, the name that keeps it apart from another file's, is longer than %d bytes", name, nameMax)})
			e.File = nil
			continue
		}
		e.Name = name
	}
	kept := es[:0]
	for _, e := range es {
		if e.File != nil {
			kept = append(kept, e)
		}
	}
	sortEntries(kept)
	return kept, hidden
}

// disambiguate is name with "-" and 8 hex digits of a hash of the stored
// path (and the count k, past 0) before its extension.
func disambiguate(name, stored string, k int) string {
	h := fnv.New32a()
	h.Write([]byte(stored))
	if k > 0 {
		fmt.Fprintf(h, "#%d", k)
	}
	ext := path.Ext(name)
	if ext == name[strings.LastIndexByte(name, '/')+1:] {
		ext = "" // a dot file: no extension to keep
	}
	return fmt.Sprintf("%s-%08x%s", strings.TrimSuffix(name, ext), h.Sum32(), ext)
}

// foldersOf is the set of the folders the entries' names lie in, each
// without its trailing '/'.
func foldersOf(es []Entry) map[string]bool {
	folders := map[string]bool{}
	last := ""
	for _, e := range es {
		dir := e.Name[:max(strings.LastIndexByte(e.Name, '/'), 0)]
		if dir == last { // sorted: the files of a folder come together
			continue
		}
		last = dir
		for ; dir != "" && !folders[dir]; dir = dir[:max(strings.LastIndexByte(dir, '/'), 0)] {
			folders[dir] = true
		}
	}
	return folders
}

// tooLong reports whether an element of a served path is longer than a
// file system allows.
func tooLong(name string) bool {
	for len(name) > nameMax {
		i := strings.IndexByte(name, '/')
		if i < 0 || i > nameMax {
			return true
		}
		name = name[i+1:]
	}
	return false
}
