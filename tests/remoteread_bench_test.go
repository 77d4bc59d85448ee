package tests

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/tests/servers"
)

// TestRemoteReadBenchmark measures sequential reading of a 256 MiB data
// file of a Delta table on versitygw (S3 on 127.0.0.1) through the mount,
// against one single-stream download of the same object from the same
// server (one curl GET to /dev/null), with and without 20 ms of latency
// injected before every request. It prints a table; BENCHMARKS.md
// ("remote read") records it. Run with
//
//	DELTAFS_REMOTE_BENCH=1 go test ./tests -run TestRemoteReadBenchmark -v -count=1
//
// DELTAFS_REMOTE_BENCH_ROWS, a regular expression, picks the rows to run.
//
// DELTAFS_REMOTE_BENCH_MIB changes the file size (default 256).
func TestRemoteReadBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_REMOTE_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_REMOTE_BENCH=1 to run")
	}
	requireFUSE(t)
	size := int64(256) << 20
	if s := os.Getenv("DELTAFS_REMOTE_BENCH_MIB"); s != "" {
		var mib int64
		if _, err := fmt.Sscan(s, &mib); err != nil || mib <= 0 {
			t.Fatalf("DELTAFS_REMOTE_BENCH_MIB=%q", s)
		}
		size = mib << 20
	}
	srv := servers.Start(t, servers.VersityGW)
	location := srv.Location("remoteread/bench")
	want := rrPutTable(t, location, size)
	object := fmt.Sprintf("http://%s/%s/remoteread/bench/big.bin", srv.Addr, servers.Bucket)

	// The download's speed varies by a factor of two from run to run on a
	// shared machine, so each mount run is paired with a download just
	// before it, and the ratio reported is the median of the pairs'.
	const runs = 5
	t.Logf("%d MiB object on %s (%s); reads of 1 MiB; %d runs, each a download then a read through the mount: medians", size>>20, srv.Name, srv.Addr, runs)
	t.Logf("%-9s %-40s %10s %10s %7s %6s %7s %7s", "latency", "reader", "MiB/s", "GET MiB/s", "ratio", "GETs", "MiB got", "rounds")
	for _, lat := range []time.Duration{0, 20 * time.Millisecond} {
		for _, c := range []struct {
			name string
			opts fs.Options
		}{
			{"mount, 8 MiB, read-ahead 16, page cache", fs.Options{BlockSize: 8 << 20, ReadAhead: 16}},
			{"mount, 1 MiB, read-ahead 8, direct", fs.Options{BlockSize: 1 << 20, ReadAhead: 8, DirectIO: true}},
			{"mount, 4 MiB, read-ahead 16, direct", fs.Options{BlockSize: 4 << 20, ReadAhead: 16, DirectIO: true}},
			{"mount, 8 MiB, read-ahead 8, direct", fs.Options{BlockSize: 8 << 20, ReadAhead: 8, DirectIO: true}},
			{"mount, 8 MiB, read-ahead 16, direct *", fs.Options{BlockSize: 8 << 20, ReadAhead: 16, DirectIO: true}},
			{"mount, 16 MiB, read-ahead 8, direct", fs.Options{BlockSize: 16 << 20, ReadAhead: 8, DirectIO: true}},
			{"mount, 1 MiB, read-ahead 128, direct", fs.Options{BlockSize: 1 << 20, ReadAhead: 128, DirectIO: true}},
			{"mount, 2 MiB, read-ahead 64, direct", fs.Options{BlockSize: 2 << 20, ReadAhead: 64, DirectIO: true}},
		} {
			if only := os.Getenv("DELTAFS_REMOTE_BENCH_ROWS"); only != "" && !regexp.MustCompile(only).MatchString(c.name) {
				continue // a regular expression picks rows
			}
			r := rrPaired(runs, func() time.Duration { return rrDownload(t, object, size, lat) }, func() (time.Duration, blobstore.Counts) {
				return rrMountRead(t, location, lat, c.opts, want)
			})
			t.Logf("%-9v %-40s %10.0f %10.0f %6.2fx %6d %7d %7d", lat, c.name, rrMiBps(size, r.mount.d), rrMiBps(size, r.download),
				r.ratio, r.mount.c.Gets, r.mount.c.Bytes>>20, r.mount.c.Rounds)
		}
	}

	// * marks the defaults bin/deltafs uses for s3://, gs:// and azblob://;
	// the binary itself, with those defaults (no injected latency), in a
	// new process each run: its heap starts empty, so every block is fresh
	// memory (page faults) where the in-process mounts reuse freed memory.
	if bin := os.Getenv("DELTAFS_BIN"); bin != "" || rrExists(filepath.Join("..", "bin", "deltafs")) {
		binPath := deltafsBin(t)
		r := rrPaired(runs, func() time.Duration { return rrDownload(t, object, size, 0) }, func() (time.Duration, blobstore.Counts) {
			mp := t.TempDir()
			p := startMount(t, binPath, location, mp)
			p.ready(t)
			d := rrReadFile(t, filepath.Join(mp, "latest", "big.bin"), want)
			p.stop(t, syscall.SIGTERM)
			return d, blobstore.Counts{}
		})
		t.Logf("%-9v %-40s %10.0f %10.0f %6.2fx", time.Duration(0), "bin/deltafs mount (s3 defaults)",
			rrMiBps(size, r.mount.d), rrMiBps(size, r.download), r.ratio)
	}
}

