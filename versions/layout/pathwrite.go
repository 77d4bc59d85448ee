package layout

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/deltafs/deltafs/replay"
)

// WritePaths writes the paths of files in the given order (PathOrder's),
// one per line. In path order the paths are scattered in memory, and
// reading them costs more than writing them: lines are put together a
// chunk at a time on every core and written in order, with a bounded
// number of chunks in flight.
func WritePaths(w io.Writer, files []replay.File, order []int32) error {
	const linesPerChunk = 1 << 13
	chunks := (len(order) + linesPerChunk - 1) / linesPerChunk
	chunk := func(c int) []int32 { return order[c*linesPerChunk : min((c+1)*linesPerChunk, len(order))] }
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers < 2 {
		var buf []byte
		for c := range chunks {
			buf = appendPaths(buf[:0], files, chunk(c))
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	ready := make([]chan []byte, chunks)
	for i := range ready {
		ready[i] = make(chan []byte, 1)
	}
	// A worker takes a slot before the next chunk's number, so the lowest
	// chunk not yet written always has one: the writer never waits on a
	// chunk no worker can start.
	slots := make(chan []byte, 2*workers)
	for range cap(slots) {
		slots <- nil
	}
	var next atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				var buf []byte
				select {
				case buf = <-slots:
				case <-stop:
					return
				}
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				ready[c] <- appendPaths(buf[:0], files, chunk(c))
			}
		})
	}
	var err error
	for c := range chunks {
		buf := <-ready[c]
		if _, err = w.Write(buf); err != nil {
			break
		}
		slots <- buf
	}
	close(stop)
	wg.Wait()
	return err
}

// appendPaths appends the paths of files in order, one per line. Each
// path costs two cache misses that depend on each other (its file, then
// its bytes); touching those of the paths a few lines ahead lets the
// processor wait for several at once.
func appendPaths(buf []byte, files []replay.File, order []int32) []byte {
	const ahead = 8
	var touched int
	for k, i := range order {
		if k+2*ahead < len(order) {
			touched += len(files[order[k+2*ahead]].Path)
		}
		if k+ahead < len(order) {
			if p := files[order[k+ahead]].Path; p != "" {
				touched += int(p[0])
			}
		}
		buf = append(buf, files[i].Path...)
		buf = append(buf, '\n')
	}
	touchSink.Add(int64(touched))
	return buf
}

// touchSink keeps the loads ahead from being optimized away.
var touchSink atomic.Int64
