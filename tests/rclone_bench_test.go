package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/tests/servers"
)

// TestRcloneListBenchmark: shell tools over a 100,000-file version, with
// deltafs (`deltafs mount`, its defaults, and with --no-open) and rclone
// (`rclone mount`, its defaults, and tuned) mounting the same bucket on
// versitygw: a cold `ls -lR`, then
// alternated warm pairs of `ls -lR`, `find` and `du`; medians of the
// paired ratios (deltafs's time over rclone's).
//
//	make build
//	DELTAFS_RCLONE_BENCH=1 go test ./tests -run TestRcloneListBenchmark -v -count=1
func TestRcloneListBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_RCLONE_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_RCLONE_BENCH=1 to run")
	}
	requireFUSE(t)
	bin, rclone := deltafsBin(t), rcloneBin(t)
	srv := servers.Start(t, servers.VersityGW)
	const files, prefix = 100_000, "rclone-list"

	// The table, its data files sparse, copied into the bucket's folder.
	table := filepath.Join(t.TempDir(), "table")
	if _, err := deltagen.WriteBenchTable(table, deltagen.BenchOptions{Files: files, Partitions: 100, TailCommits: -1}); err != nil {
		t.Fatal(err)
	}
	writeSparseDataFiles(t, table)
	os.RemoveAll(filepath.Join(srv.DataDir(), prefix))
	if out, err := exec.Command("cp", "-r", "--sparse=always", table, filepath.Join(srv.DataDir(), prefix)).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}

	// Each mount behind its own proxy, which counts its requests.
	type mount struct {
		name, dir string
		proxy     *servers.Proxy
	}
	var mounts []mount
	for _, flags := range [][]string{nil, {"--no-open"}} {
		proxy, via := servers.StartProxy(t, srv)
		dir := t.TempDir()
		p := startMount(t, bin, via.Location(prefix), dir, flags...)
		p.ready(t)
		defer p.stop(t, syscall.SIGTERM)
		mounts = append(mounts, mount{strings.TrimSpace("deltafs " + strings.Join(flags, " ")), filepath.Join(dir, "latest"), proxy})
	}
	proxy, via := servers.StartProxy(t, srv)
	mounts = append(mounts, mount{"rclone", rcloneMount(t, rclone, via, prefix).mp, proxy})
	// rclone as a user would tune it for this: modification times from
	// the listing (no HEAD per file), attributes and listings kept an hour.
	proxy, via = servers.StartProxy(t, srv)
	mounts = append(mounts, mount{"rclone tuned", rcloneMount(t, rclone, via, prefix,
		"--use-server-modtime", "--attr-timeout", "1h", "--dir-cache-time", "1h").mp, proxy})

	// One line per operation: each mount's median time and requests per
	// pass, then the medians of each deltafs mount's time over each rclone
	// mount's, paired by pass.
	const ours = 2 // mounts[:ours] are deltafs's
	measure := func(name string, args []string, passes int) {
		times := make([][]float64, len(mounts))
		before := make([]int, len(mounts))
		for i, m := range mounts {
			before[i] = m.proxy.Requests("")
		}
		for range passes {
			for i, m := range mounts {
				times[i] = append(times[i], timeCmd(t, m.dir, args).Seconds())
			}
		}
		line := fmt.Sprintf("%-20s", name)
		for i, m := range mounts {
			line += fmt.Sprintf(" | %s %.0f ms, %d req", m.name, median(times[i])*1000, (m.proxy.Requests("")-before[i])/passes)
		}
		for i := range ours {
			for j := ours; j < len(mounts); j++ {
				ratios := make([]float64, passes)
				for k := range ratios {
					ratios[k] = times[i][k] / times[j][k]
				}
				line += fmt.Sprintf(" | %s/%s %.2fx", mounts[i].name, mounts[j].name, median(ratios))
			}
		}
		t.Logf("%s (median of %d)", line, passes)
	}
	measure("ls -lR (cold)", []string{"ls", "-lR"}, 1)
	measure("ls -lR (warm)", []string{"ls", "-lR"}, 5)
	measure("find -type f (warm)", []string{"find", ".", "-type", "f"}, 5)
	measure("du -s (warm)", []string{"du", "-s", "--apparent-size"}, 5)
}

// writeSparseDataFiles creates, in the table folder, every live file of
// its latest version as a sparse file of the logged size.
func writeSparseDataFiles(t *testing.T, table string) {
	t.Helper()
	writeSparseFiles(t, table, latestSnapshot(t, context.Background(), table).Files)
}

// writeSparseFiles creates each file under root as a sparse file of its
// logged size.
func writeSparseFiles(t *testing.T, root string, files []replay.File) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, f.Size); err != nil {
			t.Fatal(err)
		}
	}
}
