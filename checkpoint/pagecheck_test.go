package checkpoint

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// TestManyEmptyPagesCostTheirBytes: a column chunk of 300,000 empty data
// pages (7.8 MB) is refused (parquet-go fails on it, recovered), having
// allocated what its page list takes, not a page header a page (150 MB).
func TestManyEmptyPagesCostTheirBytes(t *testing.T) {
	md, pages := craftFile(t, smallAdds, false)
	e := pages[0][0][len(pages[0][0])-1] // add.path, a v2 data page
	e.Body, e.H.CRC = nil, 0
	e.H.CompressedPageSize, e.H.UncompressedPageSize = 0, 0
	v := &e.H.DataPageHeaderV2.V
	v.NumValues, v.NumRows, v.NumNulls = 0, 0, 0
	v.DefinitionLevelsByteLength, v.RepetitionLevelsByteLength = 0, 0
	v.Encoding, v.Statistics = format.Plain, format.Statistics{}
	hb, err := thrift.Marshal(new(thrift.CompactProtocol), &e.H)
	if err != nil {
		t.Fatal(err)
	}
	// One page whose body, as craftJoin lays it, is the headers of the
	// other empty pages: a body of size 0, then the next page.
	more := e
	more.Body = bytes.Repeat(hb, 300_000-1)
	pages[0][0] = append(pages[0][0], more)
	readRefused(t, craftJoin(md, pages, nil), "malformed Parquet")
}
