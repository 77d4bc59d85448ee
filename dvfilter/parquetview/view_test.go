package parquetview

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// viewRow has columns out of alphabetical order, an optional column and a
// repeated one, so re-encoding must keep the file's column order and levels.
type viewRow struct {
	Name  string   `parquet:"name"`
	ID    int64    `parquet:"id"`
	Score *float64 `parquet:"score,optional"`
	Tags  []string `parquet:"tags,list"`
}

func mkRow(i int64) viewRow {
	r := viewRow{Name: fmt.Sprintf("row-%06d", i), ID: i}
	if i%3 != 0 {
		s := float64(i) / 2
		r.Score = &s
	}
	for k := int64(0); k < i%4; k++ {
		r.Tags = append(r.Tags, fmt.Sprintf("t%d", k))
	}
	return r
}

// writeGroups writes a Parquet file with one row group per element of
// groups (its row count); row i holds mkRow(i).
func writeGroups(t testing.TB, codec compress.Codec, groups ...int) []byte {
	t.Helper()
	return writeRowGroups(t, mkRow, groups, parquet.Compression(codec))
}

// writeRowGroups writes a Parquet file with one row group per element of
// groups (its row count); row i holds mk(i).
func writeRowGroups[T any](t testing.TB, mk func(int64) T, groups []int, options ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, options...)
	var id int64
	for _, n := range groups {
		rows := make([]T, n)
		for i := range rows {
			rows[i] = mk(id)
			id++
		}
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bytesSource serves a byte slice, counting reads.
type bytesSource struct {
	data  []byte
	reads atomic.Int64
}

func (s *bytesSource) ReadRange(_ context.Context, off, n int64) ([]byte, error) {
	s.reads.Add(1)
	if off < 0 || off > int64(len(s.data)) {
		return nil, fmt.Errorf("offset %d out of range", off)
	}
	return s.data[off:min(off+n, int64(len(s.data)))], nil
}

// materialize reads a whole view.
func materialize(t testing.TB, v *View, src RangeReader) []byte {
	t.Helper()
	out := make([]byte, v.Size())
	if n, err := v.ReadAt(context.Background(), src, out, 0); err != nil || int64(n) != v.Size() {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	// Reads at odd offsets and lengths agree with the whole.
	for _, off := range []int64{0, 1, 3, v.Size() / 3, v.Size() - 9} {
		p := make([]byte, min(777, v.Size()-off))
		if _, err := v.ReadAt(context.Background(), src, p, off); err != nil {
			t.Fatalf("ReadAt(%d): %v", off, err)
		}
		if !bytes.Equal(p, out[off:off+int64(len(p))]) {
			t.Fatalf("ReadAt(%d) differs from the whole", off)
		}
	}
	if n, err := v.ReadAt(context.Background(), src, make([]byte, 10), v.Size()-4); n != 4 || err != io.EOF {
		t.Fatalf("ReadAt past the end = %d, %v; want 4, EOF", n, err)
	}
	return out
}

// readRows decodes every row of a Parquet file.
func readRows(t testing.TB, data []byte) ([]viewRow, *parquet.File) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("filtered file does not open: %v", err)
	}
	rows, err := parquet.Read[viewRow](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("filtered file does not read: %v", err)
	}
	return rows, f
}

func expectRows(total int, deleted ...uint64) []viewRow {
	var out []viewRow
	for i := 0; i < total; i++ {
		if !slices.Contains(deleted, uint64(i)) {
			out = append(out, mkRow(int64(i)))
		}
	}
	return out
}

