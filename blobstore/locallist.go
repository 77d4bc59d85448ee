package blobstore

import (
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// list returns, in key order, the objects directly under dir (a key
// prefix ending in '/', or "" for the table root) whose keys sort after
// startAfter, at most limit of them if limit >= 0: the plain files and
// symbolic links there (a link is listed, and refused when read). Only the
// objects returned are stat'ed, so that paging through a long folder costs
// a page of stats per page. A file that vanishes between the folder's
// listing and its stat (a writer's temporary file) is left out, as an
// object store would have listed it or not. A missing folder lists
// nothing.
func (l *localRoot) list(dir, startAfter string, limit int) ([]Object, error) {
	names, fd, err := l.openNames(dir)
	if err != nil || fd < 0 {
		return nil, err
	}
	defer unix.Close(fd)
	var out []Object
	first := 0 // the first name whose key may sort after startAfter
	switch {
	case strings.HasPrefix(startAfter, dir):
		first, _ = slices.BinarySearch(names, startAfter[len(dir):])
	case startAfter > dir:
		first = len(names) // past every key under dir
	}
	for _, name := range names[first:] {
		if limit >= 0 && len(out) == limit {
			break
		}
		key := dir + name
		if key <= startAfter {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // gone since the folder was read
			}
			return nil, &os.PathError{Op: "stat", Path: key, Err: err}
		}
		if t := st.Mode & unix.S_IFMT; t == unix.S_IFDIR {
			continue
		}
		out = append(out, Object{Key: key, Size: st.Size, ModTime: time.Unix(st.Mtim.Unix())})
	}
	return out, nil
}

// openNames returns the sorted names under dir and the folder opened
// (O_PATH) to stat them from, which the caller closes; a missing or empty
// folder gives no names and no folder (-1).
func (l *localRoot) openNames(dir string) ([]string, int, error) {
	names, err := l.names(dir)
	if err != nil || len(names) == 0 {
		return nil, -1, err
	}
	fd, err := l.openat(folderName(dir), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil, -1, nil // gone since it was read
	}
	if err != nil {
		return nil, -1, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return names, fd, nil
}

// folderName is the folder of a key prefix ending in '/' ("" is the root),
// relative to the root.
func folderName(dir string) string {
	if dir == "" {
		return "."
	}
	return strings.TrimSuffix(dir, "/")
}
