package checkpoint

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
)

// Storage is what the readers need from blobstore.
type Storage interface {
	Read(ctx context.Context, key string) ([]byte, error)
	ReadRange(ctx context.Context, key string, offset, length int64) ([]byte, error)
}

// Part is one file of a checkpoint: its key under the table root and size.
type Part struct {
	Key  string
	Size int64
}

// wholeFileLimit is the size up to which a Parquet file is read in one
// request: below it, one round trip beats footer-then-columns.
// A variable, so that tests can make small files take the other way.
var wholeFileLimit int64 = 8 << 20

// footerGuess is how much of a file's tail is read to find the footer.
const footerGuess = 256 << 10

// span is a fetched byte range of a file.
type span struct {
	off  int64
	data []byte
}

// sparseFile serves ReadAt from the byte ranges fetched so far and fetches
// (one request each) whatever a read needs that is not there yet.
type sparseFile struct {
	ctx  context.Context
	st   Storage
	key  string
	size int64

	mu    sync.Mutex
	spans []span // GUARDED_BY(mu); sorted by off, non-overlapping
}

func newSparseFile(ctx context.Context, st Storage, p Part) *sparseFile {
	return &sparseFile{ctx: ctx, st: st, key: p.Key, size: p.Size}
}

// fetch reads the ranges [off, off+n) in parallel and keeps them.
func (f *sparseFile) fetch(ranges [][2]int64) error {
	spans := make([]span, len(ranges))
	errs := make([]error, len(ranges))
	var wg sync.WaitGroup
	for i, r := range ranges {
		wg.Add(1)
		go func(i int, off, n int64) {
			defer wg.Done()
			var data []byte
			var err error
			if off == 0 && n == f.size {
				data, err = f.st.Read(f.ctx, f.key)
			} else {
				data, err = f.st.ReadRange(f.ctx, f.key, off, n)
			}
			if err == nil && int64(len(data)) != n {
				err = fmt.Errorf("%s: short read at %d: %d of %d bytes", f.key, off, len(data), n)
			}
			spans[i], errs[i] = span{off, data}, err
		}(i, r[0], r[1])
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	f.mu.Lock()
	f.spans = append(f.spans, spans...)
	sort.Slice(f.spans, func(i, j int) bool { return f.spans[i].off < f.spans[j].off })
	f.mu.Unlock()
	return nil
}

func (f *sparseFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > f.size {
		return 0, fmt.Errorf("%s: read at %d outside the file of %d bytes", f.key, off, f.size)
	}
	want := int64(len(p))
	eof := false
	if off+want > f.size {
		want, eof = f.size-off, true
	}
	if s, ok := f.covering(off, want); ok {
		n := copy(p[:want], s.data[off-s.off:])
		if eof {
			return n, io.EOF
		}
		return n, nil
	}
	if err := f.fetch([][2]int64{{off, want}}); err != nil {
		return 0, err
	}
	return f.ReadAt(p, off)
}

// bytes returns the fetched bytes [off, off+n), not a copy.
func (f *sparseFile) bytes(off, n int64) ([]byte, bool) {
	s, ok := f.covering(off, n)
	if !ok {
		return nil, false
	}
	return s.data[off-s.off : off-s.off+n], true
}

func (f *sparseFile) covering(off, n int64) (span, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := sort.Search(len(f.spans), func(i int) bool { return f.spans[i].off > off }) - 1
	if i >= 0 && off+n <= f.spans[i].off+int64(len(f.spans[i].data)) {
		return f.spans[i], true
	}
	return span{}, false
}

// coalesce merges ranges closer than gap bytes, so that neighbouring column
// chunks cost one request.
func coalesce(ranges [][2]int64, gap int64) [][2]int64 {
	sort.Slice(ranges, func(i, j int) bool { return ranges[i][0] < ranges[j][0] })
	var out [][2]int64
	for _, r := range ranges {
		if n := len(out); n > 0 && r[0] <= out[n-1][0]+out[n-1][1]+gap {
			end := max(out[n-1][0]+out[n-1][1], r[0]+r[1])
			out[n-1][1] = end - out[n-1][0]
			continue
		}
		out = append(out, r)
	}
	return out
}
