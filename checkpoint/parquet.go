package checkpoint

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// ReadParquet reads one Parquet checkpoint file (classic, a part of a
// multi-part checkpoint, a v2 checkpoint or a sidecar).
func ReadParquet(ctx context.Context, st Storage, p Part, opts Options) (*Result, error) {
	res, err := readParquet(ctx, st, p, opts)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", p.Key, err)
	}
	return res, nil
}

func readParquet(ctx context.Context, st Storage, p Part, opts Options) (*Result, error) {
	if p.Size < 12 {
		return nil, fmt.Errorf("%d bytes is too small for a Parquet file", p.Size)
	}
	sf := newSparseFile(ctx, st, p)
	whole := p.Size <= wholeFileLimit
	if whole {
		if err := sf.fetch([][2]int64{{0, p.Size}}); err != nil {
			return nil, err
		}
	} else if err := sf.fetch([][2]int64{{p.Size - min(footerGuess, p.Size), min(footerGuess, p.Size)}}); err != nil {
		return nil, err
	}
	f, err := parquet.OpenFile(sf, p.Size,
		parquet.SkipMagicBytes(!whole), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true),
		parquet.ReadBufferSize(footerGuess))
	if err != nil {
		return nil, err
	}
	cols := resolve(f.Root(), opts.Stats)
	if !whole {
		if err := sf.fetch(chunkRanges(f, cols)); err != nil {
			return nil, err
		}
	}
	return decodeRowGroups(ctx, f, cols, opts)
}

// chunkRanges lists the byte ranges of the needed column chunks, merged.
func chunkRanges(f *parquet.File, cols *columns) [][2]int64 {
	var ranges [][2]int64
	for _, rg := range f.Metadata().RowGroups {
		for _, col := range cols.all() {
			md := rg.Columns[col.Index()].MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
				start = md.DictionaryPageOffset
			}
			ranges = append(ranges, [2]int64{start, md.TotalCompressedSize})
		}
	}
	return coalesce(ranges, 1<<20)
}

// decodeRowGroups decodes the row groups in parallel and joins them in order.
func decodeRowGroups(ctx context.Context, f *parquet.File, cols *columns, opts Options) (*Result, error) {
	groups := f.RowGroups()
	results := make([]*Result, len(groups))
	errs := make([]error, len(groups))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(groups)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					errs[i] = ctx.Err()
					continue
				}
				results[i], errs[i] = decodeRowGroup(groups[i], cols, opts)
			}
		}()
	}
	for i := range groups {
		next <- i
	}
	close(next)
	wg.Wait()
	out := &Result{}
	for i, r := range results {
		if errs[i] != nil {
			return nil, fmt.Errorf("row group %d: %w", i, errs[i])
		}
		out.append(r)
	}
	return out, nil
}
