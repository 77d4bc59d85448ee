package replay

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
)

// buildVersions writes commits 0..n-1 to a fresh mem:// table and builds
// each version.
func buildVersions(t *testing.T, commits ...string) []*Snapshot {
	t.Helper()
	ctx := context.Background()
	st, err := blobstore.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var files []LogFile
	for v, c := range commits {
		key := LogDir + Padded(int64(v)) + ".json"
		if err := st.Write(ctx, key, []byte(c)); err != nil {
			t.Fatal(err)
		}
		f, _ := ParseLogFile(key, int64(len(c)), 0)
		files = append(files, f)
	}
	var out []*Snapshot
	for v := range commits {
		seg, err := NewLogSegment(files, int64(v))
		if err != nil {
			t.Fatal(err)
		}
		snap, err := Build(ctx, st, seg, st.Location())
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		out = append(out, snap)
	}
	return out
}

func livePaths(s *Snapshot) []string {
	var out []string
	for _, f := range s.Files {
		out = append(out, f.Path)
	}
	slices.Sort(out)
	return out
}

// An empty path element is folded away, as Spark and delta-rs fold it: an
// add of "part=1//f.parquet" is the file part=1/f.parquet, and a remove
// spelling it "part=1/f.parquet" removes it (and the other way round).
func TestEmptyPathElementsFold(t *testing.T) {
	const head = `{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"metaData":{"id":"x","format":{"provider":"parquet"},"schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":[]}}
`
	snaps := buildVersions(t,
		head+`{"add":{"path":"part=1//f.parquet","size":1,"modificationTime":1,"dataChange":true}}
{"add":{"path":"g.parquet","size":1,"modificationTime":1,"dataChange":true}}`,
		`{"remove":{"path":"part=1/f.parquet","dataChange":true}}`,
		`{"add":{"path":"a/b.parquet","size":1,"modificationTime":1,"dataChange":true}}`,
		`{"remove":{"path":"a///b.parquet","dataChange":true}}`,
	)
	for v, want := range [][]string{{"g.parquet", "part=1/f.parquet"}, {"g.parquet"}, {"a/b.parquet", "g.parquet"}, {"g.parquet"}} {
		if got := livePaths(snaps[v]); !slices.Equal(got, want) {
			t.Errorf("v%d: live %q, want %q", v, got, want)
		}
	}
}

// TestByteBudget: a take waits for the bytes it asks, and one asking more
// than all takes all.
func TestByteBudget(t *testing.T) {
	b := newByteBudget(10)
	if n := b.take(25); n != 10 {
		t.Fatalf("took %d of 10 for 25", n)
	}
	done := make(chan int64)
	go func() { done <- b.take(3) }()
	select {
	case n := <-done:
		t.Fatalf("took %d with none left", n)
	case <-time.After(20 * time.Millisecond):
	}
	b.give(10)
	if n := <-done; n != 3 || b.take(7) != 7 {
		t.Fatalf("took %d, want 3, then the other 7", n)
	}
}
