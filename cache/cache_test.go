package cache

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func byteLen(b []byte) int64 { return int64(len(b)) }

func TestGetOrLoadCachesValue(t *testing.T) {
	c := New[string, []byte](1<<20, byteLen)
	defer c.Close()
	var calls atomic.Int64
	load := func(context.Context) ([]byte, error) { calls.Add(1); return []byte("hello"), nil }
	for i := 0; i < 3; i++ {
		v, err := c.GetOrLoad(context.Background(), "k", load)
		if err != nil || string(v) != "hello" {
			t.Fatalf("GetOrLoad = %q, %v", v, err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("load called %d times, want 1", n)
	}
	if v, ok := c.Get("k"); !ok || string(v) != "hello" {
		t.Fatalf("Get = %q, %v", v, ok)
	}
	if _, ok := c.Get("other"); ok {
		t.Fatal("Get of a missing key hit")
	}
	st := c.Stats()
	if st.Loads != 1 || st.Hits < 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestConcurrentCallersShareOneLoad(t *testing.T) {
	c := New[uint64, int](1<<20, nil)
	defer c.Close()
	var calls atomic.Int64
	release := make(chan struct{})
	load := func(context.Context) (int, error) {
		calls.Add(1)
		<-release
		return 42, nil
	}
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.GetOrLoad(context.Background(), 7, load)
			if err == nil && v != 42 {
				err = fmt.Errorf("got %d", v)
			}
			errs <- err
		}()
	}
	// Let the callers pile up on the flight before it finishes.
	waitFor(t, func() bool { return c.Stats().Shared+c.Stats().Loads >= n })
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := calls.Load(); got != 1 {
		t.Fatalf("load called %d times, want 1", got)
	}
}

func TestErrorsAreNotCached(t *testing.T) {
	c := New[string, string](1<<20, func(s string) int64 { return int64(len(s)) })
	defer c.Close()
	boom := errors.New("boom")
	var calls atomic.Int64
	load := func(context.Context) (string, error) {
		if calls.Add(1) == 1 {
			return "", boom
		}
		return "ok", nil
	}
	if _, err := c.GetOrLoad(context.Background(), "k", load); !errors.Is(err, boom) {
		t.Fatalf("first call err = %v, want boom", err)
	}
	if _, ok := c.Get("k"); ok {
		t.Fatal("error result was cached")
	}
	v, err := c.GetOrLoad(context.Background(), "k", load)
	if err != nil || v != "ok" {
		t.Fatalf("second call = %q, %v", v, err)
	}
	if calls.Load() != 2 || c.Stats().Errors != 1 {
		t.Fatalf("calls %d, stats %+v", calls.Load(), c.Stats())
	}
}

func TestPanicBecomesError(t *testing.T) {
	c := New[string, int](1<<20, nil)
	defer c.Close()
	_, err := c.GetOrLoad(context.Background(), "k", func(context.Context) (int, error) { panic("bad") })
	if err == nil {
		t.Fatal("no error from a panicking load")
	}
}

func TestCallerCancelDoesNotFailOthers(t *testing.T) {
	c := New[string, int](1<<20, nil)
	defer c.Close()
	release := make(chan struct{})
	var loadCtxErr atomic.Value
	load := func(ctx context.Context) (int, error) {
		<-release
		loadCtxErr.Store(fmt.Sprint(ctx.Err()))
		return 1, nil
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := c.GetOrLoad(ctx1, "k", load); first <- err }()
	waitFor(t, func() bool { return c.Stats().Loads == 1 })
	second := make(chan error, 1)
	go func() { _, err := c.GetOrLoad(context.Background(), "k", load); second <- err }()
	waitFor(t, func() bool { return c.Stats().Shared == 1 })
	cancel1()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller err = %v", err)
	}
	close(release)
	if err := <-second; err != nil {
		t.Fatalf("patient caller err = %v", err)
	}
	if got := loadCtxErr.Load(); got != "<nil>" {
		t.Fatalf("load ctx was cancelled: %v", got)
	}
}

func TestLastCallerCancelStopsLoad(t *testing.T) {
	c := New[string, int](1<<20, nil)
	defer c.Close()
	stopped := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancel()
	}()
	_, err := c.GetOrLoad(ctx, "k", func(lctx context.Context) (int, error) {
		<-lctx.Done()
		close(stopped)
		return 0, lctx.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("load was not cancelled when its only caller left")
	}
	// A new caller starts a fresh load instead of joining the cancelled one.
	v, err := c.GetOrLoad(context.Background(), "k", func(context.Context) (int, error) { return 5, nil })
	if err != nil || v != 5 {
		t.Fatalf("fresh load = %d, %v", v, err)
	}
}

