package serve

import (
	"context"
	"errors"
	"sort"

	"github.com/deltafs/deltafs/dvfilter/parquetview"
)

// A Parquet reader reads a column of a row group as one run: from the
// start of its column chunk to its end, and elsewhere next (another
// column, another file). Read-ahead by the length of the run alone read
// past the chunk into columns nobody asked for: pyarrow reading one column
// of 28 MiB files fetched every byte of them (BENCHMARKS.md, "table read
// from S3"). So a run that starts inside a column chunk reads ahead to the
// chunk's end at once, and no further until the reader goes past it. The
// chunks come from the file's footer, which every Parquet reader reads
// first, through the mount: it is in the block cache by then, and costs
// no request.

// errNotCached ends a footer read that would need a request.
var errNotCached = errors.New("not in the block cache")

// chunkEnd returns the end of the column chunk of the data file at path
// (size bytes long) that off lies in; 0 when off lies in none, the file is
// not Parquet, or its footer is not in the block cache (yet).
func (r *Files) chunkEnd(path string, size, off int64) int64 {
	chunks, ok := r.chunks.Get(path)
	if !ok {
		var err error
		chunks, err = parquetview.ColumnChunks(context.Background(), r.cachedBytes(path, size), size)
		if errors.Is(err, errNotCached) {
			return 0 // the footer may come later
		}
		r.chunks.Set(path, chunks) // nil for a file that is not Parquet: asked once
	}
	i := sort.Search(len(chunks), func(i int) bool { return chunks[i].End > off })
	if i < len(chunks) && chunks[i].Start <= off {
		return chunks[i].End
	}
	return 0
}

// cachedBytes reads ranges of a data file from the block cache only.
func (r *Files) cachedBytes(path string, size int64) parquetview.RangeReader {
	return parquetview.RangeReaderFunc(func(_ context.Context, off, n int64) ([]byte, error) {
		end := min(off+n, size)
		bs := r.opts.BlockSize
		var out []byte
		for b := off / bs; b*bs < end; b++ {
			data, ok := r.blocks.Get(blockKey(path, b))
			if !ok {
				return nil, errNotCached
			}
			lo, hi := max(off, b*bs)-b*bs, min(end, b*bs+int64(len(data)))-b*bs
			if lo >= hi {
				break
			}
			out = append(out, data[lo:hi]...)
		}
		return out, nil
	})
}
