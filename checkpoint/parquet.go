package checkpoint

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/dvfilter/parquetview/thriftcheck"
	"github.com/deltafs/deltafs/replay/action"
)

// parquetFile is a Parquet checkpoint file (classic, a part of a multi-part
// checkpoint, a v2 checkpoint or a sidecar) whose needed column chunks are
// in memory.
type parquetFile struct {
	key   string
	file  *parquet.File
	cols  *columns
	sf    *sparseFile
	pages map[chunkID][]pageAt // of the needed column chunks
}

// fetchParquet reads the footer of a Parquet checkpoint file, then the
// column chunks that replay needs (with details: partition values, and
// stats).
func fetchParquet(ctx context.Context, st Storage, p Part, details Detail) (*parquetFile, error) {
	var pf *parquetFile
	err := recovered(func() (err error) {
		pf, err = fetchParquetFile(ctx, st, p, details)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", p.Key, err)
	}
	return pf, nil
}

// checkFooter refuses a file whose trailer claims a footer longer than
// the file (parquet-go allocates the length it reads before reading, so a
// 12-byte file could make it allocate 4 GiB), or whose footer parquet-go
// could not decode safely (thriftcheck: a list of 2^31 structs claimed in
// 9 bytes, structs nested without end) or whose schema parquet-go could
// not build safely (checkSchema).
func checkFooter(f io.ReaderAt, size int64) error {
	var trailer [8]byte // footer length, little-endian, then the magic
	if _, err := f.ReadAt(trailer[:], size-8); err != nil {
		return err
	}
	n := int64(binary.LittleEndian.Uint32(trailer[:4]))
	if n > size-12 {
		return fmt.Errorf("the footer claims %d bytes in a file of %d", n, size)
	}
	footer := make([]byte, n)
	if _, err := f.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	if _, err := thriftcheck.Footer(footer); err != nil {
		return err
	}
	return checkSchema(footer)
}

func fetchParquetFile(ctx context.Context, st Storage, p Part, details Detail) (*parquetFile, error) {
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
	if err := checkFooter(sf, p.Size); err != nil {
		return nil, err
	}
	f, err := parquet.OpenFile(sf, p.Size,
		parquet.SkipMagicBytes(!whole), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true),
		parquet.ReadBufferSize(footerGuess))
	if err != nil {
		return nil, err
	}
	if err := checkRows(f.Metadata(), p.Size); err != nil {
		return nil, err
	}
	if usesHadoopLZ4(f.Metadata()) {
		return fetchUncompressedLZ4(ctx, st, sf, p, f, details)
	}
	cols := resolve(f.Root(), details)
	if err := cols.checkKinds(); err != nil {
		return nil, err
	}
	chunks, err := chunkRanges(f, cols, p.Size)
	if err != nil {
		return nil, err
	}
	if !whole {
		ranges := make([][2]int64, len(chunks))
		for i, c := range chunks {
			ranges[i] = [2]int64{c.off, c.n}
		}
		if err := sf.fetch(coalesce(ranges, 1<<20)); err != nil {
			return nil, err
		}
	}
	pages, err := checkChunks(sf, chunks)
	if err != nil {
		return nil, err
	}
	return &parquetFile{key: p.Key, file: f, cols: cols, sf: sf, pages: pages}, nil
}

// sidecars decodes only the sidecar actions of the file (a v2 checkpoint,
// possibly under a classic name): the other columns are left for decode.
func (pf *parquetFile) sidecars() ([]action.Sidecar, error) {
	c := pf.cols
	if c.scPath == nil {
		return nil, nil
	}
	var out []action.Sidecar
	for _, rg := range pf.file.RowGroups() {
		g := &rowGroup{c: c, leaves: map[*parquet.Column]*leaf{}}
		for _, col := range []*parquet.Column{c.scPath, c.scSize, c.scModTime} {
			if col == nil {
				continue
			}
			l, err := readLeaf(rg, col, false, nil, nil)
			if err != nil {
				return nil, fmt.Errorf("checkpoint %s: %w", pf.key, err)
			}
			g.leaves[col] = l
		}
		res := &Result{}
		g.sidecars(int(rg.NumRows()), res)
		for _, a := range res.Actions {
			out = append(out, *a.Sidecar)
		}
	}
	return out, nil
}

// recovered runs fn and turns a panic in it into an error. parquet-go
// panics on some malformed files (FuzzReadParquet found a footer that
// slices out of range), and a panic in one of the reader's goroutines
// would end the process: a broken checkpoint would take a mount down.
func recovered(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed Parquet: the reader failed (%v)", p)
		}
	}()
	return fn()
}
