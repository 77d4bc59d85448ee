package versions

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
)

// logLayout is the shape of a synthetic _delta_log (names only).
type logLayout struct {
	versions   int64
	firstKept  int64 // commits below it were cleaned up (checkpoints stay)
	crc        bool
	cpEvery    int64 // 0: no checkpoint
	cpParts    int   // >1: multi-part
	brokenLast bool  // the newest checkpoint misses a part
	hint       string
}

// write puts the layout's keys into a fresh mem:// store and returns it
// with the newest complete checkpoint (-1: none).
func (l logLayout) write(t *testing.T) (*blobstore.Store, int64) {
	t.Helper()
	ctx := context.Background()
	st, err := blobstore.Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	put := func(key string) {
		if err := st.Write(ctx, replay.LogDir+key, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	newest, last := int64(-1), int64(-1)
	for v := int64(0); v < l.versions; v++ {
		if v >= l.firstKept {
			put(replay.Padded(v) + ".json")
			if l.crc {
				put(replay.Padded(v) + ".crc")
			}
		}
		if l.cpEvery == 0 || v == 0 || v%l.cpEvery != 0 {
			continue
		}
		last = v
		broken := l.brokenLast && v+l.cpEvery >= l.versions
		if l.cpParts <= 1 {
			put(replay.Padded(v) + ".checkpoint.parquet")
		} else {
			for p := 1; p <= l.cpParts; p++ {
				if !(broken && p == 2) {
					put(fmt.Sprintf("%s.checkpoint.%010d.%010d.parquet", replay.Padded(v), p, l.cpParts))
				}
			}
		}
		if !broken {
			newest = v
		}
	}
	hint := ""
	switch l.hint {
	case "valid":
		hint = fmt.Sprintf(`{"version":%d,"size":1}`, last)
	case "stale":
		hint = fmt.Sprintf(`{"version":%d,"size":1}`, max(l.cpEvery, last-l.cpEvery))
	case "corrupt":
		hint = "{"
	}
	if hint != "" && last > 0 {
		if err := st.Write(ctx, LastCheckpointKey, []byte(hint)); err != nil {
			t.Fatal(err)
		}
	}
	return st, newest
}

// TestOpenFindsTailAndCheckpoint: whatever the log's shape and hint, Open
// finds the latest version, and the segment of latest starts at the newest
// complete checkpoint, as a full listing would say.
func TestOpenFindsTailAndCheckpoint(t *testing.T) {
	layouts := []logLayout{
		{versions: 1},
		{versions: 9},
		{versions: 999, crc: true},
		{versions: 1000, cpEvery: 10},
		{versions: 1001, cpEvery: 10, crc: true, cpParts: 3},
		{versions: 2500, cpEvery: 100, crc: true, hint: "valid"},
		{versions: 2500, cpEvery: 100, crc: true, hint: "stale"},
		{versions: 2500, cpEvery: 100, crc: true, hint: "corrupt"},
		{versions: 3000, cpEvery: 10, cpParts: 20, brokenLast: true, hint: "valid"},
		{versions: 5000, cpEvery: 1000, firstKept: 2000},
		{versions: 12345, cpEvery: 5000, crc: true},
		{versions: 12345, cpEvery: 10, cpParts: 4, crc: true},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 6 {
		l := logLayout{versions: 1 + rng.Int64N(8000), crc: rng.IntN(2) == 0, cpParts: 1 + rng.IntN(5)}
		if rng.IntN(4) > 0 {
			l.cpEvery = 1 + rng.Int64N(300)
			l.brokenLast = rng.IntN(3) == 0
			l.hint = []string{"", "valid", "stale", "corrupt"}[rng.IntN(4)]
		}
		layouts = append(layouts, l)
	}
	for _, l := range layouts {
		t.Run(fmt.Sprintf("%+v", l), func(t *testing.T) {
			st, newest := l.write(t)
			ctx := context.Background()
			table, err := Open(ctx, st, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if table.Latest() != l.versions-1 {
				t.Fatalf("latest %d, want %d", table.Latest(), l.versions-1)
			}
			if newest < l.firstKept && l.firstKept > 0 && newest < 0 {
				return // not rebuildable: nothing more to check
			}
			seg, err := table.Segment(ctx, table.Latest())
			if err != nil {
				t.Fatal(err)
			}
			got := int64(-1)
			if seg.Checkpoint != nil {
				got = seg.Checkpoint.Version
			}
			if got != newest {
				t.Errorf("segment from checkpoint %d, want %d", got, newest)
			}
			c := st.Counts()
			t.Logf("%d lists, %d gets, hint %s", c.Lists, c.Gets, table.Hint())
		})
	}
}

// pageCounter counts the pages each listing of the whole log from a key
// (List) goes through: those pages come one after another.
type pageCounter struct {
	Store
	mu      sync.Mutex
	longest int // pages of the longest List
}

func (p *pageCounter) List(ctx context.Context, dir, startAfter string, fn func(blobstore.Object) bool) error {
	n := 0
	err := p.Store.List(ctx, dir, startAfter, func(o blobstore.Object) bool {
		n++
		return fn(o)
	})
	p.mu.Lock()
	p.longest = max(p.longest, (n+999)/1000)
	p.mu.Unlock()
	return err
}

// When the newest checkpoint is far below the tail, or there is none, the
// log between them comes from the pages the checkpoint search listed (in
// parallel), and only what they leave out is listed: never a long run of
// pages one after another, whatever share of the objects are .crc files.
func TestOpenListsNoLongRun(t *testing.T) {
	for _, l := range []logLayout{
		{versions: 20000},
		{versions: 20000, crc: true},
		{versions: 12345, cpEvery: 5000, crc: true},
		{versions: 9000, cpEvery: 4000, cpParts: 3},
	} {
		st, newest := l.write(t)
		pc := &pageCounter{Store: st}
		ctx := context.Background()
		table, err := Open(ctx, pc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		seg, err := table.Segment(ctx, table.Latest())
		if err != nil {
			t.Fatalf("%+v: %v", l, err)
		}
		if got := seg.Commits[0].Version; seg.Checkpoint == nil && got != 0 || seg.Checkpoint != nil && seg.Checkpoint.Version != newest {
			t.Errorf("%+v: segment from %d / %v, want checkpoint %d", l, got, seg.Checkpoint, newest)
		}
		if pc.longest > 2 {
			t.Errorf("%+v: a listing went through %d pages in a row", l, pc.longest)
		}
		t.Logf("%+v: %d lists, longest run %d pages", l, st.Counts().Lists, pc.longest)
	}
}
