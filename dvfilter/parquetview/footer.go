package parquetview

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/thriftcheck"
)

// ErrParquet is wrapped by errors about a data file that is not Parquet this
// package can filter: bad magic, a footer that does not decode, column
// chunks outside the file, encryption, columns in other files.
var ErrParquet = errors.New("unusable Parquet data file")

// ErrRowOutOfRange is wrapped when a deletion vector deletes a row the data
// file does not have. PROTOCOL.md defines row indexes as positions in the
// file, so such a vector is corrupt (or belongs to another file); serving
// the file anyway could hide the mistake, so it is an error.
var ErrRowOutOfRange = errors.New("deletion vector deletes a row past the end of the data file")

// RangeReader reads bytes of one data file: n bytes at off, fewer (or an
// error) only past the end of the file.
type RangeReader interface {
	ReadRange(ctx context.Context, off, n int64) ([]byte, error)
}

// tailKept serves the reads inside a file's tail from memory once the
// tail is read (a footer's first read, FooterTail bytes): a build then
// reads what lies there (the last column chunks of a small file) once.
type tailKept struct {
	src  RangeReader
	size int64
	tail []byte // the file's last len(tail) bytes
}

func (t *tailKept) ReadRange(ctx context.Context, off, n int64) ([]byte, error) {
	if start := t.size - int64(len(t.tail)); t.tail != nil && off >= start && off+n <= t.size {
		return t.tail[off-start : off-start+n], nil
	}
	b, err := t.src.ReadRange(ctx, off, n)
	if err == nil && t.tail == nil && off+int64(len(b)) == t.size {
		t.tail = b
	}
	return b, err
}

// RangeReaderFunc adapts a function to RangeReader.
type RangeReaderFunc func(ctx context.Context, off, n int64) ([]byte, error)

// ReadRange calls f.
func (f RangeReaderFunc) ReadRange(ctx context.Context, off, n int64) ([]byte, error) {
	return f(ctx, off, n)
}

var (
	magic          = []byte("PAR1")
	magicEncrypted = []byte("PARE")
)

// FooterTail is how much of the end of a file Build reads first: most
// footers fit, so one ranged read usually gets them. A file no larger is
// read whole.
const FooterTail = 64 << 10

// readFull reads exactly n bytes at off.
func readFull(ctx context.Context, src RangeReader, off, n int64) ([]byte, error) {
	b, err := src.ReadRange(ctx, off, n)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) < n {
		return nil, fmt.Errorf("short read: %d of %d bytes at offset %d (file smaller than its add action says?)", len(b), n, off)
	}
	return b[:n], nil
}

// readFooter reads and decodes the footer of a Parquet file of size bytes.
// It returns the metadata and the offset where the footer starts (the end
// of the column data).
func readFooter(ctx context.Context, src RangeReader, size int64) (*format.FileMetaData, int64, error) {
	f, err := footerBytes(ctx, src, size)
	if err != nil {
		return nil, 0, err
	}
	md, err := decodeFooter(f.b)
	return md, f.start, err
}

func decodeFooter(footer []byte) (*format.FileMetaData, error) {
	md := new(format.FileMetaData)
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, md); err != nil {
		return nil, fmt.Errorf("decode footer: %v: %w", err, ErrParquet)
	}
	if md.EncryptionAlgorithm.Value != nil || len(md.FooterSigningKeyMetadata) > 0 {
		return nil, fmt.Errorf("encrypted columns: %w", ErrParquet)
	}
	if err := thriftcheck.Schema(md.Schema); err != nil {
		return nil, fmt.Errorf("%v: %w", err, ErrParquet)
	}
	return md, nil
}

// footerSchema is the part of a footer that tells whether a Rename changes
// the file: decoding it skips the row groups, most of a footer's bytes.
type footerSchema struct {
	Schema  thrift.Slice[format.SchemaElement] `thrift:"2,required"`
	NumRows int64                              `thrift:"3,required"`
}

func decodeFooterSchema(footer []byte) (*footerSchema, error) {
	fs := new(footerSchema)
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, fs); err != nil {
		return nil, fmt.Errorf("decode footer: %v: %w", err, ErrParquet)
	}
	return fs, nil
}

// footerAt is the thrift footer of a Parquet file, checked (thriftcheck).
type footerAt struct {
	b      []byte
	start  int64 // where it starts: the end of the column data
	decode int64 // a bound on the memory parquet-go takes decoding it
}

