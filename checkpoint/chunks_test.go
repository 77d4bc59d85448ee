package checkpoint

import (
	"context"
	"runtime"
	"strings"
	"testing"

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
	pages[0][0] = []craftPage{p1, p2}
	hb, _ := thrift.Marshal(new(thrift.CompactProtocol), &p1.H)
	p1len := int64(len(hb) + len(p1.Body))
	readRefused(t, craftJoin(md, pages, func(md *format.FileMetaData) {
		m := &md.RowGroups[0].Columns[0].MetaData
		m.DictionaryPageOffset = m.DataPageOffset + p1len
		m.TotalCompressedSize = p1len
	}), "claims 2147483647 values")
}
