package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/tests/servers"
)

// dvFolder writes a table of n small files, each with an inline deletion
// vector from version 1 on, and returns their stored sizes by name.
func dvFolder(tb testing.TB, dir string, n int) map[string]int64 {
	tb.Helper()
	gen := deltagen.New(dir)
	features := []string{"deletionVectors"}
	first := []action.Action{deltagen.Protocol(3, 7, features, features), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)}
	var withDVs []action.Action
	stored := map[string]int64{}
	for i := range n {
		add, err := gen.DataFileAdd(fmt.Sprintf("part-%04d.parquet", i), 10, 1, nil)
		if err != nil {
			tb.Fatal(err)
		}
		dv, err := deltagen.InlineDV([]uint64{uint64(i % 10)})
		if err != nil {
			tb.Fatal(err)
		}
		f := add.Add
		stored[f.Path] = f.Size
		first = append(first, add)
		withDVs = append(withDVs, deltagen.Remove(f.Path, 1), deltagen.AddFileDV(f.Path, f.Size, f.ModificationTime, nil, f.Stats, dv))
	}
	for _, c := range [][]action.Action{first, withDVs} {
		if _, err := gen.Commit(c...); err != nil {
			tb.Fatal(err)
		}
	}
	return stored
}

// timedListing mounts location anew, with latency before every request,
// and lists and stats v/1 (lsL) with only that timed. It returns the
// sizes and the requests the listing made.
func timedListing(b *testing.B, location string, latency time.Duration) (map[string]int64, blobstore.Counts) {
	b.StopTimer()
	defer b.StartTimer()
	m := mountLayout(b, location, fs.Options{RefreshInterval: -1}, blobstore.WithLatency(latency))
	defer m.unmount()
	version := filepath.Join(m.dir, "v", "1")
	buildVersion(b, version)
	before := m.store.Counts()
	b.StartTimer()
	sizes := lsL(b, version)
	b.StopTimer()
	return sizes, m.store.Counts().Sub(before)
}

// lsL lists a folder and stats every file in it, in the listing's order,
// as ls -l does.
func lsL(tb testing.TB, dir string) map[string]int64 {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	sizes := map[string]int64{}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			tb.Fatal(err)
		}
		sizes[e.Name()] = info.Size()
	}
	return sizes
}

// TestListingSizesViewsAhead: the lookups of a listing come one after
// another, and each file with a deletion vector needs its view's size,
// a footer read away. ls -l of a folder of such files overlaps those
// reads (a few round trips, not one per file) and reads no file more
// than once; a lone stat asks for nothing ahead.
func TestListingSizesViewsAhead(t *testing.T) {
	requireFUSE(t)
	dir := t.TempDir()
	const files = 48
	stored := dvFolder(t, dir, files)
	m := mountLayout(t, dir, fs.Options{RefreshInterval: -1}, blobstore.WithLatency(rtLatency))
	version := filepath.Join(m.dir, "v", "1")
	buildVersion(t, version)
	before := m.store.Counts()
	if _, err := os.Stat(filepath.Join(version, "part-0007.parquet")); err != nil {
		t.Fatal(err)
	}
	if d := m.store.Counts().Sub(before); d.Gets != 1 {
		t.Errorf("a lone stat made %d reads, want 1 (the small file whole)", d.Gets)
	}

	before = m.store.Counts()
	served := lsL(t, version)
	d := m.store.Counts().Sub(before)
	t.Logf("ls -l of %d files: %d reads in %d round trips", len(served), d.Gets, d.Rounds)
	if len(served) != files || d.Gets != files-1 {
		t.Errorf("ls -l of %d files: %d reads, want one for each of the %d not stat'ed before", len(served), d.Gets, files-1)
	}
	if d.Rounds > d.Gets/3 {
		t.Errorf("ls -l: %d reads in %d round trips, want them overlapped (at most a third as many round trips)", d.Gets, d.Rounds)
	}
	for name, size := range served {
		if size >= stored[name] {
			t.Errorf("%s: served size %d, stored %d: not filtered", name, size, stored[name])
		}
	}

	// deltafs ls --json reads the sizes ahead the same way: they are the
	// mount's.
	out, err := exec.Command(deltafsBin(t), "ls", "--json", dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, line := range lines {
		var e struct {
			Path       string `json:"path"`
			ServedSize *int64 `json:"servedSize"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e.ServedSize == nil || *e.ServedSize != served[e.Path] {
			t.Errorf("ls --json %s: servedSize %v, mount size %d", e.Path, e.ServedSize, served[e.Path])
		}
	}
	if len(lines) != files {
		t.Errorf("ls --json: %d lines, want %d", len(lines), files)
	}
}

// BenchmarkListingViews: ls -l of a new mount's folder of 400 files with
// deletion vectors, on the local disk and on versitygw, each as it is
// and with a latency added before every request. Compare builds of
// fs/dir.go with and without its sizeAhead call:
//
//	go test ./tests -run XXX -bench ListingViews -benchtime 3x
func BenchmarkListingViews(b *testing.B) {
	requireFUSE(b)
	dir := b.TempDir()
	dvFolder(b, dir, 400)
	s3 := servers.Start(b, servers.VersityGW).Location("listing-views")
	uploadTable(b, openAt(b, s3), dir)
	for _, location := range []string{dir, s3} {
		for _, latency := range []time.Duration{0, 20 * time.Millisecond} {
			name := fmt.Sprintf("store=%s/latency=%v", strings.SplitN(location, ":", 2)[0], latency)
			if location == dir {
				name = fmt.Sprintf("store=disk/latency=%v", latency)
			}
			b.Run(name, func(b *testing.B) {
				var rounds int64
				for b.Loop() {
					_, d := timedListing(b, location, latency)
					rounds += d.Rounds
				}
				b.ReportMetric(float64(rounds)/float64(b.N), "roundtrips/op")
			})
		}
	}
	// deltafs ls --json, which reads the same sizes (no latency added:
	// the CLI has no such flag). The server's settings are in this
	// process's environment, which the command inherits.
	for _, location := range []string{dir, s3} {
		store := strings.SplitN(location, ":", 2)[0]
		if location == dir {
			store = "disk"
		}
		b.Run("ls-json/store="+store, func(b *testing.B) {
			for b.Loop() {
				if out, err := exec.Command(deltafsBin(b), "ls", "--json", location).Output(); err != nil || strings.Count(string(out), "servedSize") != 400 {
					b.Fatalf("%v: %d served sizes", err, strings.Count(string(out), "servedSize"))
				}
			}
		})
	}
}
