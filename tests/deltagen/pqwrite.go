package deltagen

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

// DefaultRowGroupRows is the row-group size of checkpoint files unless
// WithRowGroupRows says otherwise.
const DefaultRowGroupRows = 128 * 1024

// CheckpointOption tunes how checkpoint Parquet files are written.
type CheckpointOption func(*pqConfig)

type pqConfig struct {
	rowGroupRows int
	codec        compress.Codec
	pageBytes    int // 0: parquet-go's default
	pageVersion  int // 0: parquet-go's default (2)
}

// WithRowGroupRows sets the number of rows per row group.
func WithRowGroupRows(n int) CheckpointOption {
	return func(c *pqConfig) {
		if n > 0 {
			c.rowGroupRows = n
		}
	}
}

// WithCompression sets the compression codec (default Snappy), e.g.
// &parquet.Zstd or &parquet.Uncompressed.
func WithCompression(codec compress.Codec) CheckpointOption {
	return func(c *pqConfig) { c.codec = codec }
}

// WithPageBytes sets the size of a page's buffer: small pages make many
// pages per column chunk.
func WithPageBytes(n int) CheckpointOption {
	return func(c *pqConfig) { c.pageBytes = n }
}

// WithDataPageVersion writes data pages of version 1 (as parquet-mr and
// arrow-rs do by default) or 2.
func WithDataPageVersion(v int) CheckpointOption {
	return func(c *pqConfig) { c.pageVersion = v }
}

func newPQConfig(opts []CheckpointOption) pqConfig {
	c := pqConfig{rowGroupRows: DefaultRowGroupRows, codec: &parquet.Snappy}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// writeParquet writes a Parquet file of rows T at name, through a temporary
// file renamed into place. next fills buf with up to len(buf) rows and
// returns how many it wrote; 0 ends the file. Row groups hold
// cfg.rowGroupRows rows. It returns the file size.
func writeParquet[T any](name string, cfg pqConfig, next func(buf []T) int) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return 0, err
	}
	tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp) // no-op after the rename
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	wopts := []parquet.WriterOption{parquet.Compression(cfg.codec), parquet.CreatedBy("deltagen", "0", "test")}
	if cfg.pageBytes > 0 {
		wopts = append(wopts, parquet.PageBufferSize(cfg.pageBytes))
	}
	if cfg.pageVersion > 0 {
		wopts = append(wopts, parquet.DataPageVersion(cfg.pageVersion))
	}
	w := parquet.NewGenericWriter[T](bw, wopts...)
	buf := make([]T, min(cfg.rowGroupRows, 8192))
	inGroup := 0
	for {
		n := next(buf[:min(len(buf), cfg.rowGroupRows-inGroup)])
		if n == 0 {
			break
		}
		if _, err := w.Write(buf[:n]); err != nil {
			return 0, fmt.Errorf("write %s: %w", name, err)
		}
		clear(buf[:n])
		inGroup += n
		if inGroup >= cfg.rowGroupRows {
			if err := w.Flush(); err != nil {
				return 0, fmt.Errorf("write %s: %w", name, err)
			}
			inGroup = 0
		}
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("write %s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, name); err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// sliceSource feeds writeParquet from a slice.
func sliceSource[T any](rows []T) func([]T) int {
	return func(buf []T) int {
		n := copy(buf, rows)
		rows = rows[n:]
		return n
	}
}
