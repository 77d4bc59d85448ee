package versions

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
)

// Instant is when a version was committed, by Delta's clock: its in-commit
// timestamp where the table has them, else its commit file's modification
// time, made strictly increasing (a commit not later than the one before it
// counts as that one's time plus 1 ms).
type Instant struct {
	Version  int64
	Millis   int64 // since the epoch
	InCommit bool  // an in-commit timestamp
	// Resolves: AsOf(Millis) is Version. Not so for a version timed by
	// its file before in-commit timestamps were enabled, if the file's
	// time is later than the enablement: no instant reaches it.
	Resolves bool
}

// ictProps are the table properties of in-commit timestamps.
const (
	propICT             = "delta.enableInCommitTimestamps"
	propICTEnableVer    = "delta.inCommitTimestampEnablementVersion"
	propICTEnableMillis = "delta.inCommitTimestampEnablementTimestamp"
)

// clock says how a table's versions are timed: from which version on by
// in-commit timestamps (-1: never), and the first such timestamp.
type clock struct {
	ictFrom   int64
	ictMillis int64 // the enablement timestamp; 0 when enabled from the start
}

// tableClock reads the clock from the metadata of the newest version that
// can be rebuilt (vs ascending).
func (t *Table) tableClock(ctx context.Context, vs []int64) (clock, error) {
	if len(vs) == 0 {
		return clock{ictFrom: -1}, nil
	}
	snap, err := t.Snapshot(ctx, vs[len(vs)-1])
	if err != nil {
		return clock{}, err
	}
	conf := snap.Metadata.Configuration
	// Active only where supported too (PROTOCOL.md "In-Commit Timestamps":
	// writer version 7 and the feature listed), as any table feature.
	if conf[propICT] != "true" || !slices.Contains(snap.Protocol.WriterFeatures, "inCommitTimestamp") {
		return clock{ictFrom: -1}, nil
	}
	c := clock{}
	if v, ok := conf[propICTEnableVer]; ok {
		if c.ictFrom, err = strconv.ParseInt(v, 10, 64); err != nil || c.ictFrom < 0 {
			return clock{}, fmt.Errorf("table property %s = %q is not a version", propICTEnableVer, v)
		}
		if c.ictMillis, err = strconv.ParseInt(conf[propICTEnableMillis], 10, 64); err != nil {
			return clock{}, fmt.Errorf("table property %s = %q is not a timestamp", propICTEnableMillis, conf[propICTEnableMillis])
		}
	}
	return c, nil
}

// modTimes returns the monotonized modification time of every version the
// listing has a commit (or, where history was cleaned up, a checkpoint)
// for, by version.
func modTimes(files []replay.LogFile) map[int64]int64 {
	byVersion := map[int64]int64{}
	for _, f := range files {
		switch {
		case f.Kind == replay.Commit:
			byVersion[f.Version] = f.ModTime
		case f.Kind == replay.CheckpointFile:
			if _, ok := byVersion[f.Version]; !ok {
				byVersion[f.Version] = f.ModTime
			}
		}
	}
	vs := slices.Sorted(maps.Keys(byVersion))
	for i := 1; i < len(vs); i++ {
		byVersion[vs[i]] = max(byVersion[vs[i]], byVersion[vs[i-1]]+1)
	}
	return byVersion
}

// Instants returns the instant of every version that can be rebuilt and
// timed, ascending. Versions timed by in-commit timestamps cost a small read each
// (the first line of the commit), once.
func (t *Table) Instants(ctx context.Context) ([]Instant, error) {
	tl, err := t.timeline(ctx)
	if err != nil {
		return nil, err
	}
	c := tl.clock
	if err := t.readInCommitTimes(ctx, tl); err != nil {
		return nil, err
	}
	out := make([]Instant, len(tl.vs))
	for i, v := range tl.vs {
		if c.ictFrom >= 0 && v >= c.ictFrom {
			ms, err := t.inCommitTime(ctx, tl.files, v)
			if err != nil {
				return nil, err
			}
			out[i] = Instant{Version: v, Millis: ms, InCommit: true}
			continue
		}
		out[i] = Instant{Version: v, Millis: tl.mods[i]}
	}
	split := ictSplit(tl.vs, c)
	at := func(i int) int64 { return out[i].Millis }
	ict := func(i int) (int64, error) { return at(i), nil }
	for i := range out {
		j, _ := resolve(out[i].Millis, len(out), split, c, ict, at)
		out[i].Resolves = j == i
	}
	return out, nil
}

// inCommitReads is how many commits' first lines readInCommitTimes reads
// at once.
const inCommitReads = 16

