package pagecodec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter/parquetview/thriftcheck"
)

func v1Page(n int32, enc format.Encoding) *format.PageHeader {
	return &format.PageHeader{Type: format.DataPage, DataPageHeader: thrift.New(format.DataPageHeader{
		NumValues: n, Encoding: enc, DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE})}
}

// lengthed is b after its 4-byte little-endian length.
func lengthed(b []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// run is an RLE run of n values of one byte.
func run(n uint64, v byte) []byte { return append(binary.AppendUvarint(nil, n<<1), v) }

// TestCheckValuesRefusesClaims: counts that parquet-go's decoders would
// allocate for (gigabytes from a few bytes, each of these a fatal out of
// memory before) are held to the page's value count, and that count to
// the page's size.
func TestCheckValuesRefusesClaims(t *testing.T) {
	optional := Column{MaxDef: 1, Type: format.ByteArray}
	var bomb []byte // each value the one before and one byte more
	var values []byte
	var offsets []uint32
	for i := range 20_000 {
		offsets = append(offsets, uint32(len(values)))
		values = append(values, strings.Repeat("x", i+1)...)
	}
	offsets = append(offsets, uint32(len(values)))
	bomb, err := new(delta.ByteArrayEncoding).EncodeByteArray(nil, values, offsets)
	if err != nil {
		t.Fatal(err)
	}
	compressed := snappy.Encode(nil, append(lengthed(run(1<<31-1, 1)), "values"...))
	for _, c := range []struct {
		name   string
		h      *format.PageHeader
		levels []byte
		body   *Body
		col    Column
		want   string
	}{
		{"definition levels claiming 2^31-1", v1Page(3, format.Plain), nil, Decoded(lengthed(run(1<<31-1, 1))), optional, "a run claims 2147483647 values"},
		{"the same, Snappy-compressed", v1Page(3, format.Plain), nil, NewBody(format.Snappy, compressed, 16, nil), optional, "a run claims 2147483647 values"},
		{"runs past twice the page", v1Page(3, format.Plain), nil, Decoded(lengthed(append(run(1000, 1), run(40, 0)...))), optional, "runs claim 1040 values, the page 3"},
		{"levels in bit-packed groups", v1Page(3, format.Plain), nil, Decoded(lengthed(binary.AppendUvarint(nil, 1<<20|1))), optional, "a run claims 4194304 values"},
		{"dictionary indexes claiming 2^31-1", v1Page(3, format.RLEDictionary), nil, Decoded(append([]byte{4}, run(1<<31-1, 0)...)), Column{Type: format.Int64}, "a run claims 2147483647 values"},
		{"dictionary indexes of 40 bits", v1Page(3, format.RLEDictionary), nil, Decoded([]byte{40, 2, 0}), Column{Type: format.Int64}, "indexes of 40 bits"},
		{"a delta header claiming 2^31-1", v1Page(3, format.DeltaBinaryPacked), nil, Decoded(binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint(nil, 128), 4), 1<<31-1), 0)), Column{Type: format.Int64}, "delta header claims 2147483647 values"},
		{"prefixes adding up to 200 MB", v1Page(20_000, format.DeltaByteArray), nil, Decoded(bomb), Column{Type: format.ByteArray}, "decode past"},
		{"a page of 10 bytes claiming 2^26 values", v1Page(1<<26, format.Plain), nil, Decoded(make([]byte, 10)), Column{Type: format.Int64}, "claims 67108864 values"},
		{"v2 definition levels claiming 2^31-1", &format.PageHeader{Type: format.DataPageV2, DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{
			NumValues: 3, NumRows: 3, Encoding: format.Plain, DefinitionLevelsByteLength: 6})}, run(1<<31-1, 1)[:6], Decoded(nil), optional, "a run claims 2147483647 values"},
		{"a dictionary of 2^31-1 values in 16 bytes", &format.PageHeader{Type: format.DictionaryPage, DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{
			NumValues: 1<<31 - 1, Encoding: format.Plain})}, nil, Decoded(make([]byte, 16)), Column{Type: format.ByteArray}, "claims 2147483647 values"},
		{"a dictionary in DELTA", &format.PageHeader{Type: format.DictionaryPage, DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{
			NumValues: 1, Encoding: format.DeltaBinaryPacked})}, nil, Decoded(make([]byte, 16)), Column{Type: format.Int64}, "dictionary page encoded"},
	} {
		err := CheckValues(c.h, c.levels, c.body, c.col)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestRunsPaddedPastThePage: levels that go on past the page's count, as
// DuckDB writes them (2,080 for a page of 2,048), pass.
func TestRunsPaddedPastThePage(t *testing.T) {
	if err := CheckValues(v1Page(2048, format.Plain), nil, Decoded(lengthed(run(2080, 1))), Column{MaxDef: 1, Type: format.Int64}); err != nil {
		t.Error(err)
	}
}

// TestCheckValuesPassesWhatParquetGoWrites: every page of files parquet-go
// writes, in v1 and v2 pages, Snappy and uncompressed, PLAIN, dictionary
// and DELTA encodings, optional and repeated columns, passes.
func TestCheckValuesPassesWhatParquetGoWrites(t *testing.T) {
	type row struct {
		ID    int64    `parquet:"id,delta"`
		Name  *string  `parquet:"name,optional,dict"`
		Path  string   `parquet:"path,delta"`
		Ratio float64  `parquet:"ratio,split"`
		Tags  []string `parquet:"tags,list"`
		Valid *bool    `parquet:"valid,optional"`
		Score *float64 `parquet:"score,optional"`
	}
	r := rand.New(rand.NewPCG(1, 2))
	var rows []row
	for i := range 5_000 {
		rw := row{ID: int64(i) * 3, Path: fmt.Sprintf("part-%05d/file-%d.parquet", i/100, i), Ratio: float64(i) / 3}
		if i%3 != 0 {
			rw.Name = new(fmt.Sprint("name-", r.IntN(20)))
			rw.Valid = new(i%2 == 0)
		}
		if i%5 == 0 {
			rw.Score = new(float64(i) / 7)
		}
		rw.Tags = []string{"a", fmt.Sprint(i)}[:i%3%2+1]
		rows = append(rows, rw)
	}
	for _, version := range []int{1, 2} {
		for _, codec := range []compress.Codec{&parquet.Snappy, &parquet.Uncompressed} {
			var buf bytes.Buffer
			w := parquet.NewGenericWriter[row](&buf, parquet.DataPageVersion(version), parquet.Compression(codec), parquet.PageBufferSize(4096), parquet.MaxRowsPerRowGroup(2_000))
			if _, err := w.Write(rows); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			n := checkFilePages(t, buf.Bytes())
			if n < 30 {
				t.Errorf("v%d %s: only %d pages checked", version, codec, n)
			}
		}
	}
}

// checkFilePages runs CheckValues on every page of a Parquet file and
// returns how many it checked.
func checkFilePages(t *testing.T, data []byte) int {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	leaves := f.Schema().Columns()
	pages := 0
	for _, rg := range f.Metadata().RowGroups {
		for j, cc := range rg.Columns {
			leaf, _ := f.Schema().Lookup(leaves[j]...)
			col := Column{MaxDef: leaf.MaxDefinitionLevel, MaxRep: leaf.MaxRepetitionLevel, Type: format.Type(leaf.Node.Type().Kind())}
			start := cc.MetaData.DataPageOffset
			if d := cc.MetaData.DictionaryPageOffset; d != 0 {
				start = d
			}
			chunk := data[start : start+cc.MetaData.TotalCompressedSize]
			for len(chunk) > 0 {
				hn, _, err := thriftcheck.Struct(chunk)
				if err != nil {
					t.Fatal(err)
				}
				var h format.PageHeader
				if err := thrift.Unmarshal(new(thrift.CompactProtocol), chunk[:hn], &h); err != nil {
					t.Fatal(err)
				}
				body := chunk[hn : hn+int(h.CompressedPageSize)]
				chunk = chunk[hn+int(h.CompressedPageSize):]
				levels, compressed, err := SplitLevels(&h, body)
				if err != nil {
					t.Fatal(err)
				}
				codec, full := cc.MetaData.Codec, int64(h.UncompressedPageSize)-int64(levels)
				if !compressed {
					codec = format.Uncompressed
				}
				if err := CheckValues(&h, body[:levels], NewBody(codec, body[levels:], full, nil), col); err != nil {
					t.Errorf("column %v, page %d (%v): %v", leaves[j], pages, h.Type, err)
				}
				pages++
			}
		}
	}
	return pages
}

// TestSnappyPrefix: a prefix decoded alone is the start of the block
// decoded whole; a block cut short is refused.
func TestSnappyPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var src []byte
	for len(src) < 100_000 {
		if r.IntN(2) == 0 {
			src = append(src, byte(r.IntN(256)))
		} else {
			src = append(src, strings.Repeat("abcdefgh"[:r.IntN(8)+1], r.IntN(30))...)
		}
	}
	block := snappy.Encode(nil, src)
	for _, n := range []int{0, 1, 7, 64, 1000, 65_537, len(src)} {
		got, err := snappyPrefix(block, n)
		if err != nil || !bytes.Equal(got, src[:n]) {
			t.Errorf("prefix of %d: %d bytes, %v", n, len(got), err)
		}
	}
	if _, err := snappyPrefix(block[:len(block)/2], len(src)); err == nil {
		t.Error("a block cut in half gave its whole length")
	}
}

