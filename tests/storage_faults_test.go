package tests

// Storage faults on S3 (versitygw): through a proxy that answers 5xx and
// throttling, resets connections mid-body, cuts bodies short, sends more
// than asked, or stops or trickles in the middle; and a server killed and
// restarted during a sequential read and during refresh. Requests are retried with backoff, then fail
// with a logged reason (EIO through a mount); a wrong-length body is never
// data; the mount serves again once storage is back.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/tests/servers"
)

// quickRetry keeps fault tests short: four tries a few milliseconds apart,
// each abandoned after two seconds that bring under 2 KiB
// (servers.NoAnswer, servers.StalledBody, servers.TrickleBody).
var quickRetry = blobstore.WithRetry(blobstore.Retry{Attempts: 4, Backoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond,
	Silence: 2 * time.Second})

func TestStoreRetriesStorageFaults(t *testing.T) {
	ctx := context.Background()
	srv := servers.Start(t, servers.VersityGW)
	proxy, via := servers.StartProxy(t, srv)
	prefix := "faults/" + t.Name()
	direct, err := blobstore.Open(ctx, srv.Location(prefix))
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	data := make([]byte, 300<<10)
	rand.NewChaCha8([32]byte{'f'}).Read(data)
	if err := direct.Write(ctx, "obj.bin", data); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	st, err := blobstore.Open(ctx, via.Location(prefix), quickRetry,
		blobstore.WithLogf(func(f string, args ...any) { fmt.Fprintf(logs, f+"\n", args...) }))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	for _, fault := range servers.Faults {
		t.Run(fault.String(), func(t *testing.T) {
			defer proxy.Clear()
			// Twice, then the answer: the bytes, after two retries.
			proxy.Inject(fault, "obj.bin", 2)
			before := st.Counts()
			got, err := st.ReadRange(ctx, "obj.bin", 1000, 100_000)
			if err != nil || !bytes.Equal(got, data[1000:101_000]) {
				t.Fatalf("ranged read after two faults: %d bytes, %v", len(got), err)
			}
			if c := st.Counts().Sub(before); c.Retries != 2 || c.Gets != 3 {
				t.Errorf("ranged read after two faults: %d retries, %d GETs; want 2 and 3", c.Retries, c.Gets)
			}
			if fault != servers.ShortBody && fault != servers.LongBody { // ranged GETs only
				proxy.Inject(fault, "obj.bin", 2)
				if got, err := st.Read(ctx, "obj.bin"); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("whole read after two faults: %d bytes, %v", len(got), err)
				}
			}

			// Every try spoiled: an error that says why and how often, no bytes.
			proxy.Inject(fault, "obj.bin", 4)
			got, err = st.ReadRange(ctx, "obj.bin", 0, 200_000)
			if err == nil || got != nil || !strings.Contains(err.Error(), "after 4 tries") || !strings.Contains(err.Error(), "obj.bin") {
				t.Fatalf("ranged read with every try spoiled: %d bytes, error %v", len(got), err)
			}
			t.Logf("%s: %v", fault, err)
		})
	}
	if !strings.Contains(logs.String(), "try 1 of 4 failed") {
		t.Errorf("retries were not logged:\n%s", logs)
	}

	// Listing and HEAD ride out throttling too.
	proxy.Inject(servers.Unavailable, "/", 2)
	if o, err := st.Stat(ctx, "obj.bin"); err != nil || o.Size != int64(len(data)) {
		t.Errorf("stat after two 503s: %+v, %v", o, err)
	}
	proxy.Inject(servers.ServerError, "/", 2)
	var keys []string
	if err := st.List(ctx, "", "", func(o blobstore.Object) bool { keys = append(keys, o.Key); return true }); err != nil || len(keys) != 1 {
		t.Errorf("list after two 500s: %v, %v", keys, err)
	}

	// What a retry cannot change is not retried.
	before := st.Counts()
	if _, err := st.Read(ctx, "missing.bin"); !errors.Is(err, blobstore.ErrNotFound) {
		t.Errorf("missing object: %v", err)
	}
	if c := st.Counts().Sub(before); c.Retries != 0 {
		t.Errorf("a missing object was tried %d more times", c.Retries)
	}

	// A dead server: refused at once on every try, then the error.
	proxy.SetDown(true)
	if _, err := st.ReadRange(ctx, "obj.bin", 0, 10); err == nil || !strings.Contains(err.Error(), "after 4 tries") {
		t.Errorf("read from a dead server: %v", err)
	}
	proxy.SetDown(false)
	if got, err := st.ReadRange(ctx, "obj.bin", 0, 10); err != nil || !bytes.Equal(got, data[:10]) {
		t.Errorf("read once the server is back: %v", err)
	}
}

