package checkpoint

import (
	"bytes"
	"context"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// memStorage serves one object from memory.
type memStorage []byte

func (m memStorage) Read(ctx context.Context, key string) ([]byte, error) { return m, nil }

func (m memStorage) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	end := min(off+n, int64(len(m)))
	if off > end {
		return nil, nil
	}
	return m[off:end], nil
}

// FuzzReadParquet feeds arbitrary bytes to the checkpoint reader as a
// Parquet checkpoint: it must return an error or a result, never panic.
func FuzzReadParquet(f *testing.F) {
	type add struct {
		Path string `parquet:"path"`
		Size int64  `parquet:"size"`
	}
	type row struct {
		Add *add `parquet:"add,optional"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	w.Write([]row{{Add: &add{Path: "a.parquet", Size: 1}}, {}, {Add: &add{Path: "b%20c.parquet", Size: 2}}})
	w.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("panic: %v", r)
			}
		}()
		Read(context.Background(), memStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t", Details: AllDetails})
	})
}

// A trailer claiming a footer longer than the file is refused before
// anything allocates the length it claims (parquet-go would: 771 MB for
// this 12-byte file, found by FuzzReadParquet).
func TestFooterLongerThanTheFileIsRefused(t *testing.T) {
	data := []byte("PAR1\x2c\x30\x30\x30PAR1") // magic, a footer of 0x3030302c bytes, magic
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(context.Background(), memStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t"})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "the footer claims") {
		t.Fatalf("err = %v, want the footer refused", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Fatalf("reading a %d-byte file allocated %d bytes", len(data), grew)
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
		_, err := Read(context.Background(), memStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t", Details: AllDetails})
		if err == nil || !strings.Contains(err.Error(), ", not ") {
			t.Errorf("got %v, want the column refused", err)
		}
	}
}

// corruptFirstPage overwrites the compressed bytes of the first page of
// the file's first column chunk with one byte repeated, and gives the page header
// the checksum of the new body (a checksum is optional: a hostile file
// has a right one or none).
func corruptFirstPage(t *testing.T, data []byte) []byte {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	md := f.Metadata().RowGroups[0].Columns[0].MetaData
	start := md.DataPageOffset
	if d := md.DictionaryPageOffset; d > 0 && d < start {
		start = d
	}
	r := bytes.NewReader(data[start:])
	var h format.PageHeader
	if err := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r)).Decode(&h); err != nil {
		t.Fatal(err)
	}
	hlen := len(data[start:]) - r.Len()
	for fill := 0xff; fill > 0; fill-- { // until the checksum encodes in as many bytes
		out := bytes.Clone(data)
		body := out[int(start)+hlen : int(start)+hlen+int(h.CompressedPageSize)]
		levels := 0 // a v2 page's levels are not compressed: left as they are
		if v2 := h.DataPageHeaderV2; v2.Valid {
			levels = int(v2.V.RepetitionLevelsByteLength + v2.V.DefinitionLevelsByteLength)
		}
		for i := levels; i < len(body); i++ {
			body[i] = byte(fill)
		}
		h.CRC = int32(crc32.ChecksumIEEE(body))
		header, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
		if err != nil {
			t.Fatal(err)
		}
		if len(header) == hlen {
			copy(out[start:], header)
			return out
		}
	}
	t.Fatal("no corruption keeps the page header's length")
	return nil
}

// A page whose compressed bytes do not decode is refused: parquet-go's
// LZ4 decoder retried such a block with ever larger buffers until memory
// ran out (found by FuzzBuildView), and its Snappy decoder allocates the
// length a block claims.
func TestCorruptCompressedPagesAreRefused(t *testing.T) {
	type add struct {
		Path string `parquet:"path"`
		Size int64  `parquet:"size"`
	}
	type row struct {
		Add *add `parquet:"add,optional"`
	}
	for _, codec := range []compress.Codec{&parquet.Lz4Raw, &parquet.Snappy} {
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[row](&buf, parquet.Compression(codec))
		for i := range 200 {
			w.Write([]row{{Add: &add{Path: strings.Repeat("p", i%40) + ".parquet", Size: int64(i)}}})
		}
		w.Close()
		data := corruptFirstPage(t, buf.Bytes())
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Read(context.Background(), memStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t"})
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "block") {
			t.Errorf("%s: %v, want the corrupt page refused", codec, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: reading a %d-byte file allocated %d bytes", codec, len(data), grew)
		}
	}
}