// FuzzCheckValues: any page body, header and column give an error or
// nil, never a panic.
func FuzzCheckValues(f *testing.F) {
	f.Add(lengthed(run(5, 1)), int32(5), uint8(format.RLEDictionary), uint8(1), false, true)
	f.Add(append([]byte{2}, run(3, 1)...), int32(3), uint8(format.RLEDictionary), uint8(0), true, false)
	f.Add(snappy.Encode(nil, lengthed(run(3, 1))), int32(3), uint8(format.DeltaByteArray), uint8(1), false, true)
	f.Fuzz(func(t *testing.T, body []byte, n int32, enc, maxDef uint8, v2, compressed bool) {
		h := v1Page(n, format.Encoding(enc%10))
		var levels []byte
		if v2 {
			cut := min(len(body), int(maxDef)%8)
			h = &format.PageHeader{Type: format.DataPageV2, DataPageHeaderV2: thrift.New(format.DataPageHeaderV2{
				NumValues: n, NumRows: n, Encoding: format.Encoding(enc % 10), DefinitionLevelsByteLength: int32(cut)})}
			levels, body = body[:cut], body[cut:]
		}
		b := Decoded(body)
		if compressed {
			full, err := snappy.DecodedLen(body)
			if err != nil || full > 1<<20 {
				return
			}
			b = NewBody(format.Snappy, body, int64(full), nil)
		}
		_ = CheckValues(h, levels, b, Column{MaxDef: int(maxDef % 3), MaxRep: int(maxDef % 2), Type: format.ByteArray})
	})
}
