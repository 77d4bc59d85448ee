package parquetview

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/dvfilter/parquetview/pagecodec"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestCorruptCompressedPages: the view of a file whose first page does
// not decode, with a row deleted from it (its row group spliced, or
// re-encoded by parquet-go, or its levels read), fails with ErrParquet
// and bounded memory: parquet-go's LZ4 decoder retried such a block with
// ever larger buffers until memory ran out (FuzzBuildView found it), its
// Snappy and zstd decoders allocate what a block or frame claims.
func TestCorruptCompressedPages(t *testing.T) {
	zstdFrame := binary.LittleEndian.AppendUint64([]byte{0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x00}, 32<<30)
	for _, c := range []struct {
		codec  compress.Codec
		prefix []byte
	}{{&parquet.Lz4Raw, nil}, {&parquet.Snappy, nil}, {&parquet.Zstd, zstdFrame}} {
		for _, rn := range []*Rename{nil, wideRename()} { // widened: every row group re-encoded by parquet-go
			data, err := deltagen.CorruptFirstPage(writeRowGroups(t, mkNarrow, []int{300}, parquet.Compression(c.codec)), c.prefix)
			if err != nil {
				t.Fatal(err)
			}
			checkRefused(t, fmt.Sprintf("%s, widened %v", c.codec, rn != nil), data, rn)
		}
	}
}

// checkRefused builds the view of data with a row deleted: it must fail
// with ErrParquet, having allocated less than 64 MiB.
func checkRefused(t *testing.T, what string, data []byte, rn *Rename) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Build(context.Background(), &bytesSource{data: data}, int64(len(data)), dvfilter.NewVector(3), BuildOptions{Rename: rn, SpillDir: t.TempDir()})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrParquet) {
		t.Errorf("%s: %v, want ErrParquet", what, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("%s: the build allocated %d bytes", what, grew)
	}
}

// TestLargeRepetitivePages: a page of one value repeated, 16 MiB plain,
// which zstd stores in a few hundred bytes, is no corrupt page: the view
// of its file, with a row deleted, keeps the other rows.
func TestLargeRepetitivePages(t *testing.T) {
	type zeros struct {
		V int64 `parquet:"v"`
	}
	const rows = 2 << 20
	data := writeRowGroups(t, func(int64) zeros { return zeros{} }, []int{rows}, parquet.Compression(&parquet.Zstd), parquet.PageBufferSize(32<<20))
	v, err := Build(context.Background(), &bytesSource{data: data}, int64(len(data)), dvfilter.NewVector(5), BuildOptions{SpillDir: t.TempDir()})
	if err != nil {
		t.Fatalf("%d-byte file: %v", len(data), err)
	}
	if v.Rows != rows-1 {
		t.Errorf("view of %d rows, want %d", v.Rows, rows-1)
	}
}

// TestZstdPageWithoutSize: a zstd frame that does not give its content
// size (streaming encoders write such frames) is decoded into no more
// than its page's size: one holding 128 MiB of zeros in a page that says
// less is refused, spliced or re-encoded by parquet-go (widened), without
// the 128 MiB (about 0.75 GB were allocated before), and so is one after
// a frame that gives its size.
func TestZstdPageWithoutSize(t *testing.T) {
	var bomb bytes.Buffer
	zw, err := zstd.NewWriter(&bomb)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(make([]byte, 128<<20))
	zw.Close()
	var h zstd.Header
	if err := h.Decode(bomb.Bytes()); err != nil || h.HasFCS {
		t.Fatalf("the frame says its size (%v): %v", h.HasFCS, err)
	}
	sized := zw.EncodeAll([]byte("a frame that gives its size"), nil)
	for name, body := range map[string][]byte{
		"one frame":         bomb.Bytes(),
		"after a sized one": append(sized, deltagen.ZstdBomb(2048)...),
	} {
		for _, rn := range []*Rename{nil, wideRename()} { // widened: every row group re-encoded by parquet-go
			plain := writeRowGroups(t, mkNarrow, []int{30000}, parquet.Compression(&parquet.Zstd))
			data, err := deltagen.CorruptFirstPage(plain, body)
			if err != nil {
				t.Fatal(err)
			}
			checkRefused(t, fmt.Sprintf("%s, widened %v", name, rn != nil), data, rn)
		}
	}
}

// TestEmptyZstdPage: a page of no bytes (a v2 page's values when every
// value is null, as some writers store them) decodes to nothing, not an
// error: it has no frame header to read.
func TestEmptyZstdPage(t *testing.T) {
	out, err := decompress(&parquet.Zstd, nil, 0)
	if err != nil || len(out) != 0 {
		t.Errorf("%d bytes, %v; want none", len(out), err)
	}
	if _, err := decompress(&parquet.Zstd, nil, 10); !errors.Is(err, ErrParquet) {
		t.Errorf("no bytes for a page of 10: %v, want ErrParquet", err)
	}
}

// TestHadoopLZ4DataFile: data files Spark wrote with its "lz4" codec
// (Hadoop's framing, which parquet-go cannot decode), with a row deleted:
// one of plain columns is rebuilt page by page; one with a list, which
// parquet-go re-encodes, is read by it from a copy stored uncompressed,
// and written in LZ4 again, by a copy in memory and by one spilled to a
// file. Each view holds the stored rows less the deleted one. (Such files
// are read by pyarrow in TestSparkFilesWithDeletionVectors.)
func TestHadoopLZ4DataFile(t *testing.T) {
	for _, c := range []struct {
		file    string
		spliced bool
		spill   int64
	}{{"spark-lz4.parquet", true, 0}, {"spark-lz4-list.parquet", false, 0}, {"spark-lz4-list.parquet", false, 100}} {
		data, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		src := &bytesSource{data: data}
		v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(3), BuildOptions{SpillDir: t.TempDir(), SpillThreshold: c.spill})
		if err != nil || v.Rows != 49 || (v.SplicedRowGroups == 1) != c.spliced {
			t.Fatalf("%s: %v; want 49 rows, spliced %v", c.file, err, c.spliced)
		}
		stored, served := plainRows(t, data), plainRows(t, materialize(t, v, src))
		want := append(slices.Clone(stored[:3]), stored[4:]...)
		if len(stored) != 50 || !slices.EqualFunc(served, want, parquet.Row.Equal) {
			t.Errorf("%s: served %d rows, not the %d stored less row 3:\n%v\n%v", c.file, len(served), len(stored), served[:4], stored[:5])
		}
		if err := CheckRebuild(context.Background(), src, int64(len(data))); err != nil {
			t.Errorf("%s: CheckRebuild: %v", c.file, err)
		}
	}
}

// plainRows reads the rows of a file with parquet-go, from a copy whose
// chunks in Hadoop's LZ4 are stored uncompressed.
func plainRows(t *testing.T, data []byte) []parquet.Row {
	t.Helper()
	md := footerOf(t, data)
	groups := make([]int, len(md.RowGroups))
	for i := range groups {
		groups[i] = i
	}
	var plain bytes.Buffer
	if err := pagecodec.Uncompressed(&plain, md, groups, format.Lz4, func(_, _ int, start, n int64) ([]byte, error) {
		return data[start : start+n], nil
	}); err != nil {
		t.Fatal(err)
	}
	r := parquet.NewReader(bytes.NewReader(plain.Bytes()))
	defer r.Close()
	var out []parquet.Row
	buf := make([]parquet.Row, 16)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			out = append(out, row.Clone())
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
