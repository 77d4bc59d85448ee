package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/versions"
)

// benchLatency is the latency per request of the open benchmark.
const benchLatency = 20 * time.Millisecond

// TestOpenLatencyBenchmark times the three cold opens of the cost model
// with 20 ms per request, deltafs's against sequential reading of the same
// objects (one request at a time, listing from the hint's checkpoint or,
// without a hint, from version 0), and prints the table of BENCHMARKS.md.
// Times are the median of 3 cold opens; the floor beside each is round
// trips x latency. The in-process mem:// store sorts every key under one
// lock for each listing page (about 20 ms per page of a 47,000-object
// log), which the floor leaves out:
//
//	DELTAFS_OPEN_BENCH=1 go test ./tests -run TestOpenLatencyBenchmark -v
func TestOpenLatencyBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_OPEN_BENCH") == "" {
		t.Skip("set DELTAFS_OPEN_BENCH=1 to run the open latency benchmark")
	}
	busy, busyInfo, objects := busyLog(t, 8640, 9)
	long, longInfo, longObjects := busyLog(t, 8150, 500)
	cases := []struct {
		name    string
		st      *blobstore.Store
		objects int
		latest  int64
	}{
		{"checkpoint 8640, 9-commit tail, hint valid", memStore(t, busy, benchLatency), objects, busyInfo.LatestVersion},
		{"same log, _last_checkpoint missing", memStore(t, busy, benchLatency, versions.LastCheckpointKey), objects - 1, busyInfo.LatestVersion},
		{"checkpoint 500 commits back, hint valid", memStore(t, long, benchLatency), longObjects, longInfo.LatestVersion},
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| open (%d ms per request) | objects | deltafs requests | deltafs round trips | deltafs time (floor) | sequential round trips | sequential time (floor) |\n", benchLatency.Milliseconds())
	fmt.Fprintf(&out, "|---|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range cases {
		var times []time.Duration
		var cost blobstore.Counts
		for range 3 {
			_, snap, counts, d := coldOpen(t, c.st)
			if snap.Version != c.latest {
				t.Fatalf("%s: v%d, want v%d", c.name, snap.Version, c.latest)
			}
			times, cost = append(times, d), counts
		}
		slices.Sort(times)
		before, start := c.st.Counts(), time.Now()
		if err := sequentialOpen(context.Background(), c.st); err != nil {
			t.Fatal(err)
		}
		seq, seqTime := c.st.Counts().Sub(before), time.Since(start)
		floor := func(rounds int64) int64 { return rounds * benchLatency.Milliseconds() }
		fmt.Fprintf(&out, "| %s | %d | %d | %d | %d ms (%d) | %d | %d ms (%d) |\n", c.name, c.objects, cost.Requests(), cost.Rounds,
			times[1].Milliseconds(), floor(cost.Rounds), seq.Rounds, seqTime.Milliseconds(), floor(seq.Rounds))
	}
	t.Logf("\n%s", out.String())
}

// sequentialOpen reads what a cold open of latest needs, one request at a
// time: _last_checkpoint; the listing from its checkpoint, or from version
// 0 without it, page after page; then each checkpoint part and each commit
// since.
func sequentialOpen(ctx context.Context, st *blobstore.Store) error {
	start := ""
	data, err := st.Read(ctx, versions.LastCheckpointKey)
	switch {
	case err == nil:
		var hint struct{ Version int64 }
		if err := json.Unmarshal(data, &hint); err != nil {
			return err
		}
		start = replay.LogDir + replay.Padded(hint.Version)
	case !errors.Is(err, blobstore.ErrNotFound):
		return err
	}
	var files []replay.LogFile
	err = st.List(ctx, replay.LogDir, start, func(o blobstore.Object) bool {
		if f, ok := replay.ParseLogFile(o.Key, o.Size, 0); ok {
			files = append(files, f)
		}
		return true
	})
	if err != nil {
		return err
	}
	seg, err := replay.NewLogSegment(files, files[len(files)-1].Version)
	if err != nil {
		return err
	}
	var keys []string
	if seg.Checkpoint != nil {
		for _, p := range seg.Checkpoint.Parts {
			keys = append(keys, p.Key)
		}
	}
	for _, c := range seg.Commits {
		keys = append(keys, c.Key)
	}
	for _, k := range keys {
		if _, err := st.Read(ctx, k); err != nil {
			return err
		}
	}
	return nil
}
