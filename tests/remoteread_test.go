package tests

// Data reads with object-store tuning (large blocks, growing parallel
// read-ahead, blocks held by open files): byte-exact sequential, random and
// parallel reads through an in-process mount, served from a local folder
// with injected latency and from versitygw; no read-ahead for random
// access; no requests for stat and listing; nothing left loading after a
// file is closed.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/tests/servers"
)

// rrTestFiles are the data files of the test table: sizes that are not
// multiples of any block size.
var rrTestFiles = map[string]int64{
	"a.bin":            40<<20 + 12345,
	"part=x/b.bin":     3<<20 + 1,
	"part=x/small.bin": 1000,
}

// rrWriteTestTable writes the test table at location and returns its files'
// bytes by path.
func rrWriteTestTable(t *testing.T, location string) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	st, err := blobstore.Open(ctx, location)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rng := rand.NewChaCha8([32]byte{'r', 'r'})
	files := map[string][]byte{}
	actions := []action.Action{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)}
	for p, size := range rrTestFiles {
		data := make([]byte, size)
		rng.Read(data)
		if err := st.Write(ctx, p, data); err != nil {
			t.Fatal(err)
		}
		files[p] = data
		actions = append(actions, deltagen.AddFile(deltagen.EncodePath(p), size, 1700000000000, nil, ""))
	}
	commit, err := deltagen.EncodeActions(actions)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(ctx, "_delta_log/00000000000000000000.json", commit); err != nil {
		t.Fatal(err)
	}
	return files
}

// rrBackends are where the test table is served from: a local folder with
// 2 ms per request, and versitygw (skipped when it cannot run).
func rrBackends(name string) map[string]func(t *testing.T) (string, time.Duration) {
	return map[string]func(t *testing.T) (string, time.Duration){
		"file": func(t *testing.T) (string, time.Duration) { return t.TempDir(), 2 * time.Millisecond },
		"versitygw": func(t *testing.T) (string, time.Duration) {
			srv := servers.Start(t, servers.VersityGW)
			return srv.Location("remoteread/" + name + "/" + strings.ReplaceAll(t.Name(), "/", "_")), 0
		},
	}
}