func TestBudgetEvicts(t *testing.T) {
	const block = 1 << 10
	c := New[int, []byte](16*block, byteLen)
	defer c.Close()
	for i := 0; i < 200; i++ {
		i := i
		if _, err := c.GetOrLoad(context.Background(), i, func(context.Context) ([]byte, error) {
			return make([]byte, block), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	kept := 0
	for i := 0; i < 200; i++ {
		if _, ok := c.Get(i); ok {
			kept++
		}
	}
	if kept > 16 {
		t.Fatalf("%d blocks of %d bytes kept under a budget of %d", kept, block, 16*block)
	}
	if got := c.Bytes(); got != int64(kept*block) {
		t.Fatalf("Bytes() = %d with %d blocks of %d kept", got, kept, block)
	}
}

// Bytes follows what the cache holds through sets, updates and deletes
// (a budget with room for all: every set is admitted).
func TestBytesCountsHeldValues(t *testing.T) {
	c := New[string, []byte](1<<20, byteLen)
	defer c.Close()
	if got := c.Bytes(); got != 0 {
		t.Fatalf("empty cache: Bytes() = %d", got)
	}
	for _, k := range []string{"a", "b", "c"} {
		if !c.Set(k, make([]byte, 1000)) {
			t.Fatalf("set %s refused", k)
		}
	}
	c.Set("a", make([]byte, 3000)) // an update replaces the old cost
	c.rc.Wait()
	if got := c.Bytes(); got != 5000 {
		t.Fatalf("after sets: Bytes() = %d, want 5000", got)
	}
	c.Del("b")
	c.rc.Wait() // deletes apply asynchronously
	if got := c.Bytes(); got != 4000 {
		t.Fatalf("after a delete: Bytes() = %d, want 4000", got)
	}
}

func TestZeroBudgetStillDeduplicates(t *testing.T) {
	c := New[string, int](0, nil)
	defer c.Close()
	v, err := c.GetOrLoad(context.Background(), "k", func(context.Context) (int, error) { return 3, nil })
	if err != nil || v != 3 {
		t.Fatalf("GetOrLoad = %d, %v", v, err)
	}
	if _, ok := c.Get("k"); ok {
		t.Fatal("zero-budget cache stored a value")
	}
}

func TestCloseDuringLoads(t *testing.T) {
	c := New[int, []byte](1<<20, byteLen)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				_, _ = c.GetOrLoad(context.Background(), g*1000+i%17, func(context.Context) ([]byte, error) {
					return make([]byte, 100), nil
				})
			}
		}(g)
	}
	time.Sleep(time.Millisecond)
	c.Close()
	wg.Wait()
	if _, ok := c.Get(1); ok {
		t.Fatal("Get hit after Close")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// goroutineID is the number runtime.Stack gives the calling goroutine.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

func TestNestedLoadRunsInItsCaller(t *testing.T) {
	views, blocks := New[string, int](1<<20, nil), New[string, int](1<<20, nil)
	defer views.Close()
	defer blocks.Close()
	var outer, inner string
	v, err := views.GetOrLoad(context.Background(), "view", func(ctx context.Context) (int, error) {
		outer = goroutineID()
		return blocks.GetOrLoad(ctx, "block", func(context.Context) (int, error) {
			inner = goroutineID()
			return 7, nil
		})
	})
	if err != nil || v != 7 {
		t.Fatalf("got %d, %v", v, err)
	}
	if outer == goroutineID() || inner != outer {
		t.Fatalf("caller %s, outer load %s, nested load %s: want the nested load in the outer's goroutine", goroutineID(), outer, inner)
	}
	if v, ok := blocks.Get("block"); !ok || v != 7 {
		t.Fatalf("nested load's value not cached: %d, %v", v, ok)
	}
}

func TestNestedLoadStopsWhenNobodyWaits(t *testing.T) {
	views, blocks := New[string, int](1<<20, nil), New[string, int](1<<20, nil)
	defer views.Close()
	defer blocks.Close()
	ctx, cancel := context.WithCancel(context.Background())
	started, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		<-started
		cancel()
	}()
	_, err := views.GetOrLoad(ctx, "view", func(ctx context.Context) (int, error) {
		return blocks.GetOrLoad(ctx, "block", func(lctx context.Context) (int, error) {
			close(started)
			<-lctx.Done()
			close(stopped)
			return 0, lctx.Err()
		})
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("the nested load went on after its only caller left")
	}
	// The next caller loads afresh.
	waitFor(t, func() bool {
		v, err := blocks.GetOrLoad(context.Background(), "block", func(context.Context) (int, error) { return 3, nil })
		return err == nil && v == 3
	})
}
