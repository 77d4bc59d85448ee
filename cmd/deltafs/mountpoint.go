package main

import (
	"bufio"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// checkMountpoint refuses a mount point that a mount would make a mess of:
// one that is not a directory, a dead mount left by a process that died,
// a live mount (deltafs's or another), a directory with files in it
// (unless nonempty: they would be hidden while mounted), one inside a
// local table's own folder or holding it (the table would hide itself),
// or one inside another deltafs mount (read-only).
func checkMountpoint(dir, location string, nonempty bool) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, syscall.ENOTCONN):
		return fmt.Errorf("mountpoint %s is a dead mount left by a process that died; clear it with: fusermount3 -u %s (or umount -l %s)", dir, abs, abs)
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("mountpoint %s: %w (make it first: mkdir -p %s)", dir, err, abs)
	case err != nil:
		return fmt.Errorf("mountpoint %s: %w", dir, err)
	case !info.IsDir():
		return fmt.Errorf("mountpoint %s is not a directory", dir)
	}
	// Where the mount lands: a link to a folder inside the table is that
	// folder.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if fstype, ok := mountedAt(abs); ok {
		if strings.Contains(fstype, "deltafs") {
			if pid := deltafsPID(abs); pid > 0 {
				return fmt.Errorf("mountpoint %s is already mounted by deltafs (pid %d): stop that one first (kill %d)", dir, pid, pid)
			}
			return fmt.Errorf("mountpoint %s holds a dead deltafs mount (its process is gone); clear it with: fusermount3 -u %s (or umount -l %s)", dir, abs, abs)
		}
		return fmt.Errorf("mountpoint %s is already a mount point (%s); use an empty directory", dir, fstype)
	}
	if root := localRoot(location); root != "" && (abs == root || strings.HasPrefix(abs, root+"/")) {
		return fmt.Errorf("mountpoint %s lies inside the table %s: the mount would hide the table from itself", dir, root)
	} else if root != "" && (abs == "/" || strings.HasPrefix(root, abs+"/")) {
		return fmt.Errorf("mountpoint %s holds the table %s: the mount would hide the table from itself", dir, root)
	}
	if outer, ok := deltafsMountAbove(abs); ok {
		return fmt.Errorf("mountpoint %s lies inside the deltafs mount %s, which is read-only: use a directory elsewhere", dir, outer)
	}
	if !nonempty {
		entries, err := os.ReadDir(abs)
		if err != nil {
			return fmt.Errorf("mountpoint %s: %w", dir, err)
		}
		if len(entries) > 0 {
			return fmt.Errorf("mountpoint %s is not empty (%s, e.g. %s): the mount would hide them; use an empty directory, or --nonempty", dir, plural(len(entries), "entry", "entries"), entries[0].Name())
		}
	}
	return nil
}

// localRoot is the absolute folder of a local table location, or "".
func localRoot(location string) string {
	p := location
	if strings.HasPrefix(location, "file:") { // file:///abs, file:/abs, escaped
		u, err := url.Parse(location)
		if err != nil {
			return ""
		}
		p = u.Path
	} else if strings.Contains(location, "://") {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return abs
}

// mountedAt reports whether path is a mount point, and its file system
// type, from /proc/self/mountinfo.
func mountedAt(path string) (fstype string, ok bool) {
	eachMount(func(mountpoint, t string) {
		if mountpoint == path {
			fstype, ok = t, true // the last one listed is the one on top
		}
	})
	return fstype, ok
}

// deltafsMountAbove returns the deltafs mount a path lies inside, if any
// (the innermost one; a mount point of its own is mountedAt's).
func deltafsMountAbove(path string) (outer string, ok bool) {
	eachMount(func(mountpoint, fstype string) {
		if strings.HasPrefix(path, strings.TrimSuffix(mountpoint, "/")+"/") && len(mountpoint) > len(outer) {
			outer, ok = mountpoint, strings.Contains(fstype, "deltafs")
		}
	})
	return outer, ok
}

// eachMount calls fn with each mount point listed in /proc/self/mountinfo
// and its file system type, in the order listed.
func eachMount(fn func(mountpoint, fstype string)) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source superopts
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		fstype := ""
		for i, f := range fields {
			if f == "-" && i+1 < len(fields) {
				fstype = fields[i+1]
			}
		}
		fn(unescapeMountinfo(fields[4]), fstype)
	}
}

// unescapeMountinfo undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// deltafsPID finds a `deltafs mount` process whose command line names
// path as its mount point, or 0. Only the program itself counts, not a
// wrapper whose arguments name it (timeout, sh -c, sudo).
func deltafsPID(path string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if args := strings.Split(strings.TrimSuffix(string(cmd), "\x00"), "\x00"); servesMount(args, path) {
			return pid
		}
	}
	return 0
}

// servesMount reports whether a command line is deltafs's mount command
// with path as its mount point.
func servesMount(args []string, path string) bool {
	if len(args) < 3 || !strings.HasPrefix(filepath.Base(args[0]), "deltafs") || !slices.Contains(args[1:], "mount") {
		return false
	}
	return slices.ContainsFunc(args[1:], func(arg string) bool {
		if a, err := filepath.Abs(arg); err == nil {
			if real, err := filepath.EvalSymlinks(a); err == nil {
				a = real
			}
			return a == path
		}
		return false
	})
}
