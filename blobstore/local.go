package blobstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ErrRefused is returned (wrapped) for an object a local store will not
// read: one reached through a symbolic link, or that is not a regular file.
var ErrRefused = errors.New("refused")

// localRoot reads the objects of a table of local files as the plain files
// they are (no sidecar files, no escaped names), and never leaves the table
// folder: no symbolic link is followed, not even one that points inside it,
// since whoever may write into the folder could otherwise make the mount
// serve any file its process can read. A FIFO, device or folder where a
// file should be is refused without blocking.
type localRoot struct {
	dir   string
	fd    int // the table folder, opened once (O_PATH); lookups start from it
	reads folderReads
}

func openLocalRoot(dir string) (*localRoot, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if info, serr := os.Stat(dir); err == unix.ENOTDIR && serr == nil && info.Mode().IsRegular() {
			return nil, notAFolder(dir)
		}
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return &localRoot{dir: dir, fd: fd}, nil
}

// notAFolder is the error for a table location that names a file: a data
// file or a commit, often, whose table is then the nearest folder above it
// holding a Delta log.
func notAFolder(file string) error {
	for d := filepath.Dir(file); ; d = filepath.Dir(d) {
		if info, err := os.Stat(filepath.Join(d, "_delta_log")); err == nil && info.IsDir() {
			return fmt.Errorf("a file, not a table's folder: name the table it lies in, %s", d)
		}
		if d == filepath.Dir(d) {
			return errors.New("a file, not a table's folder (the one holding _delta_log/)")
		}
	}
}

func (l *localRoot) close() error { return unix.Close(l.fd) }

// ErrRootReplaced is wrapped by CheckRoot's error.
var ErrRootReplaced = errors.New("the table folder was replaced or removed")

// checkRoot fails when the path the folder was opened at no longer names
// it: the folder was replaced by another (a rebuilt table moved into
// place), or removed. Reads still go to the folder opened, which is then
// not the table at that path.
func (l *localRoot) checkRoot() error {
	var opened, now unix.Stat_t
	if err := unix.Fstat(l.fd, &opened); err != nil {
		return &os.PathError{Op: "stat", Path: l.dir, Err: err}
	}
	if err := unix.Stat(l.dir, &now); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrRootReplaced, l.dir, err)
	}
	if now.Dev != opened.Dev || now.Ino != opened.Ino {
		return fmt.Errorf("%w: %s names another folder than the one opened", ErrRootReplaced, l.dir)
	}
	return nil
}

// resolveFlags keep a lookup below the root and off every link.
const resolveFlags = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// openFlags never block (a FIFO opens at once, and is then refused) and
// never make the file a controlling terminal.
const openFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY

// open opens the regular file at key, relative to the root, and returns
// its size.
func (l *localRoot) open(key string) (*os.File, int64, error) {
	fd, st, err := l.openFd(key)
	if err != nil {
		return nil, 0, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(l.dir, key)), st.Size, nil
}

// openFd opens the regular file at key as a bare descriptor, with its
// stat: reading a log file through it takes four system calls, where an
// os.File adds three (flags, poller, a second stat) to each of thousands.
func (l *localRoot) openFd(key string) (int, unix.Stat_t, error) {
	var st unix.Stat_t
	if !filepath.IsLocal(key) || strings.ContainsRune(key, 0) {
		return -1, st, fmt.Errorf("%w: the name leaves the table folder", ErrRefused)
	}
	fd, err := l.openat(key, openFlags)
	if err != nil {
		switch {
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
			return -1, st, ErrNotFound
		case errors.Is(err, unix.ELOOP):
			return -1, st, fmt.Errorf("%w: it is, or lies in, a symbolic link (deltafs follows no links in a table folder)", ErrRefused)
		case errors.Is(err, unix.EXDEV):
			return -1, st, fmt.Errorf("%w: the name leaves the table folder", ErrRefused)
		}
		return -1, st, err
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, st, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, st, fmt.Errorf("%w: not a regular file (%s)", ErrRefused, fileType(st.Mode))
	}
	return fd, st, nil
}