func TestBuildView(t *testing.T) {
	groups := []int{1000, 1000, 1000, 1000}
	cases := []struct {
		name                       string
		deleted                    []uint64
		copied, rewritten, dropped int
	}{
		{"none", nil, 4, 0, 0},
		{"first row", []uint64{0}, 3, 1, 0},
		{"some groups", []uint64{5, 1500, 1501, 3999}, 1, 3, 0},
		{"one group only", []uint64{2000, 2500, 2999}, 3, 1, 0},
		{"whole group", rangeRows(1000, 2000), 3, 0, 1},
		{"whole group and more", append(rangeRows(0, 1000), 3001), 2, 1, 1},
		{"everything", rangeRows(0, 4000), 0, 0, 4},
	}
	codecs := []compress.Codec{&parquet.Snappy, &parquet.Zstd, &parquet.Gzip, &parquet.Uncompressed, &parquet.Lz4Raw, &parquet.Brotli}
	for ci, c := range cases {
		for si, spill := range []int64{0, -1} {
			codec := codecs[(2*ci+si)%len(codecs)]
			t.Run(fmt.Sprintf("%s/%s/spill=%v", c.name, codec, spill < 0), func(t *testing.T) {
				src := &bytesSource{data: writeGroups(t, codec, groups...)}
				v, err := Build(context.Background(), src, int64(len(src.data)), dvfilter.NewVector(c.deleted...),
					BuildOptions{SpillDir: t.TempDir(), SpillThreshold: spill})
				if err != nil {
					t.Fatal(err)
				}
				if v.CopiedRowGroups != c.copied || v.RewrittenRowGroups != c.rewritten || v.DroppedRowGroups != c.dropped {
					t.Errorf("copied/rewritten/dropped = %d/%d/%d, want %d/%d/%d", v.CopiedRowGroups,
						v.RewrittenRowGroups, v.DroppedRowGroups, c.copied, c.rewritten, c.dropped)
				}
				want := expectRows(4000, c.deleted...)
				if v.Rows != int64(len(want)) || v.Deleted != int64(len(c.deleted)) {
					t.Errorf("Rows, Deleted = %d, %d; want %d, %d", v.Rows, v.Deleted, len(want), len(c.deleted))
				}
				data := materialize(t, v, src)
				got, f := readRows(t, data)
				if len(got) != len(want) {
					t.Fatalf("%d rows, want %d", len(got), len(want))
				}
				for i := range got {
					if !equalRow(got[i], want[i]) {
						t.Fatalf("row %d = %+v, want %+v", i, got[i], want[i])
					}
				}
				checkFooter(t, f, codec, c.deleted)
			})
		}
	}
}

func rangeRows(lo, hi uint64) []uint64 {
	var out []uint64
	for r := lo; r < hi; r++ {
		out = append(out, r)
	}
	return out
}

func equalRow(a, b viewRow) bool {
	return a.Name == b.Name && a.ID == b.ID && ((a.Score == nil) == (b.Score == nil)) &&
		(a.Score == nil || *a.Score == *b.Score) && slices.Equal(a.Tags, b.Tags)
}

// checkFooter checks what the filtered footer promises: row counts, the
// codec, statistics that hold for the rows present, no page index or bloom
// filter, and copied column chunks equal to the source's bytes.
func checkFooter(t *testing.T, f *parquet.File, codec compress.Codec, deleted []uint64) {
	t.Helper()
	md := f.Metadata()
	var rows int64
	for i, rg := range md.RowGroups {
		rows += rg.NumRows
		if int(rg.Ordinal) != i {
			t.Errorf("row group %d has ordinal %d", i, rg.Ordinal)
		}
		for _, cc := range rg.Columns {
			m := cc.MetaData
			if m.Codec != codec.CompressionCodec() {
				t.Errorf("row group %d column %v: codec %v, want %v", i, m.PathInSchema, m.Codec, codec.CompressionCodec())
			}
			if cc.OffsetIndexOffset != 0 || cc.ColumnIndexOffset != 0 || m.BloomFilterOffset != 0 {
				t.Errorf("row group %d column %v keeps a page index or bloom filter offset", i, m.PathInSchema)
			}
			if slices.Equal(m.PathInSchema, []string{"id"}) && rg.NumRows > 0 {
				checkIDStats(t, i, rg, m.Statistics, deleted)
			}
		}
	}
	if rows != md.NumRows || rows != f.NumRows() {
		t.Errorf("num_rows %d, row groups hold %d", md.NumRows, rows)
	}
}

// checkIDStats checks the id column's min and max of a row group against
// the ids it holds (ids are ascending).
func checkIDStats(t *testing.T, i int, rg format.RowGroup, st format.Statistics, deleted []uint64) {
	t.Helper()
	if len(st.MinValue) != 8 || len(st.MaxValue) != 8 {
		return // omitted: allowed
	}
	lo := int64(leUint64(st.MinValue))
	hi := int64(leUint64(st.MaxValue))
	kept := int64(0)
	for r := lo; r <= hi; r++ {
		if !slices.Contains(deleted, uint64(r)) {
			kept++
		}
	}
	if kept != rg.NumRows || slices.Contains(deleted, uint64(lo)) || slices.Contains(deleted, uint64(hi)) {
		t.Errorf("row group %d: id statistics [%d, %d] do not match its %d rows", i, lo, hi, rg.NumRows)
	}
}

func leUint64(b []byte) uint64 {
	var x uint64
	for i := 7; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x
}