func TestRemoteReadBytes(t *testing.T) {
	requireFUSE(t)
	for backend, loc := range rrBackends("bytes") {
		t.Run(backend, func(t *testing.T) {
			location, latency := loc(t)
			files := rrWriteTestTable(t, location)
			// Small blocks and a cache far smaller than the file: the
			// read-ahead window and held blocks are exercised, and the
			// cache evicts (or refuses) blocks all the time. Direct I/O,
			// as deltafs mounts object stores by default: every read
			// reaches the mount.
			opts := fs.Options{BlockSize: 256 << 10, ReadAhead: 8, CacheBytes: 2 << 20, DirectIO: true}
			mp, st, _ := rrMount(t, location, latency, opts)
			dir := filepath.Join(mp, "latest")

			// Sequential: each block is fetched once, however small the
			// cache, several per request once the read-ahead window has
			// grown (spans of half the window: 4 blocks here).
			before := st.Counts()
			got, err := os.ReadFile(filepath.Join(dir, "a.bin"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, files["a.bin"]) {
				t.Fatalf("a.bin: %d bytes read differ from the %d stored", len(got), len(files["a.bin"]))
			}
			blocks := (rrTestFiles["a.bin"] + opts.BlockSize - 1) / opts.BlockSize
			// (The mount may read a commit on the way: a few hundred bytes,
			// where a block read twice would be tens of KiB at least.)
			if c := st.Counts().Sub(before); c.Bytes < rrTestFiles["a.bin"] || c.Bytes > rrTestFiles["a.bin"]+4096 || c.Gets > blocks/2 {
				t.Errorf("sequential read of %d blocks (%d bytes) made %d GETs of %d bytes", blocks, rrTestFiles["a.bin"], c.Gets, c.Bytes)
			}
			for _, p := range []string{"part=x/b.bin", "part=x/small.bin"} {
				got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				if err != nil || !bytes.Equal(got, files[p]) {
					t.Errorf("%s: %d bytes, err %v", p, len(got), err)
				}
			}

			// Random ranges, straddling blocks and the end, on a fresh open
			// of a file not yet in the kernel's page cache.
			f, err := os.Open(filepath.Join(dir, "part=x", "b.bin"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rrCheckRandom(t, f, files["part=x/b.bin"], 1, 300)
		})
	}
}

// rrCheckRandom makes n random reads of f and compares them with want.
func rrCheckRandom(t *testing.T, f *os.File, want []byte, seed uint64, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := 0; i < n; i++ {
		off := rng.Int64N(int64(len(want)))
		buf := make([]byte, 1+rng.IntN(700_000))
		got, err := f.ReadAt(buf, off)
		if err != nil && !(errors.Is(err, io.EOF) && off+int64(len(buf)) > int64(len(want))) {
			t.Fatalf("ReadAt(%d, %d): %v", off, len(buf), err)
		}
		end := min(off+int64(len(buf)), int64(len(want)))
		if !bytes.Equal(buf[:got], want[off:end]) {
			t.Fatalf("ReadAt(%d, %d): wrong bytes", off, len(buf))
		}
	}
}

// Random access reads what it asks for and little more: no read-ahead
// window. Sequential access, on the same mount, gets one.
func TestRemoteReadRandomAccessNoReadAhead(t *testing.T) {
	requireFUSE(t)
	location := t.TempDir()
	files := rrWriteTestTable(t, location)
	const bs = 1 << 20
	mp, st, _ := rrMount(t, location, time.Millisecond, fs.Options{BlockSize: bs, ReadAhead: 16})
	f, err := os.Open(filepath.Join(mp, "latest", "a.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := files["a.bin"]
	before := st.Counts()
	const reads = 10
	for i, mib := range []int64{36, 4, 28, 12, 20, 0, 32, 8, 24, 16} { // 4 MiB apart, out of order
		off := mib*bs + 5000 + int64(i)
		buf := make([]byte, 4096)
		if _, err := f.ReadAt(buf, off); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf, want[off:off+4096]) {
			t.Fatalf("ReadAt(%d): wrong bytes", off)
		}
	}
	time.Sleep(100 * time.Millisecond) // let any (wrong) read-ahead show up
	c := st.Counts().Sub(before)
	t.Logf("%d random 4 KiB reads: %d GETs, %d KiB", reads, c.Gets, c.Bytes>>10)
	if c.Bytes > 2*reads*bs {
		t.Errorf("%d random 4 KiB reads fetched %d MiB in %d GETs: read-ahead on random access", reads, c.Bytes>>20, c.Gets)
	}

	// A sequential reader, by contrast, has blocks fetched ahead of it.
	g, err := os.Open(filepath.Join(mp, "latest", "part=x", "b.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	before = st.Counts()
	buf := make([]byte, 256<<10)
	for off := int64(0); off < 1<<20; off += int64(len(buf)) {
		if _, err := g.ReadAt(buf, off); err != nil {
			t.Fatal(err)
		}
	}
	if !waitFor(5*time.Second, func() bool { return st.Counts().Sub(before).Bytes == rrTestFiles["part=x/b.bin"] }) {
		t.Errorf("after reading 1 MiB of b.bin sequentially, %d of its %d bytes fetched; want all (read ahead)",
			st.Counts().Sub(before).Bytes, rrTestFiles["part=x/b.bin"])
	}
}

func TestRemoteReadParallelReaders(t *testing.T) {
	requireFUSE(t)
	for backend, loc := range rrBackends("parallel") {
		t.Run(backend, func(t *testing.T) {
			location, latency := loc(t)
			files := rrWriteTestTable(t, location)
			mp, st, _ := rrMount(t, location, latency, fs.Options{BlockSize: 1 << 20, ReadAhead: 8, CacheBytes: 8 << 20})
			want := files["a.bin"]
			p := filepath.Join(mp, "latest", "a.bin")
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					f, err := os.Open(p)
					if err != nil {
						errs <- err
						return
					}
					defer f.Close()
					// Half read sequentially from different starting
					// points, half at random, at the same time.
					if g%2 == 0 {
						start := int64(g) * 5 << 20
						got, err := io.ReadAll(io.NewSectionReader(f, start, int64(len(want))-start))
						if err == nil && !bytes.Equal(got, want[start:]) {
							err = fmt.Errorf("reader %d: sequential read from %d differs", g, start)
						}
						if err != nil {
							errs <- err
						}
						return
					}
					rng := rand.New(rand.NewPCG(uint64(g), 3))
					for i := 0; i < 100; i++ {
						off := rng.Int64N(int64(len(want)))
						buf := make([]byte, 1+rng.IntN(3<<20))
						n, err := f.ReadAt(buf, off)
						if err != nil && !errors.Is(err, io.EOF) {
							errs <- err
							return
						}
						if !bytes.Equal(buf[:n], want[off:off+int64(n)]) {
							errs <- fmt.Errorf("reader %d: wrong bytes at %d", g, off)
							return
						}
					}
				}(g)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			t.Logf("8 parallel readers of a %d MiB file: %+v", len(want)>>20, st.Counts())
		})
	}
}

// stat, ls -l and find over a mounted version cost no request, with the
// object-store read settings.
func TestRemoteReadStatNoRequests(t *testing.T) {
	requireFUSE(t)
	srv := servers.Start(t, servers.VersityGW)
	location := srv.Location("remoteread/stat")
	rrWriteTestTable(t, location)
	mp, st, _ := rrMount(t, location, 0, fs.Options{BlockSize: 4 << 20, ReadAhead: 8})
	version := filepath.Join(mp, "v", "0")
	buildVersion(t, version)
	before := st.Counts()
	for p, size := range rrTestFiles {
		info, err := os.Stat(filepath.Join(version, filepath.FromSlash(p)))
		if err != nil || info.Size() != size {
			t.Errorf("stat %s: %v, size %d want %d", p, err, info.Size(), size)
		}
	}
	for _, args := range [][]string{{"ls", "-lR", version}, {"find", version, "-type", "f"}, {"du", "-s", "--apparent-size", version}} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	if c := st.Counts().Sub(before); c.Requests() != 0 {
		t.Errorf("stat, ls -lR, find, du over a version made %+v, want no request", c)
	}
}

// Closing a file abandons its read-ahead still in flight (on versitygw,
// whose client stops a request whose context ends). Reads use O_DIRECT, so
// that the kernel neither reads ahead itself nor holds the file open after
// close for reads of its own.
func TestRemoteReadCloseEndsReadAhead(t *testing.T) {
	requireFUSE(t)
	location := servers.Start(t, servers.VersityGW).Location("remoteread/close")
	rrWriteTestTable(t, location)
	const bs = 1 << 20
	const latency = 300 * time.Millisecond
	mp, st, _ := rrMount(t, location, latency, fs.Options{BlockSize: bs, ReadAhead: 16})
	p := filepath.Join(mp, "latest", "a.bin")
	raw := make([]byte, bs+4096)
	buf := raw[4096-int(uintptr(unsafe.Pointer(&raw[0]))%4096):][:bs] // O_DIRECT wants aligned memory
	readAt := func(f *os.File, off int64) {
		t.Helper()
		if n, err := f.ReadAt(buf, off); err != nil || n != bs {
			t.Fatalf("ReadAt(%d): %d, %v", off, n, err)
		}
	}
	open := func() *os.File {
		t.Helper()
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_DIRECT, 0)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	// Block 31 into the cache, by a reader with no read-ahead (one read).
	a := open()
	readAt(a, 31*bs)
	a.Close()
	// A second reader reads blocks 30 then 31 (a hit): sequential, so its
	// window opens over blocks 32..40, all loading, when it closes.
	b := open()
	readAt(b, 30*bs)
	before := st.Counts()
	readAt(b, 31*bs)
	b.Close()
	time.Sleep(2 * latency)
	c := st.Counts().Sub(before)
	t.Logf("after a sequential read, close: %d GETs started, %d MiB fetched", c.Gets, c.Bytes>>20)
	if c.Gets == 0 {
		t.Fatal("no read-ahead started")
	}
	if c.Bytes >= c.Gets*bs {
		t.Errorf("all %d read-aheads (%d MiB) completed: none was abandoned when the file was closed", c.Gets, c.Bytes>>20)
	}
	settled := st.Counts()
	time.Sleep(latency)
	if d := st.Counts().Sub(settled); d.Gets != 0 {
		t.Errorf("%d GETs after the file was closed", d.Gets)
	}
}

// The mount command takes --block-size, --read-ahead and --direct-io and refuses bad
// values before touching the table.
func TestRemoteReadMountFlags(t *testing.T) {
	bin := deltafsBin(t)
	for _, args := range [][]string{
		{"--block-size", "3"},
		{"--block-size", "4 parsecs"},
		{"--read-ahead", "100000"},
		{"--direct-io", "maybe"},
	} {
		out, err := exec.Command(bin, append([]string{"mount", t.TempDir(), t.TempDir()}, args...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), args[0]) {
			t.Errorf("deltafs mount %v: err %v, output %q; want an error naming %s", args, err, out, args[0])
		}
	}
	out, _ := exec.Command(bin, "mount", "--help").CombinedOutput()
	for _, flag := range []string{"--block-size", "--read-ahead", "--direct-io"} {
		if !strings.Contains(string(out), flag) {
			t.Errorf("deltafs mount --help does not list %s:\n%s", flag, out)
		}
	}
}