// readInCommitTimes reads the in-commit timestamps of the timeline's
// versions not read yet, several at once: one after another, the first
// `ls at/` of a table of 20,000 such commits in an object store was 20,000
// round trips.
func (t *Table) readInCommitTimes(ctx context.Context, tl *timeline) error {
	if tl.clock.ictFrom < 0 {
		return nil
	}
	var missing []int64
	t.mu.Lock()
	for _, v := range tl.vs[ictSplit(tl.vs, tl.clock):] {
		if _, ok := t.ict[v]; !ok {
			missing = append(missing, v)
		}
	}
	t.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		first error
		once  sync.Once
	)
	for range min(inCommitReads, len(missing)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(missing); i = int(next.Add(1) - 1) {
				if _, err := t.inCommitTime(ctx, tl.files, missing[i]); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// ictSplit is the index of the first of vs (ascending) timed by in-commit
// timestamps, a suffix; len(vs) for none.
func ictSplit(vs []int64, c clock) int {
	if c.ictFrom < 0 {
		return len(vs)
	}
	return sort.Search(len(vs), func(i int) bool { return vs[i] >= c.ictFrom })
}

// resolve returns the index of the version among n a Delta reader
// resolves for an instant (-1: before them all): the versions from split
// on by their in-commit timestamps (ict), for an instant from the
// enablement on; the others by their files' times (mod).
func resolve(millis int64, n, split int, c clock, ict func(int) (int64, error), mod func(int) int64) (int, error) {
	if split < n && (split == 0 || millis >= c.ictMillis) {
		var searchErr error
		k := sort.Search(n-split, func(i int) bool {
			ms, err := ict(split + i)
			if err != nil && searchErr == nil {
				searchErr = err
			}
			return err != nil || ms > millis
		})
		if searchErr != nil {
			return -1, searchErr
		}
		if k > 0 || split == 0 {
			return split + k - 1, nil
		}
	}
	k := sort.Search(split, func(i int) bool { return mod(i) > millis })
	return k - 1, nil
}

// AsOf returns the version a Delta reader resolves for an instant: the
// newest version committed at or before it. ok is false when the instant
// is before the first version that can be rebuilt. With in-commit
// timestamps it reads about log2(versions) commits' first lines.
func (t *Table) AsOf(ctx context.Context, millis int64) (version int64, ok bool, err error) {
	tl, err := t.timeline(ctx)
	if err != nil || len(tl.vs) == 0 {
		return 0, false, err
	}
	i, err := resolve(millis, len(tl.vs), ictSplit(tl.vs, tl.clock), tl.clock,
		func(i int) (int64, error) { return t.inCommitTime(ctx, tl.files, tl.vs[i]) },
		func(i int) int64 { return tl.mods[i] })
	if err != nil || i < 0 {
		return 0, false, err
	}
	return tl.vs[i], true, nil
}

// findLogFile finds key in a listing sorted by key.
func findLogFile(files []replay.LogFile, key string) (int, bool) {
	return sort.Find(len(files), func(i int) int { return strings.Compare(key, files[i].Key) })
}

func indexInstants(in []Instant) map[int64]int64 {
	m := make(map[int64]int64, len(in))
	for _, i := range in {
		m[i.Version] = i.Millis
	}
	return m
}

// firstLineBytes is how much of a commit one read takes to find its first
// action (commitInfo, with the in-commit timestamp): a longer first line
// costs a second read of the whole commit.
const firstLineBytes = 8 << 10

// inCommitTime returns version v's in-commit timestamp, reading its
// commit's first line once.
func (t *Table) inCommitTime(ctx context.Context, files []replay.LogFile, v int64) (int64, error) {
	t.mu.Lock()
	ms, ok := t.ict[v]
	t.mu.Unlock()
	if ok {
		return ms, nil
	}
	key := replay.CommitKey(v)
	i, found := findLogFile(files, key)
	if !found {
		return 0, fmt.Errorf("v%d: no commit file to read its in-commit timestamp from", v)
	}
	data, err := t.st.ReadRange(ctx, key, 0, min(files[i].Size, firstLineBytes))
	if err != nil {
		return 0, err
	}
	if bytes.IndexByte(data, '\n') < 0 && int64(len(data)) < files[i].Size {
		if data, err = t.st.Read(ctx, key); err != nil {
			return 0, err
		}
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	var a action.Action
	err = action.ParseLines(data, func(p *action.Action) error { a = *p; return nil })
	if err != nil {
		return 0, fmt.Errorf("v%d: first action: %w", v, err)
	}
	if a.CommitInfo == nil || a.CommitInfo.InCommitTimestamp == nil {
		return 0, fmt.Errorf("v%d: the table has in-commit timestamps, but the commit's first action has none", v)
	}
	ms = *a.CommitInfo.InCommitTimestamp
	t.mu.Lock()
	t.ict[v] = ms
	t.mu.Unlock()
	return ms, nil
}