// TestBuildCopiesUntouchedRowGroups checks that a row group without deleted
// rows appears byte for byte in the view and is read from the source, not
// held in memory.
func TestBuildCopiesUntouchedRowGroups(t *testing.T) {
	src := &bytesSource{data: writeGroups(t, &parquet.Snappy, 500, 500, 500)}
	smd, _, err := readFooter(context.Background(), src, int64(len(src.data)))
	if err != nil {
		t.Fatal(err)
	}
	v, err := Build(context.Background(), src, int64(len(src.data)), dvfilter.NewVector(10), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data := materialize(t, v, src)
	for g := 1; g < 3; g++ {
		for _, cc := range smd.RowGroups[g].Columns {
			s, e, _ := chunkRange(&cc, int64(len(src.data)))
			if !bytes.Contains(data, src.data[s:e]) {
				t.Errorf("row group %d column %v not copied byte for byte", g, cc.MetaData.PathInSchema)
			}
		}
	}
	var inMem int64
	for _, s := range v.segs {
		inMem += int64(len(s.data))
	}
	if copied := v.Size() - inMem; copied < int64(len(src.data))/2 {
		t.Errorf("only %d of %d bytes are source ranges", copied, v.Size())
	}
	// Building reads the footer and the one rewritten row group, a handful
	// of ranged reads, never the file byte by byte.
	if n := src.reads.Load(); n > 40 {
		t.Errorf("%d reads of the source", n)
	}
}

// TestBuildRowsPast32Bits lays a row group claiming 2^32 rows in front of
// a real one (the claim is only in the footer: copied row groups are never
// decoded), so the deleted rows of the second have indexes past 2^32.
func TestBuildRowsPast32Bits(t *testing.T) {
	orig := writeGroups(t, &parquet.Snappy, 100, 100)
	md, start, err := readFooter(context.Background(), &bytesSource{data: orig}, int64(len(orig)))
	if err != nil {
		t.Fatal(err)
	}
	const big = int64(1) << 32
	md.RowGroups[0].NumRows = big
	md.NumRows = big + 100
	tail, err := encodeFooter(md)
	if err != nil {
		t.Fatal(err)
	}
	src := &bytesSource{data: append(slices.Clone(orig[:start]), tail...)}
	v, err := Build(context.Background(), src, int64(len(src.data)),
		dvfilter.NewVector(uint64(big)+3, uint64(big)+99), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.CopiedRowGroups != 1 || v.RewrittenRowGroups != 1 || v.Rows != big+98 {
		t.Fatalf("copied %d, rewritten %d, rows %d", v.CopiedRowGroups, v.RewrittenRowGroups, v.Rows)
	}
	data := materialize(t, v, src)
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rg := f.RowGroups()[1]
	rows := make([]parquet.Row, 200)
	n, _ := rg.Rows().ReadRows(rows)
	if n != 98 {
		t.Fatalf("second row group has %d rows, want 98", n)
	}
	var ids []int64
	for _, r := range rows[:n] {
		for _, val := range r {
			if val.Column() == 1 {
				ids = append(ids, val.Int64())
			}
		}
	}
	if slices.Contains(ids, 103) || slices.Contains(ids, 199) || !slices.Contains(ids, 102) || ids[0] != 100 {
		t.Errorf("ids of the second row group: %v", ids)
	}
}

func TestBuildErrors(t *testing.T) {
	good := writeGroups(t, &parquet.Snappy, 10, 10)
	trunc := slices.Clone(good[:len(good)-20])
	hugeList := withFooter([]byte{0x15, 0x02, 0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07})
	deepFooter := withFooter(append([]byte{0x15, 0x02, 0xfc}, bytes.Repeat([]byte{0x1c}, 100_000)...))
	deepPage := slices.Clone(good)
	md, _, err := readFooter(context.Background(), &bytesSource{data: good}, int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	cm := md.RowGroups[0].Columns[0].MetaData
	if cm.TotalCompressedSize < 101 {
		t.Fatalf("a column chunk of %d bytes cannot hold the header", cm.TotalCompressedSize)
	}
	copy(deepPage[cm.DataPageOffset:], append([]byte{0xfc}, bytes.Repeat([]byte{0x1c}, 100)...))
	md.RowGroups = append(md.RowGroups, md.RowGroups[0]) // its column chunks listed twice
	md.NumRows += md.RowGroups[0].NumRows
	twice, err := thrift.Marshal(new(thrift.CompactProtocol), md)
	if err != nil {
		t.Fatal(err)
	}
	sharing := append(slices.Clone(good[:len(good)-8-int(binary.LittleEndian.Uint32(good[len(good)-8:]))]), twice...)
	sharing = append(binary.LittleEndian.AppendUint32(sharing, uint32(len(twice))), "PAR1"...)
	cases := []struct {
		name string
		data []byte
		size int64
		vec  *dvfilter.Vector
		want error
		says string // in the error, where set
	}{
		{"row past the end", good, int64(len(good)), dvfilter.NewVector(3, 20), ErrRowOutOfRange, ""},
		{"row past 2^32 on a small file", good, int64(len(good)), dvfilter.NewVector(1 << 32), ErrRowOutOfRange, ""},
		{"not parquet", bytes.Repeat([]byte("x"), 500), 500, dvfilter.NewVector(1), ErrParquet, ""},
		{"too small", []byte("PAR1PAR1"), 8, dvfilter.NewVector(1), ErrParquet, ""},
		{"truncated", trunc, int64(len(trunc)), dvfilter.NewVector(1), ErrParquet, ""},
		{"encrypted", append(slices.Clone(good[:len(good)-4]), "PARE"...), int64(len(good)), dvfilter.NewVector(1), ErrParquet, ""},
		// Footers parquet-go's decoder would die of (thriftcheck).
		{"a footer claiming 2^31 schema elements", hugeList, int64(len(hugeList)), dvfilter.NewVector(1), ErrParquet, "claims 2147483647 elements"},
		{"a footer nesting structs 100,000 deep", deepFooter, int64(len(deepFooter)), dvfilter.NewVector(1), ErrParquet, "nest more than 64 deep"},
		{"row groups sharing their column chunks", sharing, int64(len(sharing)), dvfilter.NewVector(1), ErrParquet, "share bytes"},
		{"a page header nesting structs 100 deep", deepPage, int64(len(deepPage)), dvfilter.NewVector(1), ErrParquet, "nest more than 64 deep"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Build(context.Background(), &bytesSource{data: c.data}, c.size, c.vec, BuildOptions{})
			if !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.says) {
				t.Fatalf("err = %v, want %v saying %q", err, c.want, c.says)
			}
		})
	}
	// A source shorter than its stated size is a read error, never a view.
	if _, err := Build(context.Background(), &bytesSource{data: good[:100]}, int64(len(good)), dvfilter.NewVector(1), BuildOptions{}); err == nil {
		t.Fatal("built a view of a short file")
	}
}

// TestBuildRefusesLevelsClaimingTooMuch: a page whose definition levels
// claim 2^27 values, for a page of 100, is refused before any decoder
// allocates them (parquet-go's did, 2^31 of them in 6 bytes: fatal).
func TestBuildRefusesLevelsClaimingTooMuch(t *testing.T) {
	data, err := deltagen.OverclaimLevels(writeGroups(t, &parquet.Uncompressed, 100), 2) // score, optional
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), &bytesSource{data: data}, int64(len(data)), dvfilter.NewVector(1), BuildOptions{})
	if !errors.Is(err, ErrParquet) || !strings.Contains(err.Error(), "a run claims 134217728 values") {
		t.Fatalf("err = %v, want the run refused", err)
	}
}