// TestMountRidesOutStorageFaults: through a mount, faults that pass are
// invisible; storage that stays down gives EIO with a logged reason and
// keeps latest where it was; once storage is back, the same reads succeed
// and latest moves on.
func TestMountRidesOutStorageFaults(t *testing.T) {
	requireFUSE(t)
	ctx := context.Background()
	srv := servers.Start(t, servers.VersityGW)
	proxy, via := servers.StartProxy(t, srv)
	prefix := "faults/" + t.Name()
	files := rrWriteTestTable(t, srv.Location(prefix))
	opts := fs.Options{BlockSize: 256 << 10, ReadAhead: 8, DirectIO: true, NoPassthrough: true, RefreshInterval: 50 * time.Millisecond}
	m := mountForTest(t, via.Location(prefix), opts, quickRetry)
	latest := filepath.Join(m.dir, "latest")

	for i, fault := range servers.Faults {
		proxy.Inject(fault, "a.bin", 2)
		// A fresh range each time: the kernel and the block cache must not
		// answer from what an earlier round read.
		off := int64(i) * 3 << 20
		got := make([]byte, 1<<20)
		f, err := os.Open(filepath.Join(latest, "a.bin"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.ReadAt(got, off)
		f.Close()
		if err != nil || !bytes.Equal(got, files["a.bin"][off:off+1<<20]) {
			t.Errorf("%s twice, then a read at %d: %v (or wrong bytes)", fault, off, err)
		}
	}

	proxy.SetDown(true)
	if got, err := os.ReadFile(filepath.Join(latest, "part=x", "b.bin")); err == nil || !errors.Is(err, syscall.EIO) {
		t.Errorf("read while storage is down: %d bytes, %v; want EIO", len(got), err)
	}
	if !waitFor(time.Minute, func() bool {
		return strings.Contains(m.logs.String(), "b.bin") && strings.Contains(m.logs.String(), "after 4 tries")
	}) {
		t.Errorf("no logged reason for the failed read:\n%s", m.logs)
	}
	// A commit lands while the mount cannot see storage: latest stays.
	st, err := blobstore.Open(ctx, srv.Location(prefix))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	commit, err := deltagen.EncodeActions([]action.Action{deltagen.AddFile("c.bin", 5, 1700000001000, nil, "")})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(ctx, "c.bin", []byte("fifth")); err != nil {
		t.Fatal(err)
	}
	if err := st.Write(ctx, "_delta_log/00000000000000000001.json", commit); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // several refresh rounds
	if got := readlink(t, latest); got != "v/0" {
		t.Errorf("latest is %s while storage is down; want v/0", got)
	}

	proxy.SetDown(false)
	if got, err := os.ReadFile(filepath.Join(m.dir, "v", "0", "part=x", "b.bin")); err != nil || !bytes.Equal(got, files["part=x/b.bin"]) {
		t.Errorf("read once storage is back: %d bytes, %v", len(got), err)
	}
	if !waitFor(time.Minute, func() bool { return readlink(t, latest) == "v/1" }) {
		t.Fatalf("latest did not move to v/1 once storage was back:\n%s", m.logs)
	}
	if got, err := os.ReadFile(filepath.Join(latest, "c.bin")); err != nil || string(got) != "fifth" {
		t.Errorf("c.bin: %q, %v", got, err)
	}
}

// TestMountAcrossServerRestart kills the S3 server in the middle of a
// sequential read and while a commit arrives, and starts it again: the
// read finishes with the right bytes and latest moves on.
func TestMountAcrossServerRestart(t *testing.T) {
	requireFUSE(t)
	srv := servers.StartOwn(t, servers.VersityGW)
	prefix := "restart"
	files := rrWriteTestTable(t, srv.Location(prefix))
	// Patient retries: a restart on a busy machine may take seconds.
	patient := blobstore.WithRetry(blobstore.Retry{Attempts: 40, Backoff: 50 * time.Millisecond, MaxBackoff: time.Second})
	opts := fs.Options{BlockSize: 256 << 10, ReadAhead: 8, CacheBytes: 2 << 20, DirectIO: true, NoPassthrough: true, RefreshInterval: 100 * time.Millisecond}
	m := mountForTest(t, srv.Location(prefix), opts, patient)
	latest := filepath.Join(m.dir, "latest")

	f, err := os.Open(filepath.Join(latest, "a.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got bytes.Buffer
	buf := make([]byte, 1<<20)
	restarted := make(chan error, 1)
	for {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read at %d: %v\n%s", got.Len(), err, m.logs)
		}
		if got.Len() == 8<<20 { // a fifth of the way: kill, and restart soon
			srv.Kill()
			go func() {
				time.Sleep(300 * time.Millisecond)
				restarted <- srv.Restart()
			}()
		}
	}
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), files["a.bin"]) {
		t.Fatalf("a.bin read across a restart: %d bytes, not the %d stored", got.Len(), len(files["a.bin"]))
	}
	if m.store.Counts().Retries == 0 {
		t.Errorf("no request was retried: the server was not down during the read?")
	}

	// Down during refresh: the commit is written into the server's folder
	// while it is dead, so every refresh meanwhile fails.
	srv.Kill()
	commit, err := deltagen.EncodeActions([]action.Action{deltagen.AddFile("c.bin", 5, 1700000001000, nil, "")})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"c.bin": []byte("fifth"), "_delta_log/00000000000000000001.json": commit} {
		p := filepath.Join(srv.DataDir(), prefix, filepath.FromSlash(name))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	if got := readlink(t, latest); got != "v/0" {
		t.Errorf("latest is %s while the server is down; want v/0", got)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(time.Minute, func() bool { return readlink(t, latest) == "v/1" }) {
		t.Fatalf("latest did not move to v/1 after the restart:\n%s", m.logs)
	}
	if got, err := os.ReadFile(filepath.Join(latest, "c.bin")); err != nil || string(got) != "fifth" {
		t.Errorf("c.bin after the restart: %q, %v", got, err)
	}
}

// TestDeadServerGivesUp: with the server dead, a read on GCS and Azure
// ends in an error of its own, not one of a context that ran out (the GCS
// client alone retries until its context ends, which for a mount is never).
func TestDeadServerGivesUp(t *testing.T) {
	for _, name := range []string{servers.FakeGCSServer, servers.Azurite} {
		t.Run(name, func(t *testing.T) {
			srv := servers.StartOwn(t, name)
			ctx := context.Background()
			st, err := blobstore.Open(ctx, srv.Location("dead"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.Write(ctx, "x", []byte("hello")); err != nil {
				t.Fatal(err)
			}
			srv.Kill()
			// A bound far past the retries, only so that a hang fails.
			bounded, cancel := context.WithTimeout(ctx, 5*time.Minute)
			defer cancel()
			_, err = st.ReadRange(bounded, "x", 0, 3)
			if err == nil || bounded.Err() != nil {
				t.Fatalf("read from a dead server: %v (context: %v)", err, bounded.Err())
			}
			t.Logf("%v (%d requests)", err, st.Counts().Requests())
		})
	}
}

// TestObjectSizeCheckedOnS3: an object longer or shorter than the log
// says is never served as the table's bytes: EIO with a log line naming
// both sizes, found from the ranged answers themselves (no HEAD).
func TestObjectSizeCheckedOnS3(t *testing.T) {
	requireFUSE(t)
	srv := servers.Start(t, servers.VersityGW)
	local := t.TempDir()
	gen := deltagen.New(local)
	mustCommit(t, gen, deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil))
	good := mustAdd(t, gen, "good.parquet", 100)
	var adds []action.Action
	for name, delta := range map[string]int64{"short.parquet": -10, "long.parquet": 10} {
		a := mustAdd(t, gen, name, 100)
		a.Add.Size += delta
		adds = append(adds, a)
	}
	mustCommit(t, gen, append(adds, good)...)
	prefix := "faults/" + t.Name()
	copyToStore(t, local, srv.Location(prefix))
	m := mountForTest(t, srv.Location(prefix), fs.Options{RefreshInterval: -1}, quickRetry)
	before := m.store.Counts()
	if _, err := os.ReadFile(filepath.Join(m.dir, "latest", "good.parquet")); err != nil {
		t.Fatalf("the good file: %v", err)
	}
	if c := m.store.Counts().Sub(before); c.Heads != 0 {
		t.Errorf("reading a file cost %d HEAD requests, want 0", c.Heads)
	}
	for _, name := range []string{"short.parquet", "long.parquet"} {
		got, err := os.ReadFile(filepath.Join(m.dir, "latest", name))
		if !errors.Is(err, syscall.EIO) {
			t.Errorf("%s: read %d bytes, err %v; want EIO", name, len(got), err)
		}
		if !strings.Contains(m.logs.String(), name) || !strings.Contains(m.logs.String(), "the log says") {
			t.Errorf("%s: no log line naming the sizes:\n%s", name, m.logs)
		}
	}
}
