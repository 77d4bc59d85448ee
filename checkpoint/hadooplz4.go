package checkpoint

import (
	"bytes"
	"context"
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
)

// A checkpoint Spark writes with its "lz4" codec stores its pages in
// Hadoop's framing of LZ4 blocks (format.Lz4), which parquet-go cannot
// decode. Such a checkpoint is read from a copy in memory whose LZ4 column
// chunks are stored uncompressed: without it the table's versions from
// that checkpoint on could only be rebuilt from commits, and not at all
// where older commits are gone.

// usesHadoopLZ4 reports whether a column chunk of the file is stored with
// the LZ4 codec.
func usesHadoopLZ4(md *format.FileMetaData) bool {
	for _, rg := range md.RowGroups {
		for _, cc := range rg.Columns {
			if cc.MetaData.Codec == format.Lz4 {
				return true
			}
		}
	}
	return false
}

// fetchUncompressedLZ4 is fetchParquetFile of a file with LZ4 column
// chunks (f, opened from sf): it reads the file whole and reads a copy
// whose LZ4 chunks are stored uncompressed.
func fetchUncompressedLZ4(ctx context.Context, st Storage, sf *sparseFile, p Part, f *parquet.File, details Detail) (*parquetFile, error) {
	data, ok := sf.bytes(0, p.Size)
	if !ok {
		var err error
		if data, err = st.Read(ctx, p.Key); err != nil {
			return nil, err
		}
		if int64(len(data)) != p.Size {
			return nil, fmt.Errorf("%s: %d bytes read, %d listed", p.Key, len(data), p.Size)
		}
	}
	md := f.Metadata()
	all := make([]int, len(md.RowGroups))
	for i := range all {
		all[i] = i
	}
	var plain bytes.Buffer
	plain.Grow(len(data))
	err := pagecodec.Uncompressed(&plain, md, all, format.Lz4, func(i, j int, start, n int64) ([]byte, error) {
		if start < 4 || n < 0 || start > int64(len(data)) || n > int64(len(data))-start {
			return nil, fmt.Errorf("column chunk at [%d, +%d) lies outside the file", start, n)
		}
		return data[start : start+n], nil
	})
	if err != nil {
		return nil, fmt.Errorf("LZ4 (Hadoop's framing): %w", err)
	}
	return fetchParquetFile(ctx, bytesStorage(plain.Bytes()), Part{Key: p.Key, Size: int64(plain.Len())}, details)
}

// bytesStorage serves one file's bytes under any key.
type bytesStorage []byte

func (b bytesStorage) Read(context.Context, string) ([]byte, error) { return b, nil }

func (b bytesStorage) ReadRange(_ context.Context, _ string, off, n int64) ([]byte, error) {
	if off < 0 || off > int64(len(b)) {
		return nil, fmt.Errorf("read at %d past the end (%d)", off, len(b))
	}
	return b[off:min(off+n, int64(len(b)))], nil
}
