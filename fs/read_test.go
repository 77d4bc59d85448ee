package fs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/versions/serve"
)

func TestReadsAreByteExact(t *testing.T) {
	for _, bs := range []int64{testBlock, 1 << 20} {
		t.Run(fmt.Sprintf("block=%d", bs), func(t *testing.T) {
			tbl := standardTable(t)
			tbl.addVersion(t, "WRITE", []fakeFile{
				{path: "huge.bin", size: 3*(1<<20) + 777, modTime: mtime1, records: -1},
			}, true)
			m := mountFake(t, tbl, Options{BlockSize: bs})
			for _, p := range []string{"v/1/small.parquet", "v/1/big.bin", "v/1/date=2024-01-02/part-1.parquet", "v/1/empty.parquet", "v/2/huge.bin"} {
				got, err := os.ReadFile(m.path(p))
				if err != nil {
					t.Fatal(err)
				}
				want := tbl.content(strings.SplitN(p, "/", 3)[2])
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: read %d bytes differing from the %d stored", p, len(got), len(want))
				}
			}
			// Random ranges, including ones that straddle blocks and the end.
			want := tbl.content("huge.bin")
			f, err := os.Open(m.path("v/2/huge.bin"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rng := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < 200; i++ {
				off := rng.Int64N(int64(len(want)))
				n := 1 + rng.IntN(300_000)
				buf := make([]byte, n)
				got, err := f.ReadAt(buf, off)
				if err != nil && !(errors.Is(err, io.EOF) && off+int64(n) > int64(len(want))) {
					t.Fatalf("ReadAt(%d, %d): %v", off, n, err)
				}
				end := min(off+int64(n), int64(len(want)))
				if !bytes.Equal(buf[:got], want[off:end]) {
					t.Fatalf("ReadAt(%d, %d): wrong bytes", off, n)
				}
			}
		})
	}
}

func TestParallelReaders(t *testing.T) {
	tbl := standardTable(t)
	m := mountFake(t, tbl, Options{})
	want := tbl.content("big.bin")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			f, err := os.Open(m.path("v/1/big.bin"))
			if err != nil {
				errs <- err
				return
			}
			defer f.Close()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for i := 0; i < 100; i++ {
				off := rng.Int64N(int64(len(want)))
				buf := make([]byte, 1+rng.IntN(2*testBlock))
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
			// And one sequential pass, which exercises read-ahead.
			all, err := io.ReadAll(io.NewSectionReader(f, 0, int64(len(want))))
			if err == nil && !bytes.Equal(all, want) {
				err = fmt.Errorf("reader %d: sequential pass differs", g)
			}
			if err != nil {
				errs <- err
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Each block was read from storage about once, however many readers.
	blocks := int64(len(want)+testBlock-1) / testBlock
	if n := tbl.readN.Load(); n > 2*blocks {
		t.Errorf("%d storage reads for a file of %d blocks", n, blocks)
	}
}

func TestStorageErrorIsEIO(t *testing.T) {
	tbl := standardTable(t)
	tbl.failReads("small.parquet", errors.New("injected: connection reset"))
	m := mountFake(t, tbl, Options{})
	for _, name := range []string{"missing.parquet", "small.parquet"} {
		if _, err := os.ReadFile(m.path("v/1/" + name)); !errors.Is(err, syscall.EIO) {
			t.Errorf("read %s: err = %v, want EIO", name, err)
		}
		if logs := m.logs.String(); !strings.Contains(logs, `object "`+name+`"`) {
			t.Errorf("log does not name object %s: %q", name, logs)
		}
	}
	// The mount still serves good files afterwards.
	if got, err := os.ReadFile(m.path("v/1/big.bin")); err != nil || !bytes.Equal(got, tbl.content("big.bin")) {
		t.Errorf("good file after errors: %v", err)
	}
}

// TestDirectIO: with Options.DirectIO every read of a data file comes to
// deltafs (with the block cache off, each whole read of the file is a
// storage read again), and the bytes are exact through read, pread at odd
// offsets and mmap, for plain files and files with deletion vectors.
// Without it, the kernel's page cache serves a second read.
func TestDirectIO(t *testing.T) {
	var dvBytes [2][]byte
	for i, direct := range []bool{false, true} {
		t.Run(fmt.Sprintf("direct=%v", direct), func(t *testing.T) {
			tbl := standardTable(t)
			m := mountFake(t, tbl, Options{DirectIO: direct, CacheBytes: -1})
			if direct && strings.Contains(m.logs.String(), "direct I/O off") {
				t.Skipf("THIS KERNEL CANNOT MMAP DIRECT-I/O FILES, direct I/O untested: %s", m.logs.String())
			}
			p := m.path("v/1/big.bin")
			want := tbl.content("big.bin")
			readAll := func() {
				t.Helper()
				got, err := os.ReadFile(p)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("read %d bytes (want %d equal ones): %v", len(got), len(want), err)
				}
			}
			readAll()
			// The first read's read-ahead may still be loading blocks in
			// the background (its handle is closed, but a load that had
			// started ends on its own): let the count settle first.
			before := settledReads(tbl)
			readAll()
			again := tbl.readN.Load() - before
			if direct && again == 0 {
				t.Errorf("a second read of %s reached no storage: served by the page cache", p)
			}
			if !direct && again != 0 {
				t.Errorf("a second read of %s made %d storage reads: the page cache did not serve it", p, again)
			}

			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, r := range [][2]int64{{1, 1}, {testBlock - 3, 7}, {2*testBlock + 11, testBlock + 5}, {int64(len(want)) - 9, 100}} {
				buf := make([]byte, r[1])
				n, err := f.ReadAt(buf, r[0])
				end := min(r[0]+r[1], int64(len(want)))
				if (err != nil && !errors.Is(err, io.EOF)) || !bytes.Equal(buf[:n], want[r[0]:end]) {
					t.Errorf("pread(%d, %d): %d bytes, %v", r[0], r[1], n, err)
				}
			}
			if mapped := mmapRead(t, p); !bytes.Equal(mapped, want) {
				t.Errorf("mmap: %d bytes differing from the %d stored", len(mapped), len(want))
			}

			if dvBytes[i], err = os.ReadFile(m.path("v/1/dv.parquet")); err != nil {
				t.Fatal(err)
			}
		})
	}
	if !bytes.Equal(dvBytes[0], dvBytes[1]) {
		t.Errorf("a file with a deletion vector reads %d bytes with direct I/O, %d without", len(dvBytes[1]), len(dvBytes[0]))
	}
}

// mmapRead returns the bytes of the file at path as another process sees
// them through mmap. Not this process: a page fault on the mount blocks its
// thread in the kernel until this process answers the FUSE read, and if the
// Go runtime meanwhile stops the world to collect garbage, it waits for
// that thread forever.
func mmapRead(t *testing.T, path string) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestMmapHelper$")
	cmd.Env = append(os.Environ(), "DELTAFS_MMAP_FILE="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mmap %s: %v\n%s", path, err, stderr.String())
	}
	return out
}

// TestMmapHelper is mmapRead's other process: it maps DELTAFS_MMAP_FILE
// and writes the mapped bytes to stdout.
func TestMmapHelper(t *testing.T) {
	path := os.Getenv("DELTAFS_MMAP_FILE")
	if path == "" {
		t.Skip("helper process for mmapRead")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.Write(data)
	os.Exit(0) // nothing after the bytes: no test summary on stdout
}

// settledReads returns the storage reads made so far once no more arrive
// for a while (background loads have ended).
func settledReads(tbl *fakeTable) int64 {
	n := tbl.readN.Load()
	for range 100 { // bounded: 5 s at most
		time.Sleep(50 * time.Millisecond)
		m := tbl.readN.Load()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// A sequential reader through the page cache gets READ requests of 1 MiB,
// not the 128 KiB the kernel allows a FUSE mount unless told otherwise
// (raiseReadAhead; root only).
func TestPageCacheReadsAreLarge(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: read_ahead_kb of a mount can be raised by root only")
	}
	tbl := standardTable(t)
	tbl.addVersion(t, "WRITE", []fakeFile{{path: "huge.bin", size: 16 << 20, modTime: mtime1, records: -1}}, true)
	m := mountFake(t, tbl, Options{Debug: true, BlockSize: 1 << 20})
	if _, err := os.ReadFile(m.path("v/2/huge.bin")); err != nil {
		t.Fatal(err)
	}
	sizes := regexp.MustCompile(`READ n\d+ \{Fh \d+ \[\d+ \+(\d+)\)`).FindAllStringSubmatch(m.logs.String(), -1)
	large := 0
	for _, s := range sizes {
		if s[1] == fmt.Sprint(maxRead) {
			large++
		}
	}
	if large < len(sizes)/2 {
		t.Errorf("%d of %d READ requests of 1 MiB, want most", large, len(sizes))
	}
}

// Every buffer given back to a pool in these tests is scribbled on, so that
// bytes a reply sends after their buffer went back show as wrong bytes.
func init() { serve.ScribbleOnRelease = true }

// TestLeasedBytesAreSentBeforeReuse: a file bigger than the block cache,
// read from its start, is read ahead into buffers reused from block to
// block (serve.Lease), and a buffer goes back only once go-fuse has written
// the reply that carries its bytes (leasedReply). Four readers copy the
// file at once, with direct I/O so that every read is a reply, and buffers
// are scribbled on when given back: the bytes must be right, and buffers
// reused (a go-fuse that wrote leased replies otherwise than as Slices
// would leave every buffer to the collector).
func TestLeasedBytesAreSentBeforeReuse(t *testing.T) {
	tbl := newFakeTable(t)
	tbl.addVersion(t, "WRITE", []fakeFile{{path: "copy.bin", size: 128*testBlock + 4321, modTime: mtime0, records: -1}}, true)
	m := mountFake(t, tbl, Options{DirectIO: true, CacheBytes: 4 * testBlock, ReadAhead: 8})
	if strings.Contains(m.logs.String(), "direct I/O off") {
		t.Skipf("THIS KERNEL CANNOT MMAP DIRECT-I/O FILES, direct I/O untested: %s", m.logs.String())
	}
	want := tbl.content("copy.bin")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := os.Open(m.path("v/0/copy.bin"))
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			buf := make([]byte, (i+1)*testBlock/2) // reads inside a block and across blocks
			for off := 0; off < len(want); off += len(buf) {
				n, err := f.ReadAt(buf, int64(off))
				if err != nil && err != io.EOF {
					t.Errorf("reader %d at %d: %v", i, off, err)
					return
				}
				if !bytes.Equal(buf[:n], want[off:min(off+len(buf), len(want))]) {
					t.Errorf("reader %d: wrong bytes at %d", i, off)
					return
				}
			}
		}()
	}
	wg.Wait()
	// About 20 buffers for some 250 blocks (under -race, where sync.Pool
	// drops a quarter of what it is given, about 110).
	made, used := m.root.files.BufferReuse()
	if used == 0 || made > used/2 {
		t.Errorf("%d block buffers made for %d blocks read ahead: want them reused", made, used)
	}
}