// withFooter is a Parquet file of no column data and the given footer.
func withFooter(footer []byte) []byte {
	b := append([]byte("PAR1"), footer...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(footer)))
	return append(b, "PAR1"...)
}

func TestBuildDeterministic(t *testing.T) {
	src := &bytesSource{data: writeGroups(t, &parquet.Zstd, 300, 300)}
	var prev []byte
	for i := 0; i < 3; i++ {
		v, err := Build(context.Background(), src, int64(len(src.data)), dvfilter.NewVector(7, 400), BuildOptions{SpillThreshold: int64(i - 1)})
		if err != nil {
			t.Fatal(err)
		}
		data := materialize(t, v, src)
		if prev != nil && !bytes.Equal(prev, data) {
			t.Fatal("two builds of one view differ")
		}
		prev = data
	}
}

// TestRowsLongerThanABatch: rows of a repeated column holding thousands of
// values each, more than a batch of the re-encoder, keep every value when
// the rows around them are deleted.
func TestRowsLongerThanABatch(t *testing.T) {
	mk := func(i int64) viewRow {
		r := mkRow(i)
		r.Tags = nil
		for k := range []int{3, 10_000, 1, 9_000, 4_097}[i] {
			r.Tags = append(r.Tags, fmt.Sprint(i, "-", k))
		}
		return r
	}
	data := writeRowGroups(t, mk, []int{5})
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(0, 2), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := readRows(t, materialize(t, v, src))
	want := []viewRow{mk(1), mk(3), mk(4)}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		if !slices.Equal(rows[i].Tags, want[i].Tags) || rows[i].ID != want[i].ID {
			t.Errorf("row %d: id %d with %d tags, want id %d with %d", i, rows[i].ID, len(rows[i].Tags), want[i].ID, len(want[i].Tags))
		}
	}
}
