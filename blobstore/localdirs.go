package blobstore

import (
	"errors"
	"os"
	"slices"
	"sync"

	"golang.org/x/sys/unix"
)

// folderReads lets concurrent listings of one folder share its reading:
// the version probes of a table's opening list one folder up to sixteen
// times at once, and reading a folder of 20,000 log files costs the kernel
// about 8 ms whatever part of it is wanted. A caller never takes a reading
// that began before it asked (it would miss a file written just before):
// while one reading runs, the callers that arrive wait together for the
// next one, which starts when the running one ends.
type folderReads struct {
	mu      sync.Mutex
	folders map[string]*folderRead // GUARDED_BY(mu)
}

// folderRead is the state of one folder's readings.
type folderRead struct {
	running *nameReading // GUARDED_BY(folderReads.mu)
	waiting *nameReading // GUARDED_BY(folderReads.mu); not started: callers join it
}

// nameReading is one reading of a folder's names, sorted; shared, so read
// only.
type nameReading struct {
	done  chan struct{}
	names []string
	err   error
}

// names returns the sorted names under dir (a key prefix, see list), from
// a reading that began after the call did; nil for a missing folder.
func (l *localRoot) names(dir string) ([]string, error) {
	r := &l.reads
	r.mu.Lock()
	if r.folders == nil {
		r.folders = map[string]*folderRead{}
	}
	f := r.folders[dir]
	if f == nil {
		f = &folderRead{}
		r.folders[dir] = f
	}
	if w := f.waiting; w != nil {
		r.mu.Unlock()
		<-w.done
		return w.names, w.err
	}
	mine := &nameReading{done: make(chan struct{})}
	before := f.running
	if before != nil {
		f.waiting = mine
	} else {
		f.running = mine
	}
	r.mu.Unlock()
	if before != nil {
		<-before.done
		r.mu.Lock()
		f.waiting, f.running = nil, mine // later callers wait for the next one
		r.mu.Unlock()
	}
	mine.names, mine.err = l.readNames(dir)
	r.mu.Lock()
	if f.running == mine {
		f.running = nil
		if f.waiting == nil {
			delete(r.folders, dir)
		}
	}
	r.mu.Unlock()
	close(mine.done)
	return mine.names, mine.err
}

// readNames reads the names under dir, sorted; nil for a missing folder.
func (l *localRoot) readNames(dir string) ([]string, error) {
	fd, err := l.openat(folderName(dir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
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
	return names, nil
}
