package checkpoint

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// smallAdds are the rows most crafted files start from.
var smallAdds = []addRow{{Add: &smallAdd{Path: "a.parquet", Size: 1}}, {}, {Add: &smallAdd{Path: "b%20c.parquet", Size: 2}}}

// readRefused reads data as a classic checkpoint and checks that it is
// refused with an error holding want, without allocating more than
// 64 MiB.
func readRefused(t *testing.T, data []byte, want string) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(context.Background(), bytesStorage(data), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(data))}}}, Options{Root: "file:///t", Details: AllDetails})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("reading a %d-byte file allocated %d MB", len(data), grew>>20)
	}
}

// A column chunk whose dictionary page offset lies after its data page
// offset is checked from where parquet-go reads it, the dictionary page
// offset. The pages were checked from the smaller offset, and parquet-go
// decoded a page nobody checked, claiming 2^31-1 values: out of memory,
// the process ended.
func TestChunkCheckedFromTheDictionaryOffset(t *testing.T) {
	md, pages := craftFile(t, smallAdds, false)
	p1 := pages[0][0][0] // valid
	p2 := p1
	craftV2(&p2, craftRLE(1<<31-1, 1), p1.Body[6:], p1.H.DataPageHeaderV2.V.Encoding, 1<<31-1)
	p1.H.CRC = 0
	p1.Body = append(p1.Body, make([]byte, 64)...) // longer than p2: the chunk holds p2 whole
	p1.H.CompressedPageSize = int32(len(p1.Body))
	p1.H.UncompressedPageSize = int32(len(p1.Body))
	p1len, p2len := craftLen(p1), craftLen(p2)
	// Then a page filling the chunk up to p1len bytes from p2: no
	// column chunk overlaps another.
	pad := p1
	for n := p1len - p2len; ; n-- {
		craftV2(&pad, nil, make([]byte, n), format.Plain, 0)
		if craftLen(pad)+p2len == p1len {
			break
		}
	}
	pages[0][0] = []craftPage{p1, p2, pad}
	readRefused(t, craftJoin(md, pages, func(md *format.FileMetaData) {
		m := &md.RowGroups[0].Columns[0].MetaData
		m.DictionaryPageOffset = m.DataPageOffset + p1len
		m.TotalCompressedSize = p1len
	}), "claims 2147483647 values")
}

// craftLen is the bytes a page takes in its chunk, header included.
func craftLen(p craftPage) int64 {
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &p.H)
	if err != nil {
		panic(err)
	}
	return int64(len(hb) + len(p.Body))
}

// A column whose row groups disagree on its codec is refused: parquet-go
// decodes every row group's pages of a column with the codec of the
// first row group's chunk. A second row group claiming UNCOMPRESSED,
// whose page is a Snappy block claiming 4 GiB, was checked as
// uncompressed and decoded as Snappy: 4 GiB allocated.
func TestCodecOfOtherRowGroupsIsRefused(t *testing.T) {
	rows := []addRow{{Add: &smallAdd{Path: "a.parquet", Size: 1}}, {Add: &smallAdd{Path: "b.parquet", Size: 2}}}
	md, pages := craftFile(t, rows, true, parquet.Compression(&parquet.Snappy))
	p := &pages[1][0][len(pages[1][0])-1]
	bomb := append(binary.AppendUvarint(nil, 0xfffffff0), 0, 0, 0, 0) // a Snappy block claiming 4 GiB
	craftV2(p, craftRLE(1, 1), bomb, p.H.DataPageHeaderV2.V.Encoding, 1)
	p.H.DataPageHeaderV2.V.IsCompressed.Set(true)
	readRefused(t, craftJoin(md, pages, func(md *format.FileMetaData) {
		md.RowGroups[1].Columns[0].MetaData.Codec = format.Uncompressed
	}), "row group 0 with SNAPPY")
}

// Column chunks sharing bytes are refused: one honest row group of 2,000
// adds listed 200 times in the footer read as 400,000 files (the hunt's
// 2,000 times a 20,000-row group: 40 million files, 3.8 GB, from 0.9 MB).
func TestSharedColumnChunksAreRefused(t *testing.T) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[addRow](&buf)
	for i := range 2000 {
		w.Write([]addRow{{Add: &smallAdd{Path: fmt.Sprintf("part-%05d.parquet", i), Size: int64(i)}}})
	}
	w.Close()
	data := buf.Bytes()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	md := new(format.FileMetaData)
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[len(data)-8-n:len(data)-8], md); err != nil {
		t.Fatal(err)
	}
	rg := md.RowGroups[0]
	for range 199 {
		md.RowGroups = append(md.RowGroups, rg)
	}
	md.NumRows = int64(len(md.RowGroups)) * rg.NumRows
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), md)
	if err != nil {
		t.Fatal(err)
	}
	crafted := append(data[:len(data)-8-n:len(data)-8-n], footer...)
	crafted = binary.LittleEndian.AppendUint32(crafted, uint32(len(footer)))
	readRefused(t, append(crafted, "PAR1"...), "overlaps row group 0")
}
