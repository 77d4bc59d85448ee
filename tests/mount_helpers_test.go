package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/versions"
)

// lockedBuffer collects the mount's log lines; the mount logs from its own
// goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// background is a command running in the background: its stderr collected,
// done closed once it has exited.
type background struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{}
}

// inBackground runs bin with args in the background, env added to this
// process's environment.
func inBackground(t *testing.T, bin string, env []string, args ...string) *background {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	s := &background{cmd: cmd, stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(s.done) }()
	return s
}

// liveMount is a table mounted in-process for one test.
type liveMount struct {
	dir     string // the mountpoint
	table   *versions.Table
	store   *blobstore.Store // for its request counts
	logs    *lockedBuffer
	unmount func() // before the test ends, if need be; runs once
}

// requireFUSE skips, loudly, where no FUSE mount can be made.
func requireFUSE(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("SKIPPING FUSE MOUNT TEST: /dev/fuse unavailable: %v", err)
	}
}

// mountForTest opens the table at location (through a store with
// storeOpts) and mounts it with fs.Mount in a fresh temp dir, serving the
// stored layout: most tests here check stored files, in generated tables
// whose folders carry no partition metadata. It is unmounted when the test
// ends, or by liveMount.unmount.
func mountForTest(t testing.TB, location string, opts fs.Options, storeOpts ...blobstore.Option) *liveMount {
	t.Helper()
	opts.PhysicalLayout = true
	return mountLayout(t, location, opts, storeOpts...)
}

// mountLayout is mountForTest with the layout opts asks for (logical by
// default).
func mountLayout(t testing.TB, location string, opts fs.Options, storeOpts ...blobstore.Option) *liveMount {
	t.Helper()
	return mountElsewhere(t, location, nil, opts, storeOpts...)
}

// mountElsewhere is mountLayout of a table that reads files outside its
// root under the stores of elsewhere (--allow-external).
func mountElsewhere(t testing.TB, location string, elsewhere []*blobstore.Store, opts fs.Options, storeOpts ...blobstore.Option) *liveMount {
	t.Helper()
	requireFUSE(t)
	st, err := blobstore.Open(context.Background(), location, storeOpts...)
	if err != nil {
		t.Fatal(err)
	}
	return mountOpened(t, st, elsewhere, opts)
}

// mountOpened mounts the table at st, which it closes when unmounted.
func mountOpened(t testing.TB, st *blobstore.Store, elsewhere []*blobstore.Store, opts fs.Options) *liveMount {
	t.Helper()
	requireFUSE(t)
	location := st.Location()
	ctx, cancel := context.WithCancel(context.Background())
	tbl, err := versions.Open(ctx, st, versions.Options{})
	if err != nil {
		cancel()
		st.Close()
		t.Fatalf("open %s: %v", location, err)
	}
	logs := &lockedBuffer{}
	if opts.Logger == nil {
		opts.Logger = log.New(logs, "", 0)
	}
	dir := t.TempDir()
	srv, err := fs.Mount(ctx, dir, fs.StoreTable{Table: tbl, Store: st, Elsewhere: elsewhere}, opts)
	if err != nil {
		cancel()
		st.Close()
		t.Fatalf("mount %s: %v", location, err)
	}
	var once sync.Once
	unmount := func() {
		once.Do(func() {
			if err := srv.Unmount(); err != nil {
				t.Errorf("unmount %s: %v", dir, err)
			}
			cancel()
			st.Close()
			if t.Failed() {
				t.Logf("mount log:\n%s", logs.String())
			}
		})
	}
	t.Cleanup(unmount)
	return &liveMount{dir: dir, table: tbl, store: st, logs: logs, unmount: unmount}
}

// buildVersion has the mount build a version directory and nothing more:
// the first look inside one builds its snapshot and layout, and a lookup
// of a name it does not hold looks up none of its files.
func buildVersion(t testing.TB, dir string) {
	t.Helper()
	if _, err := os.Lstat(filepath.Join(dir, "no-file-of-the-table")); !errors.Is(err, iofs.ErrNotExist) {
		t.Fatalf("build %s: %v", dir, err)
	}
}

// walkFiles returns the regular files under dir (a symlink such as latest
// is followed first), as slash-separated paths relative to dir, sorted.
// Only directory entries are read, nothing is stat'ed. Anything that is
// neither a regular file nor a directory is an error.
func walkFiles(dir string) ([]string, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	err = filepath.WalkDir(root, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: unexpected type %v", rel, d.Type())
		}
		names = append(names, rel)
		return nil
	})
	sort.Strings(names)
	return names, err
}

// readlink is os.Readlink that fails the test on error.
func readlink(t testing.TB, path string) string {
	t.Helper()
	s, err := os.Readlink(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitFor polls cond every 20ms for up to d, and says whether it became true.
func waitFor(d time.Duration, cond func() bool) bool {
	return pollFor(d, 20*time.Millisecond, cond)
}

// pollFor is waitFor asking every interval.
func pollFor(d, interval time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
}

// copyTree copies the directory src to dst (regular files and dirs only).
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(p, target)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sameStrings reports whether two sorted lists are equal.
func sameStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}
