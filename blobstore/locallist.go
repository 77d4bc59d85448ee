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
// startAfter: the plain files and symbolic links there (a link is listed,
// and refused when read). A file that vanishes between the folder's
// listing and its stat (a writer's temporary file) is left out, as an
// object store would have listed it or not. A missing folder lists
// nothing.
func (l *localRoot) list(dir, startAfter string) ([]Object, error) {
	folder := strings.TrimSuffix(dir, "/")
	if folder == "" {
		folder = "."
	}
	fd, err := l.openat(folder, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Object
	for _, name := range names {
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
