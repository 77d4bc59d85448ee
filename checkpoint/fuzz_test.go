package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/deltafs/deltafs/tests/deltagen"
)

// addRow is a checkpoint row holding only a small add action.
type addRow struct {
	Add *smallAdd `parquet:"add,optional"`
}

type smallAdd struct {
	Path string `parquet:"path"`
	Size int64  `parquet:"size"`
}

// FuzzReadParquet feeds arbitrary bytes to the checkpoint reader as a
// Parquet checkpoint: it must return an error or a result, never panic.
func FuzzReadParquet(f *testing.F) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[addRow](&buf)
	w.Write([]addRow{{Add: &smallAdd{Path: "a.parquet", Size: 1}}, {}, {Add: &smallAdd{Path: "b%20c.parquet", Size: 2}}})
	w.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("PAR1PAR1"))
	if spark, err := os.ReadFile("testdata/spark-lz4.checkpoint.parquet"); err == nil {
		f.Add(spark) // Hadoop's LZ4 framing: read from a copy stored uncompressed
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic: %v", r)
			}
		}()
		Read(context.Background(), bytesStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t", Details: AllDetails})
	})
}

// A trailer claiming a footer longer than the file is refused before
// anything allocates the length it claims (parquet-go would: 771 MB for
// this 12-byte file, found by FuzzReadParquet).
func TestFooterLongerThanTheFileIsRefused(t *testing.T) {
	data := []byte("PAR1\x2c\x30\x30\x30PAR1") // magic, a footer of 0x3030302c bytes, magic
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(context.Background(), bytesStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t"})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "the footer claims") {
		t.Fatalf("err = %v, want the footer refused", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("reading a %d-byte file allocated %d bytes", len(data), grew)
	}
}

// Footers parquet-go's thrift decoder would die of are refused before it
// decodes them: a list claiming 2^31 schema elements in 9 bytes (it
// allocated 206 GB: out of memory, the process ended) and structs nested
// 100,000 deep (a stack overflow at some millions, equally fatal).
func TestFooterParquetGoCannotDecodeIsRefused(t *testing.T) {
	for footer, want := range map[string]string{
		"\x15\x02\x19\xfc\xff\xff\xff\xff\x07":           "claims 2147483647 elements",
		"\x15\x02\xfc" + strings.Repeat("\x1c", 100_000): "nest more than 64 deep",
	} {
		data := "PAR1" + footer + string(binary.LittleEndian.AppendUint32(nil, uint32(len(footer)))) + "PAR1"
		_, err := Read(context.Background(), bytesStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}

// A column of another physical type than its values are read as, or
// repeating otherwise than they are walked, is refused: add.size as
// strings used to index integers that were not there, a panic that ended
// the process.
func TestColumnOfAnotherKindIsRefused(t *testing.T) {
	type add struct {
		Path             string `parquet:"path"`
		Size             string `parquet:"size"`
		ModificationTime int64  `parquet:"modificationTime"`
	}
	type domain struct {
		Domain        string `parquet:"domain"`
		Configuration string `parquet:"configuration"`
		Removed       int32  `parquet:"removed"`
	}
	type txn struct {
		AppID   []string `parquet:"appId"`
		Version int64    `parquet:"version"`
	}
	type row struct {
		Add            *add    `parquet:"add,optional"`
		DomainMetadata *domain `parquet:"domainMetadata,optional"`
		Txn            *txn    `parquet:"txn,optional"`
	}
	for _, rows := range [][]row{
		{{Add: &add{Path: "a.parquet", Size: "x"}}, {}, {Add: &add{Path: "b.parquet", Size: "y"}}},
		{{DomainMetadata: &domain{Domain: "d", Configuration: "{}", Removed: 1}}},
		{{Txn: &txn{AppID: []string{"a", "b"}, Version: 1}}},
	} {
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[row](&buf)
		w.Write(rows)
		w.Close()
		data := buf.Bytes()
		_, err := Read(context.Background(), bytesStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t", Details: AllDetails})
		if err == nil || !strings.Contains(err.Error(), ", not ") {
			t.Errorf("got %v, want the column refused", err)
		}
	}
}

// A page whose compressed bytes do not decode is refused: parquet-go's
// LZ4 decoder retried such a block with ever larger buffers until memory
// ran out (found by FuzzBuildView), and its Snappy and zstd decoders
// allocate the length a block or frame claims.
func TestCorruptCompressedPagesAreRefused(t *testing.T) {
	// A zstd frame claiming 32 GiB, which its decoder would allocate.
	zstdFrame := binary.LittleEndian.AppendUint64([]byte{0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x00}, 32<<30)
	for _, c := range []struct {
		codec  compress.Codec
		prefix []byte
	}{
		{&parquet.Lz4Raw, nil}, {&parquet.Snappy, nil}, {&parquet.Zstd, zstdFrame},
		{&parquet.Zstd, deltagen.ZstdBomb(2048)}, // 256 MiB in 8 KiB, in a frame that does not say
	} {
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[addRow](&buf, parquet.Compression(c.codec))
		for i := range 3000 { // paths that compress to more than the bomb
			w.Write([]addRow{{Add: &smallAdd{Path: fmt.Sprintf("%016x.parquet", rand.Uint64()), Size: int64(i)}}})
		}
		w.Close()
		data, err := deltagen.CorruptFirstPage(buf.Bytes(), c.prefix)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = Read(context.Background(), bytesStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t"})
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "claims") && !strings.Contains(err.Error(), "does not decode") {
			t.Errorf("%s: %v, want the corrupt page refused", c.codec, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: reading a %d-byte file allocated %d bytes", c.codec, len(data), grew)
		}
	}
}

// A page whose definition levels claim 2^27 values, in a page of 100, is
// refused before parquet-go decodes them (it allocated what such runs
// claim: 2^31 of them in 6 bytes was a fatal out of memory).
func TestLevelsClaimingTooMuchAreRefused(t *testing.T) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[addRow](&buf)
	var rows []addRow
	for i := range 100 {
		row := addRow{}
		if i%3 != 0 {
			row.Add = &smallAdd{Path: fmt.Sprint("f", i), Size: int64(i)}
		}
		rows = append(rows, row)
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := deltagen.OverclaimLevels(buf.Bytes(), 0) // add.path
	if err != nil {
		t.Fatal(err)
	}
	_, err = Read(context.Background(), bytesStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t"})
	if err == nil || !strings.Contains(err.Error(), "a run claims 134217728 values") {
		t.Fatalf("err = %v, want the run refused", err)
	}
}
