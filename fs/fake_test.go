package fs

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/versions"
)

// fakeTable is an in-memory Table serving data files from a directory. It
// counts every call, so tests can assert that metadata operations make no
// storage request (ReadRange is the only storage call here).
type fakeTable struct {
	dir      string
	logical  bool            // mount with the logical layout (mountFake)
	local    bool            // claim local files (LocalFiler) while serving every byte itself
	metadata action.Metadata // every version's metadata

	mu        sync.Mutex
	snaps     map[int64]*replay.Snapshot // GUARDED_BY(mu): every version, known or pending
	history   []HistoryEntry             // GUARDED_BY(mu)
	known     int64                      // GUARDED_BY(mu): newest version Refresh has revealed
	latest    atomic.Int64
	contents  map[string][]byte // GUARDED_BY(mu): the bytes written for each path
	readErr   map[string]error  // GUARDED_BY(mu): paths whose reads fail
	versionsN atomic.Int64
	snapshotN atomic.Int64
	historyN  atomic.Int64
	refreshN  atomic.Int64
	readN     atomic.Int64
	readBytes atomic.Int64
}

// fakeFile describes one data file to create.
type fakeFile struct {
	path    string
	size    int
	modTime int64
	records int64
	part    *replay.Partition
	dv      *action.DeletionVector
	missing bool   // in the log but not in storage
	data    []byte // the file's bytes; nil: size random bytes
}

func newFakeTable(t *testing.T) *fakeTable {
	return &fakeTable{
		dir:      t.TempDir(),
		snaps:    map[int64]*replay.Snapshot{},
		contents: map[string][]byte{},
		readErr:  map[string]error{},
		known:    -1,
	}
}

// addVersion records the next version with the given live files (writing
// their bytes) and, when reveal is set, makes it known at once; otherwise
// the next Refresh reveals it.
func (f *fakeTable) addVersion(t *testing.T, op string, files []fakeFile, reveal bool) int64 {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	v := int64(len(f.snaps))
	snap := &replay.Snapshot{Version: v, Metadata: f.metadata}
	for _, ff := range files {
		if ff.data != nil {
			ff.size = len(ff.data)
		}
		if _, ok := f.contents[ff.path]; !ok && !ff.missing {
			data := ff.data
			if data == nil {
				data = make([]byte, ff.size)
				rng := rand.New(rand.NewPCG(uint64(len(ff.path)), uint64(ff.size)))
				for i := range data {
					data[i] = byte(rng.Uint32())
				}
			}
			full := filepath.Join(f.dir, filepath.FromSlash(ff.path))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, data, 0o644); err != nil {
				t.Fatal(err)
			}
			f.contents[ff.path] = data
		}
		snap.Files = append(snap.Files, replay.File{
			Path: ff.path, Size: int64(ff.size), ModTime: ff.modTime, DV: ff.dv,
		})
	}
	slices.SortFunc(snap.Files, func(a, b replay.File) int { return strings.Compare(a.Path, b.Path) })
	n := len(snap.Files)
	details := &replay.Details{NumRecords: make([]int64, n), Partitions: make([]*replay.Partition, n), NullCounted: make([]*action.ColumnSet, n)}
	for i, sf := range snap.Files {
		for _, ff := range files {
			if ff.path == sf.Path {
				details.NumRecords[i], details.Partitions[i] = ff.records, ff.part
			}
		}
	}
	snap.SetDetails(details)
	f.snaps[v] = snap
	f.history = append(f.history, HistoryEntry{Version: v, Instant: new(1_700_000_000_000 + v*1000), Timestamp: 1_700_000_000_000 + v*1000, Operation: op,
		Files: len(files), Added: new(len(files)), Removed: new(0)})
	if reveal {
		f.known = v
		f.latest.Store(v)
	}
	return v
}

func (f *fakeTable) Latest() int64 { return f.latest.Load() }

func (f *fakeTable) Versions(ctx context.Context) ([]int64, error) {
	f.versionsN.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	var vs []int64
	for v := int64(0); v <= f.known; v++ {
		vs = append(vs, v)
	}
	return vs, nil
}

func (f *fakeTable) Snapshot(ctx context.Context, v int64) (*replay.Snapshot, error) {
	f.snapshotN.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if s, ok := f.snaps[v]; ok && v <= f.known {
		return s, nil
	}
	return nil, fmt.Errorf("snapshot v%d: %w", v, iofs.ErrNotExist)
}

func (f *fakeTable) History(ctx context.Context) ([]HistoryEntry, error) {
	f.historyN.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.history[:f.known+1]), nil
}

// CommitTime times a known version by its history entry.
func (f *fakeTable) CommitTime(ctx context.Context, v int64) (int64, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if v < 0 || v > f.known {
		return 0, false, nil
	}
	return *f.history[v].Instant, true, nil
}

// Instants times each known version by its history entry.
func (f *fakeTable) Instants(ctx context.Context) ([]versions.Instant, error) {
	h, _ := f.History(ctx)
	out := make([]versions.Instant, len(h))
	for i, e := range h {
		out[i] = versions.Instant{Version: e.Version, Millis: *e.Instant, Resolves: true}
	}
	return out, nil
}

func (f *fakeTable) AsOf(ctx context.Context, millis int64) (int64, bool, error) {
	inst, _ := f.Instants(ctx)
	v, ok := int64(0), false
	for _, in := range inst {
		if in.Millis <= millis {
			v, ok = in.Version, true
		}
	}
	return v, ok, nil
}

// Changes: the fake keeps no commits (changes/ is tested on real tables).
// HasCommit: every known version has a commit (though Changes reads none).
func (f *fakeTable) HasCommit(ctx context.Context, v int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return v >= 0 && v <= f.known, nil
}

func (f *fakeTable) Changes(ctx context.Context, v int64) (*versions.Changes, error) {
	return nil, versions.ErrNoCommit
}

func (f *fakeTable) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	f.readN.Add(1)
	f.mu.Lock()
	err := f.readErr[path]
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	fh, err := os.Open(filepath.Join(f.dir, filepath.FromSlash(path)))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer fh.Close()
	buf := make([]byte, n)
	got, err := fh.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	f.readBytes.Add(int64(got))
	return buf[:got], nil
}

func (f *fakeTable) Refresh(ctx context.Context, beforeMove func(int64)) (bool, error) {
	f.refreshN.Add(1)
	f.mu.Lock()
	newest := int64(len(f.snaps)) - 1
	if newest == f.known {
		f.mu.Unlock()
		return false, nil
	}
	f.known = newest
	f.mu.Unlock()
	if beforeMove != nil {
		beforeMove(newest)
	}
	f.latest.Store(newest)
	return true, nil
}

func (f *fakeTable) content(path string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.contents[path]
}

func (f *fakeTable) failReads(path string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readErr[path] = err
}
