package tests

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestLiveWriterStress: a writer commits while readers follow latest
// through a real mount. Every reader, every round: latest never moves
// backwards; the version it names can be looked up at once (a name exists
// before anything points at it, even when a reader looked it up, in vain,
// just before it was committed); and a version directory, listed and read
// again, is exactly what it was the first time anyone saw it (no torn
// view). The writer appends, removes and keeps temporary files in
// _delta_log as delta-rs does. DELTAFS_STRESS_COMMITS sets the number of
// commits (default 30; `make stress` runs 300).
func TestLiveWriterStress(t *testing.T) {
	requireFUSE(t)
	commits := 30
	if s := os.Getenv("DELTAFS_STRESS_COMMITS"); s != "" {
		var err error
		if commits, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	mustCommit(t, gen, mustAdd(t, gen, "part-0.parquet", 10))
	m := mountLayout(t, dir, fs.Options{RefreshInterval: 20 * time.Millisecond})
	latest := filepath.Join(m.dir, "latest")

	var (
		mu    sync.Mutex
		seen  = map[string]versionView{} // v/N -> its first view
		fails atomic.Int64
		done  = make(chan struct{})
		wg    sync.WaitGroup
	)
	fail := func(format string, args ...any) {
		if fails.Add(1) <= 10 {
			t.Errorf(format, args...)
		}
	}
	const readers = 4
	rounds := make([]int, readers)
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := int64(-1)
			for {
				select {
				case <-done:
					return
				default:
				}
				target, err := os.Readlink(latest)
				if err != nil {
					fail("reader %d: readlink latest: %v", r, err)
					return
				}
				v, err := strconv.ParseInt(strings.TrimPrefix(target, "v/"), 10, 64)
				if err != nil {
					fail("reader %d: latest -> %q", r, target)
					return
				}
				if v < last {
					fail("reader %d: latest went back from v%d to v%d", r, last, v)
				}
				last = v
				vdir := filepath.Join(m.dir, target)
				if _, err := os.Stat(vdir); errors.Is(err, syscall.ENOENT) {
					fail("reader %d: latest -> %s, which does not exist", r, target)
					continue
				}
				view, err := tryViewVersion(vdir)
				if err != nil {
					fail("reader %d: %s: %v", r, target, err)
					continue
				}
				mu.Lock()
				first, ok := seen[target]
				if !ok {
					seen[target] = view
				}
				mu.Unlock()
				if ok && !first.equal(view) {
					fail("reader %d: %s changed: first %v, now %v", r, target, first.names, view.names)
				}
				// Look up the next version before it exists, as a prober
				// would: the kernel caches that it does not, and must be
				// told otherwise before latest points at it.
				_, _ = os.Stat(filepath.Join(m.dir, "v", strconv.FormatInt(v+1, 10)))
				rounds[r]++
			}
		}()
	}
	for i := 1; i <= commits && fails.Load() == 0; i++ {
		tmp := filepath.Join(dir, "_delta_log", fmt.Sprintf("_commit_%d.json.tmp", i))
		if err := os.WriteFile(tmp, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		acts := []action.Action{mustAdd(t, gen, fmt.Sprintf("part-%d.parquet", i), 10+i)}
		if i%5 == 0 {
			acts = append(acts, deltagen.Remove(fmt.Sprintf("part-%d.parquet", i-3), 1))
		}
		mustCommit(t, gen, acts...)
		os.Remove(tmp)
		time.Sleep(15 * time.Millisecond)
	}
	if fails.Load() == 0 {
		waitLatest(t, latest, int64(commits+1))
	}
	close(done)
	wg.Wait()
	t.Logf("%d commits, %d readers, rounds %v, %d versions seen, %d failures", commits, readers, rounds, len(seen), fails.Load())
}

// tryViewVersion is viewVersion returning its error.
func tryViewVersion(vdir string) (versionView, error) {
	names, err := walkFiles(vdir)
	if err != nil {
		return versionView{}, err
	}
	v := versionView{names: names, bytes: map[string][]byte{}}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(vdir, filepath.FromSlash(n)))
		if err != nil {
			return versionView{}, err
		}
		v.bytes[n] = b
	}
	return v, nil
}