// rrPutTable writes a one-file table (big.bin, size random bytes) at
// location and returns the file's bytes.
func rrPutTable(t *testing.T, location string, size int64) []byte {
	t.Helper()
	ctx := context.Background()
	st, err := blobstore.Open(ctx, location)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	data := make([]byte, size)
	rng := rand.NewChaCha8([32]byte{'d', 'e', 'l', 't', 'a'})
	rng.Read(data)
	if err := st.Write(ctx, "big.bin", data); err != nil {
		t.Fatal(err)
	}
	commit, err := deltagen.EncodeActions([]action.Action{
		deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil),
		deltagen.AddFile("big.bin", size, time.Now().UnixMilli(), nil, ""),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(ctx, "_delta_log/00000000000000000000.json", commit); err != nil {
		t.Fatal(err)
	}
	return data
}

// rrDownload downloads the object at url (http://) with one curl GET
// after the injected latency, and returns how long that took.
func rrDownload(t *testing.T, url string, size int64, latency time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	time.Sleep(latency)
	curlGet(t, url, size, "")
	return time.Since(start)
}

// rrMountRead mounts the table in-process over a store with the given
// latency and reads big.bin through the mount once, checking its bytes.
func rrMountRead(t *testing.T, location string, latency time.Duration, opts fs.Options, want []byte) (time.Duration, blobstore.Counts) {
	t.Helper()
	mp, st, unmount := rrMount(t, location, latency, opts)
	defer unmount()
	p := filepath.Join(mp, "latest", "big.bin")
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	before := st.Counts()
	d := rrReadFile(t, p, want)
	return d, st.Counts().Sub(before)
}

// rrMount mounts the table at location in-process, with fs.Mount over a
// store that adds latency to every request, and returns the mountpoint,
// the store (for its request counts) and the function that unmounts it,
// which also runs when the test ends.
func rrMount(t *testing.T, location string, latency time.Duration, opts fs.Options) (string, *blobstore.Store, func()) {
	t.Helper()
	if opts.RefreshInterval == 0 {
		opts.RefreshInterval = -1
	}
	// Data reads go through the mount's block path even for a file://
	// store, which these tests use as a remote one.
	opts.NoPassthrough = true
	m := mountForTest(t, location, opts, blobstore.WithLatency(latency))
	return m.dir, m.store, m.unmount
}

// rrReadFile reads path front to back in 1 MiB reads into one reused
// buffer (the mount's counterpart of streaming to io.Discard) and times
// that; then it reads the file again, untimed, and compares the bytes with
// want. The second pass is served from the kernel's page cache, which holds
// what the mount returned in the first.
func rrReadFile(t *testing.T, path string, want []byte) time.Duration {
	t.Helper()
	buf := make([]byte, 1<<20)
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for {
		m, err := f.Read(buf)
		n += int64(m)
		if err == io.EOF || (err == nil && m == 0) {
			break
		}
		if err != nil {
			t.Fatalf("read %s at %d: %v", path, n, err)
		}
	}
	f.Close()
	d := time.Since(start)
	if n != int64(len(want)) {
		t.Fatalf("%s: read %d bytes, want %d", path, n, len(want))
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: the %d bytes read differ from the %d stored", path, len(got), len(want))
	}
	return d
}

type rrResult struct {
	d time.Duration
	c blobstore.Counts
}

// rrPair is what rrPaired measured: the median download time, the mount
// run of median duration, and the median of the per-pair ratios.
type rrPair struct {
	download time.Duration
	mount    rrResult
	ratio    float64
}

// rrPaired runs n pairs: a download, then a read through the mount.
func rrPaired(n int, download func() time.Duration, mount func() (time.Duration, blobstore.Counts)) rrPair {
	downloads := make([]time.Duration, n)
	mounts := make([]rrResult, n)
	ratios := make([]float64, n)
	for i := range n {
		downloads[i] = download()
		mounts[i].d, mounts[i].c = mount()
		ratios[i] = downloads[i].Seconds() / mounts[i].d.Seconds()
	}
	slices.Sort(downloads)
	slices.SortFunc(mounts, func(a, b rrResult) int { return cmp.Compare(a.d, b.d) })
	slices.Sort(ratios)
	return rrPair{download: downloads[n/2], mount: mounts[n/2], ratio: ratios[n/2]}
}

func rrMiBps(size int64, d time.Duration) float64 { return float64(size) / (1 << 20) / d.Seconds() }

func rrExists(p string) bool { _, err := os.Stat(p); return err == nil }
