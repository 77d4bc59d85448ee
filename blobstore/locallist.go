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
	fd := l.fd
	if dir != "" {
		how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: resolveFlags}
		var err error
		if fd, err = unix.Openat2(l.fd, strings.TrimSuffix(dir, "/"), &how); err == unix.ENOSYS {
			fd, err = l.walkDir(strings.TrimSuffix(dir, "/"))
		}
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return nil, nil
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: dir, Err: err}
		}
		defer unix.Close(fd)
	}
	// Read the names through a duplicate: the root's descriptor is O_PATH.
	dup, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	f := os.NewFile(uintptr(dup), dir)
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

// walkDir opens the folder dir below the root, refusing links, where
// openat2 is missing.
func (l *localRoot) walkDir(dir string) (int, error) {
	fd := l.fd
	for _, p := range strings.Split(dir, "/") {
		next, err := unix.Openat(fd, p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if fd != l.fd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}
