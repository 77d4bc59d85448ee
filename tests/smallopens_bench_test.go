package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestSmallOpensBenchmark: open, read 4 KiB and close each of 2,000 small
// data files, again and again, through each of openVariants, against the
// files on disk: opens per second, medians of 7 paired passes.
//
//	DELTAFS_OPENS_BENCH=1 go test ./tests -run TestSmallOpensBenchmark -v -count=1
func TestSmallOpensBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_OPENS_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_OPENS_BENCH=1 to run")
	}
	const files = 2000
	dir := t.TempDir()
	gen := deltagen.New(dir)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	var adds []action.Action
	var names []string
	for i := range files {
		name := fmt.Sprintf("part-%05d.parquet", i)
		adds = append(adds, mustAdd(t, gen, name, 10))
		names = append(names, name)
	}
	mustCommit(t, gen, adds...)
	pass := func(root string) time.Duration {
		buf := make([]byte, 4096)
		start := time.Now()
		for _, n := range names {
			f, err := os.Open(filepath.Join(root, n))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Read(buf); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
		return time.Since(start)
	}
	for _, v := range openVariants {
		m := mountForTest(t, dir, v.opts)
		mounted := filepath.Join(m.dir, "v", "1")
		pass(dir)
		pass(mounted) // warm: lookups and the page cache
		var local, mount, ratios []float64
		for range 7 {
			l, mt := pass(dir), pass(mounted)
			local, mount = append(local, files/l.Seconds()), append(mount, files/mt.Seconds())
			ratios = append(ratios, mt.Seconds()/l.Seconds())
		}
		slices.Sort(local)
		slices.Sort(mount)
		slices.Sort(ratios)
		t.Logf("open+read 4 KiB+close of %d files, %s: local %.0f/s, mount %.0f/s, mount takes %.2fx the time (median of 7 pairs)",
			files, v.name, local[3], mount[3], ratios[3])
	}
}

// openVariants are the mounts the open benchmarks compare, on tables of
// small files: the CLI's defaults (which leave opens to the kernel there:
// no file could be passed through), every open asked for (--no-open=false;
// what a table with files of 1 MiB and more gets by default when mounted
// by root), and --no-open.
var openVariants = []struct {
	name string
	opts fs.Options
}{
	{"defaults", fs.Options{NoXAttrs: true, RefreshInterval: -1}},
	{"--no-open=false", fs.Options{NoXAttrs: true, RefreshInterval: -1, AlwaysOpen: true}},
	{"--no-open", fs.Options{NoXAttrs: true, RefreshInterval: -1, NoOpen: true}},
}

// TestHiddenColumnsFirstReadBenchmark: the first read of each of 2,000
// small files through a new mount, for a table whose files' footers are
// read at their first open to see what to change (change data feed on:
// columns outside the schema; a timestamp column: local date-times), once
// each, against the same table without either: medians of 7 alternated
// rounds. The timestamp table declares the files' value column a
// timestamp: its footers are looked at and nothing changed, as in files
// that store instants.
//
//	DELTAFS_OPENS_BENCH=1 go test ./tests -run TestHiddenColumnsFirstReadBenchmark -v -count=1
func TestHiddenColumnsFirstReadBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_OPENS_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_OPENS_BENCH=1 to run")
	}
	const files = 2000
	table := func(schema string, conf map[string]string) string {
		dir := t.TempDir()
		gen := deltagen.New(dir)
		mustCommit(t, gen, deltagen.Protocol(1, 4, nil, nil), deltagen.Metadata(schema, nil, conf))
		var adds []action.Action
		for i := range files {
			adds = append(adds, mustAdd(t, gen, fmt.Sprintf("part-%05d.parquet", i), 10))
		}
		mustCommit(t, gen, adds...)
		return dir
	}
	timestamps := strings.Replace(deltagen.SimpleSchema, `"name":"value","type":"string"`, `"name":"value","type":"timestamp"`, 1)
	tables := []struct{ name, dir string }{
		{"plain", table(deltagen.SimpleSchema, nil)},
		{"change data feed on", table(deltagen.SimpleSchema, map[string]string{"delta.enableChangeDataFeed": "true"})},
		{"a timestamp column", table(timestamps, nil)},
	}
	firstPass := func(dir string) time.Duration {
		m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
		defer m.unmount()
		names, err := walkFiles(filepath.Join(m.dir, "latest"))
		if err != nil || len(names) != files {
			t.Fatalf("%d files: %v", len(names), err)
		}
		start := time.Now()
		for _, n := range names {
			if _, err := os.ReadFile(filepath.Join(m.dir, "latest", n)); err != nil {
				t.Fatal(err)
			}
		}
		return time.Since(start)
	}
	ms := make([][]float64, len(tables))
	ratios := make([][]float64, len(tables))
	for range 7 {
		var plain float64
		for i, tb := range tables {
			d := firstPass(tb.dir).Seconds()
			if i == 0 {
				plain = d
			}
			ms[i], ratios[i] = append(ms[i], d*1000), append(ratios[i], d/plain)
		}
	}
	for i, tb := range tables {
		slices.Sort(ms[i])
		slices.Sort(ratios[i])
		t.Logf("first read of %d small files, new mount, %s: %.0f ms, %.2fx the plain table's time (median of 7 rounds)", files, tb.name, ms[i][3], ratios[i][3])
	}
}
