package tests

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/tests/servers"
	"github.com/deltafs/deltafs/versions"
)

// TestS3OpenBenchmark: a cold open of latest on S3 (versitygw behind a
// proxy that adds 50 ms to every request), by deltafs (versions.Open and
// the latest snapshot, a fresh store each time) and by delta-rs
// (DeltaTable and its file list, bench/deltars_snapshot.py), alternated,
// medians of paired ratios. The logs are tests/roundtrips_test.go's: 47k
// objects with a checkpoint at 8640 and a 9-commit tail, the same without
// _last_checkpoint, and a checkpoint 500 commits back; and a log of 2,000
// one-add commits that never checkpoints.
//
//	DELTAFS_S3OPEN_BENCH=1 go test ./tests -run TestS3OpenBenchmark -v -count=1
func TestS3OpenBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_S3OPEN_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_S3OPEN_BENCH=1 to run")
	}
	python := pythonOrSkip(t)
	srv := servers.Start(t, servers.VersityGW)
	proxy, via := servers.StartProxy(t, srv)
	const latency = 50 * time.Millisecond
	busy, busyInfo, _ := busyLog(t, 8640, 9)
	long, longInfo, _ := busyLog(t, 8150, 500)
	commits := t.TempDir()
	if err := deltagen.WriteJSONLog(commits, 2000, 1); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, dir string
		skip      string
		latest    int64
	}{
		{"defaults (checkpoint 8640, 9-commit tail)", busy, "", busyInfo.LatestVersion},
		{"47k objects, no _last_checkpoint", busy, versions.LastCheckpointKey, busyInfo.LatestVersion},
		{"checkpoint 500 commits back", long, "", longInfo.LatestVersion},
		{"2,000 commits of one add, no checkpoint", commits, "", 1999},
	}
	env := servers.S3ClientEnv(proxy.Addr)
	for i, c := range cases {
		prefix := "s3open/" + string(rune('a'+i))
		if err := os.MkdirAll(filepath.Join(srv.DataDir(), "s3open"), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("cp", "-r", c.dir, filepath.Join(srv.DataDir(), prefix)).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if c.skip != "" {
			os.Remove(filepath.Join(srv.DataDir(), prefix, filepath.FromSlash(c.skip)))
		}
		proxy.SetLatency(latency)
		var ours, theirs, ratios []float64
		for range 5 {
			ctx := context.Background()
			st, err := blobstore.Open(ctx, via.Location(prefix))
			if err != nil {
				t.Fatal(err)
			}
			_, snap, _, d := coldOpen(t, st)
			st.Close()
			if snap.Version != c.latest {
				t.Fatalf("%s: v%d, want v%d", c.name, snap.Version, c.latest)
			}
			out, err := pyCommand(python, env, filepath.Join("..", "bench", "deltars_snapshot.py"), "s3://"+servers.Bucket+"/"+prefix, "--repeat", "1").Output()
			if err != nil {
				t.Fatalf("delta-rs: %v: %s", err, out)
			}
			var res struct {
				Version int64   `json:"version"`
				Seconds float64 `json:"seconds_min"`
			}
			if err := json.Unmarshal(out, &res); err != nil || res.Version != c.latest {
				t.Fatalf("delta-rs: %s (%v), want v%d", out, err, c.latest)
			}
			ours, theirs = append(ours, d.Seconds()), append(theirs, res.Seconds)
			ratios = append(ratios, d.Seconds()/res.Seconds)
		}
		proxy.SetLatency(0)
		slices.Sort(ours)
		slices.Sort(theirs)
		slices.Sort(ratios)
		t.Logf("| %s | %.0f ms | %.0f ms | %.2fx |", strings.TrimSpace(c.name), ours[2]*1000, theirs[2]*1000, ratios[2])
	}
}
