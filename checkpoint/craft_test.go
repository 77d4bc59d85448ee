package checkpoint

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Crafting hostile checkpoints: a Parquet file split into its footer and
// pages, which tests change and join back into a file.

// craftPage is one page: its header and its stored body.
type craftPage struct {
	H    format.PageHeader
	Body []byte
}

// craftFile writes rows (row groups of one row each when flush is set)
// and splits the file into its footer and pages[rg][col].
func craftFile[T any](t testing.TB, rows []T, flush bool, opts ...parquet.WriterOption) (*format.FileMetaData, [][][]craftPage) {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	for _, r := range rows {
		if _, err := w.Write([]T{r}); err != nil {
			t.Fatal(err)
		}
		if flush {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	n := int(binary.LittleEndian.Uint32(file[len(file)-8:]))
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), file[len(file)-8-n:len(file)-8], &md); err != nil {
		t.Fatal(err)
	}
	pages := make([][][]craftPage, len(md.RowGroups))
	for i, rg := range md.RowGroups {
		pages[i] = make([][]craftPage, len(rg.Columns))
		for j, cc := range rg.Columns {
			m := cc.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			chunk := file[start : start+m.TotalCompressedSize]
			r := bytes.NewReader(chunk)
			dec := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r))
			for r.Len() > 0 {
				var h format.PageHeader
				if err := dec.Decode(&h); err != nil {
					t.Fatal(err)
				}
				off := len(chunk) - r.Len()
				body := bytes.Clone(chunk[off : off+int(h.CompressedPageSize)])
				r.Seek(int64(h.CompressedPageSize), 1)
				pages[i][j] = append(pages[i][j], craftPage{H: h, Body: body})
			}
		}
	}
	return &md, pages
}

// craftJoin lays pages out as a Parquet file with md's footer, its offsets
// and sizes set to where the pages lie, then fix applied to the footer
// (when not nil). Page headers are written as they are.
func craftJoin(md *format.FileMetaData, pages [][][]craftPage, fix func(*format.FileMetaData)) []byte {
	var buf bytes.Buffer
	buf.WriteString("PAR1")
	for i := range md.RowGroups {
		rg := &md.RowGroups[i]
		rg.FileOffset = int64(buf.Len())
		for j := range rg.Columns {
			m := &rg.Columns[j].MetaData
			start := int64(buf.Len())
			m.DictionaryPageOffset, m.DataPageOffset = 0, 0
			unc := int64(0)
			for _, p := range pages[i][j] {
				hb, err := thrift.Marshal(new(thrift.CompactProtocol), &p.H)
				if err != nil {
					panic(err)
				}
				switch {
				case p.H.Type == format.DictionaryPage && m.DictionaryPageOffset == 0:
					m.DictionaryPageOffset = int64(buf.Len())
				case p.H.Type != format.DictionaryPage && m.DataPageOffset == 0:
					m.DataPageOffset = int64(buf.Len())
				}
				buf.Write(hb)
				buf.Write(p.Body)
				unc += int64(len(hb)) + int64(p.H.UncompressedPageSize)
			}
			if m.DataPageOffset == 0 {
				m.DataPageOffset = start
			}
			m.TotalCompressedSize = int64(buf.Len()) - start
			m.TotalUncompressedSize = unc
			rg.Columns[j].FileOffset = start
			rg.Columns[j].ColumnIndexOffset, rg.Columns[j].ColumnIndexLength = 0, 0
			rg.Columns[j].OffsetIndexOffset, rg.Columns[j].OffsetIndexLength = 0, 0
		}
	}
	if fix != nil {
		fix(md)
	}
	fb, err := thrift.Marshal(new(thrift.CompactProtocol), md)
	if err != nil {
		panic(err)
	}
	buf.Write(fb)
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(fb))))
	buf.WriteString("PAR1")
	return buf.Bytes()
}

// craftV2 replaces the body of a v2 data page: definition levels, then
// values, numValues of them, none null.
func craftV2(p *craftPage, defs, vals []byte, enc format.Encoding, numValues int32) {
	p.Body = append(bytes.Clone(defs), vals...)
	p.H.CRC = 0
	p.H.CompressedPageSize = int32(len(p.Body))
	p.H.UncompressedPageSize = int32(len(p.Body))
	v := &p.H.DataPageHeaderV2.V
	v.DefinitionLevelsByteLength = int32(len(defs))
	v.Encoding = enc
	v.NumValues, v.NumRows, v.NumNulls = numValues, numValues, 0
	v.Statistics = format.Statistics{}
}

// craftRLE is an RLE run of count values v (bit width at most 8), as
// levels or dictionary indexes hold them.
func craftRLE(count uint64, v byte) []byte {
	return append(binary.AppendUvarint(nil, count<<1), v)
}
