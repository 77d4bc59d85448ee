package parquetview

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// nullsRow is a row whose list holds optional elements: a null element
// takes no value bytes, only levels.
type nullsRow struct {
	ID   int64     `parquet:"id"`
	Tags []*string `parquet:"tags,list"`
}

// longRowFile is a file of two rows whose second row's list goes on over
// pages more pages of perPage null elements each.
func longRowFile(t testing.TB, pages, perPage int) []byte {
	t.Helper()
	s := "a"
	data := writeRowGroups(t, func(i int64) nullsRow { return nullsRow{ID: i, Tags: []*string{&s}} }, []int{2},
		parquet.Compression(&parquet.Uncompressed))
	data, err := deltagen.ContinueLastRow(data, pages, perPage, 1)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRowLongerThanItsBytesIsRefused: 16 pages of a million null elements
// each, one row of 16 million values in a 1 KB file, is refused before
// the re-encoder holds it (it held 16 million values, 2.5 GB allocated;
// 64 pages ran a process limited to 4 GB out of memory).
func TestRowLongerThanItsBytesIsRefused(t *testing.T) {
	data := longRowFile(t, 16, 1<<20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Build(context.Background(), &bytesSource{data: data}, int64(len(data)), dvfilter.NewVector(0), BuildOptions{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrParquet) || !strings.Contains(err.Error(), "a row takes more than") {
		t.Fatalf("err = %v, want the row refused", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 400<<20 {
		t.Errorf("allocated %d MB refusing a %d-byte file", got>>20, len(data))
	}
}

// TestLongRowOfNullsKept: a row of a million null elements, stored in a
// few bytes, is within what a row may take whatever its bytes.
func TestLongRowOfNullsKept(t *testing.T) {
	data := longRowFile(t, 1, 1<<20)
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(0), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := materialize(t, v, src)
	f, err := parquet.OpenFile(bytes.NewReader(out), int64(len(out)))
	if err != nil {
		t.Fatal(err)
	}
	md := f.Metadata()
	if md.NumRows != 1 || md.RowGroups[0].Columns[1].MetaData.NumValues != 1<<20+1 {
		t.Fatalf("%d rows, %d values, want 1 row of %d", md.NumRows, md.RowGroups[0].Columns[1].MetaData.NumValues, 1<<20+1)
	}
}

// TestWholeRows: the re-encoder gives the writer whole rows of about
// flushBytes, never part of a row, and values of no bytes all at once.
func TestWholeRows(t *testing.T) {
	mb := bytes.Repeat([]byte("x"), 1<<20)
	var vals []parquet.Value
	for _, n := range []int{3, 2, 1, 4} { // rows of n values of 1 MiB
		for k := range n {
			rep := 1
			if k == 0 {
				rep = 0
			}
			vals = append(vals, parquet.ByteArrayValue(mb).Level(rep, 1, 0))
		}
	}
	var pieces []int
	var sizes []int64
	for v := vals; len(v) > 0; {
		n, size := wholeRows(v, 4<<20)
		pieces, sizes = append(pieces, n), append(sizes, size)
		v = v[n:]
	}
	if want := []int{5, 5}; !slices.Equal(pieces, want) { // 3+2 MiB, then 1+4
		t.Errorf("pieces of %v values, want %v", pieces, want)
	}
	if want := []int64{5 << 20, 5 << 20}; !slices.Equal(sizes, want) {
		t.Errorf("pieces of %v bytes, want %v", sizes, want)
	}
	nulls := make([]parquet.Value, 10_000)
	if n, size := wholeRows(nulls, 4<<20); n != len(nulls) || size != 0 {
		t.Errorf("%d of %d nulls in a piece of %d bytes", n, len(nulls), size)
	}
}

// itemsOnly is a file whose list of structs lies last, before a field was
// added to them (itemsGrown).
type itemsOnly struct {
	ID    int64      `parquet:"id"`
	Items []*oldItem `parquet:"items,optional,list"`
}

func itemsGrown() *Rename {
	leaf := func(name string, k LeafKind) Column {
		return Column{Name: name, Physical: name, Fill: &LeafType{Kind: k}}
	}
	item := Column{Name: "element", Physical: "element", Kind: StructColumn, Children: []Column{leaf("a", LongType), leaf("b", StringType)}}
	return &Rename{Key: "items", FillMissing: true, Columns: []Column{
		leaf("id", LongType),
		{Name: "items", Physical: "items", Kind: ListColumn, Children: []Column{item}},
	}}
}

// TestFillRefusesLevelsPastTheirBytes: filling items.element.b takes the
// levels of items.element.a, all of its column chunk's; 64 pages of a
// million elements whose a is null, a 3 KB file, are refused before they
// are held (they were: 1.5 GB allocated, 660 MB resident), one page of
// them is filled.
func TestFillRefusesLevelsPastTheirBytes(t *testing.T) {
	one := int64(1)
	mk := func(pages int) []byte {
		data := writeRowGroups(t, func(i int64) itemsOnly { return itemsOnly{ID: i, Items: []*oldItem{{A: &one}}} }, []int{2},
			parquet.Compression(&parquet.Uncompressed))
		data, err := deltagen.ContinueLastRow(data, pages, 1<<20, 3) // 3: an element, its a null
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	data := mk(64)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Build(context.Background(), &bytesSource{data: data}, int64(len(data)), nil, BuildOptions{Rename: itemsGrown()})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrParquet) || !strings.Contains(err.Error(), "levels from a column chunk") {
		t.Fatalf("err = %v, want the levels refused", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 600<<20 {
		t.Errorf("allocated %d MB refusing a %d-byte file", got>>20, len(data))
	}
	data = mk(1)
	if _, err := Build(context.Background(), &bytesSource{data: data}, int64(len(data)), nil, BuildOptions{Rename: itemsGrown()}); err != nil {
		t.Fatal(err)
	}
}