// openat opens the name below the root with flags, by openat2 (Linux
// 5.6); on older kernels it walks the name one element at a time,
// refusing a link at each.
func (l *localRoot) openat(name string, flags uint64) (int, error) {
	how := unix.OpenHow{Flags: flags, Resolve: resolveFlags}
	for range 8 { // EAGAIN: a concurrent rename raced the lookup; try again
		fd, err := unix.Openat2(l.fd, name, &how)
		if err == unix.EAGAIN || err == unix.EINTR {
			continue
		}
		if err == unix.ENOSYS {
			return l.walk(name, int(flags))
		}
		return fd, err
	}
	return -1, unix.EAGAIN
}

// walk is openat without openat2.
func (l *localRoot) walk(name string, flags int) (int, error) {
	parts := strings.Split(filepath.Clean(name), "/")
	dir := l.fd
	defer func() {
		if dir != l.fd {
			unix.Close(dir)
		}
	}()
	for _, p := range parts[:len(parts)-1] {
		fd, err := unix.Openat(dir, p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		if dir != l.fd {
			unix.Close(dir)
		}
		dir = fd
	}
	return unix.Openat(dir, parts[len(parts)-1], flags|unix.O_NOFOLLOW, 0)
}

func fileType(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFDIR:
		return "a folder"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "not a file"
}

// read returns the whole file at key.
func (l *localRoot) read(key string) ([]byte, error) {
	fd, st, err := l.openFd(key)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	data := make([]byte, st.Size)
	n, err := preadFull(fd, data, 0)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: key, Err: err}
	}
	if n < len(data) {
		err = fmt.Errorf("the file shrank while read (%d of %d bytes)", n, len(data))
	}
	return data, err
}

// readRange fills the buffers bufsFor gives for the file's size in turn
// from offset (fewer bytes at the end of the file) and returns how many it
// read and that size.
func (l *localRoot) readRange(key string, offset int64, bufsFor func(size int64) [][]byte) (int64, int64, error) {
	fd, st, err := l.openFd(key)
	if err != nil {
		return 0, 0, err
	}
	defer unix.Close(fd)
	var total int64
	for _, buf := range bufsFor(st.Size) {
		n, err := preadFull(fd, buf, offset+total)
		total += int64(n)
		if err != nil {
			return 0, 0, &os.PathError{Op: "read", Path: key, Err: err}
		}
		if n < len(buf) {
			break
		}
	}
	return total, st.Size, nil
}

// preadFull reads into buf from offset until it is full or the file ends,
// returning how much it read.
func preadFull(fd int, buf []byte, offset int64) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := unix.Pread(fd, buf[n:], offset+int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

// stat returns the size and modification time of the file at key.
func (l *localRoot) stat(key string) (Object, error) {
	fd, st, err := l.openFd(key)
	if err != nil {
		return Object{}, err
	}
	unix.Close(fd)
	return Object{Key: key, Size: st.Size, ModTime: time.Unix(st.Mtim.Unix())}, nil
}

// write stores data at key as a plain file (tests and generators only),
// through a temporary file so that a reader never sees half of it.
func (l *localRoot) write(key string, data []byte) error {
	if !filepath.IsLocal(key) {
		return fmt.Errorf("%w: the name leaves the table folder", ErrRefused)
	}
	name := filepath.Join(l.dir, key)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".deltafs-write-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil || tmp.Chmod(0o644) != nil {
		tmp.Close()
		if err == nil {
			err = fmt.Errorf("chmod %s failed", tmp.Name())
		}
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// remove deletes the file at key (tests only).
func (l *localRoot) remove(key string) error {
	if !filepath.IsLocal(key) {
		return fmt.Errorf("%w: the name leaves the table folder", ErrRefused)
	}
	err := os.Remove(filepath.Join(l.dir, key))
	if errors.Is(err, os.ErrNotExist) {
		return ErrNotFound
	}
	return err
}