// footerBytes reads the thrift footer of a Parquet file of size bytes,
// once thriftcheck has found that parquet-go can decode it safely.
func footerBytes(ctx context.Context, src RangeReader, size int64) (footerAt, error) {
	if size < int64(2*len(magic)+4) {
		return footerAt{}, fmt.Errorf("file of %d bytes is too small for Parquet: %w", size, ErrParquet)
	}
	n := min(size, FooterTail)
	tail, err := readFull(ctx, src, size-n, n)
	if err != nil {
		return footerAt{}, err
	}
	end := tail[len(tail)-4:]
	if bytes.Equal(end, magicEncrypted) {
		return footerAt{}, fmt.Errorf("encrypted footer: %w", ErrParquet)
	}
	if !bytes.Equal(end, magic) {
		return footerAt{}, fmt.Errorf("no PAR1 magic at the end: %w", ErrParquet)
	}
	flen := int64(binary.LittleEndian.Uint32(tail[len(tail)-8:]))
	f := footerAt{start: size - 8 - flen}
	if f.start < int64(len(magic)) {
		return footerAt{}, fmt.Errorf("footer length %d exceeds the file size %d: %w", flen, size, ErrParquet)
	}
	if flen+8 <= n {
		f.b = tail[n-8-flen : n-8]
	} else if f.b, err = readFull(ctx, src, f.start, flen); err != nil {
		return footerAt{}, err
	}
	if f.decode, err = thriftcheck.Footer(f.b); err != nil {
		return footerAt{}, fmt.Errorf("%w: %w", err, ErrParquet)
	}
	return f, nil
}

// encodeFooter renders md as the tail of a Parquet file: the thrift footer,
// its 4-byte little-endian length and the magic.
func encodeFooter(md *format.FileMetaData) ([]byte, error) {
	b, err := thrift.Marshal(new(thrift.CompactProtocol), mirrorFooter(md))
	if err != nil {
		return nil, fmt.Errorf("encode footer: %w", err)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(b)))
	return append(b, magic...), nil
}

// disjointChunks refuses a footer whose column chunks share bytes: no
// writer lays them out so, and a file listing one 20,000-row group 2,000
// times (1 MB) had a view rebuild every copy, a gigabyte held in memory.
func disjointChunks(md *format.FileMetaData, dataEnd int64) error {
	var spans [][2]int64
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			start, end, err := chunkRange(&md.RowGroups[i].Columns[j], dataEnd)
			if err != nil {
				return err
			}
			spans = append(spans, [2]int64{start, end})
		}
	}
	slices.SortFunc(spans, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	for k := 1; k < len(spans); k++ {
		if spans[k][0] < spans[k-1][1] {
			return fmt.Errorf("column chunks at [%d, %d) and [%d, %d) share bytes: %w", spans[k-1][0], spans[k-1][1], spans[k][0], spans[k][1], ErrParquet)
		}
	}
	return nil
}

// chunkRange returns the byte range [start, end) of a column chunk's pages
// (dictionary page first when there is one), checked against the column
// data of the file, which lies in [4, dataEnd).
func chunkRange(cc *format.ColumnChunk, dataEnd int64) (start, end int64, err error) {
	if cc.FilePath != "" {
		return 0, 0, fmt.Errorf("column chunk stored in another file %q: %w", cc.FilePath, ErrParquet)
	}
	if len(cc.EncryptedColumnMetadata) > 0 || cc.CryptoMetadata.Value != nil {
		return 0, 0, fmt.Errorf("encrypted column chunk: %w", ErrParquet)
	}
	m := &cc.MetaData
	start = m.DataPageOffset
	if d := m.DictionaryPageOffset; d > 0 && d < start {
		start = d
	}
	end = start + m.TotalCompressedSize
	if start < int64(len(magic)) || m.TotalCompressedSize <= 0 || end > dataEnd || end < start {
		return 0, 0, fmt.Errorf("column chunk %v at [%d, %d) lies outside the column data [4, %d): %w",
			m.PathInSchema, start, end, dataEnd, ErrParquet)
	}
	return start, end, nil
}

// moveChunk rewrites the offsets of a column chunk whose pages moved from
// oldStart to newStart, and drops what points outside the pages: the page
// index and the bloom filter, which the filtered file does not carry.
func moveChunk(cc *format.ColumnChunk, oldStart, newStart int64) {
	m := &cc.MetaData
	shift := newStart - oldStart
	m.DataPageOffset += shift
	if m.DictionaryPageOffset > 0 {
		m.DictionaryPageOffset += shift
	}
	if m.IndexPageOffset > 0 {
		m.IndexPageOffset += shift
	}
	// file_offset is deprecated and writers disagree on it (start of the
	// chunk, or of a trailing copy of its metadata); point it at the chunk.
	cc.FileOffset = newStart
	cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0
	cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0
	m.BloomFilterOffset, m.BloomFilterLength = 0, 0
}
