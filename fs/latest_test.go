package fs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"testing"
	"time"
)

func TestLatestSymlinkMovesAfterRefresh(t *testing.T) {
	tbl := standardTable(t)
	m := mountFake(t, tbl, Options{RefreshInterval: 50 * time.Millisecond})
	if got, err := os.Readlink(m.path("latest")); err != nil || got != "v/1" {
		t.Fatalf("readlink latest = %q, %v; want v/1", got, err)
	}
	if _, err := os.Stat(m.path("latest/big.bin")); err != nil {
		t.Fatalf("stat through latest: %v", err)
	}
	// A commit lands; it is not known until the refresher picks it up.
	tbl.addVersion(t, "DELETE", []fakeFile{{path: "small.parquet", size: 1000, modTime: mtime0, records: 10}}, false)
	if _, err := os.Stat(m.path("v/2")); err == nil {
		t.Log("v/2 visible before refresh (refresher was quick)")
	}
	waitUntil(t, 3*time.Second, "latest -> v/2", func() bool {
		got, err := os.Readlink(m.path("latest"))
		return err == nil && got == "v/2"
	})
	waitUntil(t, 3*time.Second, "v/2 listed", func() bool { return names(t, m.path("v")) == "0 1 2" })
	if got := names(t, m.path("latest/")); got != "small.parquet" {
		t.Errorf("ls latest/ = %q", got)
	}
	if fi, err := os.Lstat(m.path("latest")); err != nil || fi.Size() != 3 {
		t.Errorf("lstat latest = %v, %v", fi, err)
	}
}

func TestRefresherStopsOnUnmount(t *testing.T) {
	requireFUSE(t)
	tbl := standardTable(t)
	srv, err := Mount(context.Background(), t.TempDir(), tbl, Options{RefreshInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 3*time.Second, "a refresh", func() bool { return tbl.refreshN.Load() > 0 })
	if err := srv.Unmount(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let a tick that raced the unmount finish
	n := tbl.refreshN.Load()
	time.Sleep(100 * time.Millisecond)
	if got := tbl.refreshN.Load(); got != n {
		t.Errorf("refresher still running after unmount: %d refreshes, then %d", n, got)
	}
}

func TestRefresherStopsOnCancel(t *testing.T) {
	tbl := standardTable(t)
	ctx, cancel := context.WithCancel(context.Background())
	r := newRoot(ctx, tbl, Options{RefreshInterval: 10 * time.Millisecond, Logger: log.New(io.Discard, "", 0)})
	r.startRefresher()
	waitUntil(t, 3*time.Second, "a refresh", func() bool { return tbl.refreshN.Load() > 0 })
	cancel()
	r.refresher.Wait() // returns only once the loop has stopped
	r.Close()
}

// history.jsonl, read through opens or without (Options.NoOpen: through
// the page cache, which refresh invalidates).
func TestHistoryJSONL(t *testing.T) {
	for _, noOpen := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoOpen=%v", noOpen), func(t *testing.T) { testHistoryJSONL(t, noOpen) })
	}
}

func testHistoryJSONL(t *testing.T, noOpen bool) {
	tbl := standardTable(t)
	m := mountFake(t, tbl, Options{RefreshInterval: 50 * time.Millisecond, NoOpen: noOpen})
	// read returns the entries; strict, it also wants the size fstat
	// reports to match what was read. While latest moves, the kernel may
	// answer fstat from attributes it cached up to LatestAttrTimeout ago
	// (reads are direct I/O, so they are never cut short by it).
	read := func(strict bool) []HistoryEntry {
		f, err := os.Open(m.path("history.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		if strict && fi.Size() != int64(len(data)) {
			t.Errorf("fstat size %d, read %d bytes", fi.Size(), len(data))
		}
		var out []HistoryEntry
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			var e HistoryEntry
			dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&e); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			out = append(out, e)
		}
		return out
	}
	got := read(true)
	if len(got) != 2 || got[0].Instant == nil || *got[0].Instant != 1_700_000_000_000 {
		t.Fatalf("history = %+v", got)
	}
	if got[0].Added == nil || *got[0].Added != 2 || got[0].Removed == nil || *got[0].Removed != 0 {
		t.Fatalf("history = %+v", got)
	}
	got[0].Instant, got[0].Added, got[0].Removed = nil, nil, nil
	if got[0] != (HistoryEntry{Version: 0, Timestamp: 1_700_000_000_000, Operation: "CREATE TABLE", Files: 2}) || got[1].Operation != "WRITE" || got[1].Files != 8 {
		t.Fatalf("history = %+v", got)
	}
	data, _ := os.ReadFile(m.path("history.jsonl"))
	if want := `{"version":0,"instant":1700000000000,"timestamp":1700000000000,"operation":"CREATE TABLE","files":2,"added":2,"removed":0}`; !bytes.HasPrefix(data, []byte(want+"\n")) {
		t.Errorf("first line = %q, want %q", bytes.SplitN(data, []byte("\n"), 2)[0], want)
	}
	tbl.addVersion(t, "OPTIMIZE", nil, false)
	waitUntil(t, 3*time.Second, "history line for v2", func() bool {
		h := read(false)
		return len(h) == 3 && h[2].Operation == "OPTIMIZE"
	})
	time.Sleep(time.Second + 100*time.Millisecond) // LatestAttrTimeout's default
	if h := read(true); len(h) != 3 {
		t.Errorf("history after the attribute timeout: %+v", h)
	}
}
