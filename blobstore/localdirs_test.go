package blobstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Listings of one folder share its reading, but a listing always sees a
// file written before it was asked for, however many listings run beside
// it.
func TestLocalListingsSeeEarlierWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	log := filepath.Join(dir, "_delta_log")
	if err := os.Mkdir(log, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 { // listings running all along
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, err := st.ListPage(ctx, "_delta_log/", ""); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	for i := range 300 {
		name := fmt.Sprintf("%020d.json", i)
		if err := os.WriteFile(filepath.Join(log, name), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		page, _, err := st.ListPage(ctx, "_delta_log/", fmt.Sprintf("_delta_log/%020d.json", i-1))
		if err != nil {
			t.Fatal(err)
		}
		if len(page) != 1 || page[0].Key != "_delta_log/"+name {
			t.Fatalf("after writing %s the listing gives %v", name, page)
		}
	}
}

// Concurrent listings of one folder give the same objects as one alone.
func TestLocalConcurrentListingsAgree(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for i := range 2500 {
		if err := os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", i)), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	starts := []string{"", "_delta_log/", "_delta_log/00000000000000000999.json", "_delta_log/00000000000000002499.json", "_delta_log0", "a"}
	want := make([][]Object, len(starts))
	for i, s := range starts {
		if want[i], _, err = st.ListPage(ctx, "_delta_log/", s); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		for i, s := range starts {
			wg.Go(func() {
				got, _, err := st.ListPage(ctx, "_delta_log/", s)
				if err != nil {
					t.Error(err)
				} else if fmt.Sprint(got) != fmt.Sprint(want[i]) {
					t.Errorf("after %q: %d objects, alone %d", s, len(got), len(want[i]))
				}
			})
		}
	}
	wg.Wait()
	if n := len(want[0]); n != 1000 || len(want[2]) != 1000 || len(want[3]) != 0 || len(want[4]) != 0 || len(want[5]) != 0 {
		t.Errorf("pages of %d, %d, %d, %d, %d objects", n, len(want[2]), len(want[3]), len(want[4]), len(want[5]))
	}
}
