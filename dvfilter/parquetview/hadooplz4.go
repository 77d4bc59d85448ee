package parquetview

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// A row group in LZ4 in Hadoop's framing (Spark's "lz4"), which
// parquet-go cannot decode, is rebuilt page by page where it can be. One
// only parquet-go can rebuild (a list or a map in it, a widened type) is
// read by parquet-go from a copy of that row group alone whose LZ4 column
// chunks are stored uncompressed (pagecodec.Uncompressed), and re-encoded
// in LZ4 again.

// hadoopLZ4 reports whether parquet-go would decode a column chunk of row
// group i with LZ4: one of its chunks is in LZ4, or one of the first row
// group's, whose codecs parquet-go decodes every row group with.
func hadoopLZ4(md *format.FileMetaData, i int) bool {
	isLZ4 := func(cc format.ColumnChunk) bool { return cc.MetaData.Codec == format.Lz4 }
	return slices.ContainsFunc(md.RowGroups[i].Columns, isLZ4) || slices.ContainsFunc(md.RowGroups[0].Columns, isLZ4)
}

// plainGroup returns row group i of the source from a copy of it whose
// LZ4 chunks are stored uncompressed, each page checked as it is decoded.
// The copy is held in memory up to the spill threshold, past it in an
// unlinked file in the spill folder, until the next copy or the end of
// the build.
func (re *reencoder) plainGroup(i int) (parquet.RowGroup, error) {
	if re.plain != nil && re.plain.group == i {
		return re.plain.rg, nil
	}
	re.close()
	opts := re.opts.withDefaults()
	buf := &spillBuffer{limit: opts.SpillThreshold, dir: opts.SpillDir}
	err := pagecodec.Uncompressed(buf, re.pf.Metadata(), []int{i}, format.Lz4, func(_, _ int, start, n int64) ([]byte, error) {
		if start < int64(len(magic)) || n < 0 || start > re.dataEnd || n > re.dataEnd-start {
			return nil, fmt.Errorf("column chunk at [%d, +%d) lies outside the column data [4, %d)", start, n, re.dataEnd)
		}
		return readFull(re.ctx, re.src, start, n)
	})
	if err == nil {
		err = buf.flush()
	}
	if err != nil {
		buf.close()
		if cerr := re.ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("LZ4 (Hadoop's framing) for parquet-go: %v: %w", err, ErrParquet)
	}
	ra, size := buf.readerAt()
	pf, err := parquet.OpenFile(ra, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true), parquet.ReadBufferSize(1<<20))
	if err != nil {
		buf.close()
		return nil, fmt.Errorf("LZ4 (Hadoop's framing) for parquet-go: open the copy: %v: %w", err, ErrParquet)
	}
	// The copy's pages, stored uncompressed now, are checked for what
	// their levels and values claim, as the source's would be.
	src := RangeReaderFunc(func(_ context.Context, off, n int64) ([]byte, error) {
		b := make([]byte, n)
		if _, err := ra.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return b, nil
	})
	footer, err := footerBytes(re.ctx, src, size)
	var lv []leafInfo
	if err == nil {
		lv, err = leaves(pf.Metadata().Schema)
	}
	values := make([]chunkValues, len(pf.Metadata().RowGroups[0].Columns))
	for j := range values {
		if err == nil {
			values[j], err = checkChunkPages(re.ctx, src, pf, lv, 0, j, footer.start)
		}
	}
	if err != nil {
		buf.close()
		return nil, err
	}
	re.plain = &plainCopy{group: i, rg: pf.RowGroups()[0], buf: buf, values: values}
	return re.plain.rg, nil
}

// plainCopy is a row group parquet-go reads from a copy (plainGroup).
type plainCopy struct {
	group  int
	rg     parquet.RowGroup
	buf    *spillBuffer
	values []chunkValues // by column
}

// spillBuffer holds what is written to it in memory up to limit bytes
// (none when negative), then in an unlinked file in dir.
type spillBuffer struct {
	limit int64
	dir   string
	mem   bytes.Buffer
	f     *os.File
	bw    *bufio.Writer
	n     int64
}

func (s *spillBuffer) Write(p []byte) (int, error) {
	if s.f == nil && s.n+int64(len(p)) > s.limit {
		f, err := os.CreateTemp(s.dir, "deltafs-lz4-*.plain")
		if err != nil {
			return 0, fmt.Errorf("spill: %w", err)
		}
		os.Remove(f.Name()) // the open file lives on until closed
		s.f, s.bw = f, bufio.NewWriterSize(f, 1<<20)
		if _, err := s.bw.Write(s.mem.Bytes()); err != nil {
			return 0, fmt.Errorf("spill: %w", err)
		}
		s.mem = bytes.Buffer{}
	}
	var k int
	var err error
	if s.bw != nil {
		k, err = s.bw.Write(p)
	} else {
		k, err = s.mem.Write(p)
	}
	s.n += int64(k)
	return k, err
}

// flush ends the writing.
func (s *spillBuffer) flush() error {
	if s.bw == nil {
		return nil
	}
	if err := s.bw.Flush(); err != nil {
		return fmt.Errorf("spill: %w", err)
	}
	return nil
}

// readerAt reads what was written, after flush.
func (s *spillBuffer) readerAt() (io.ReaderAt, int64) {
	if s.f != nil {
		return s.f, s.n
	}
	return bytes.NewReader(s.mem.Bytes()), s.n
}

func (s *spillBuffer) close() {
	if s.f != nil {
		s.f.Close()
	}
	*s = spillBuffer{}
}
