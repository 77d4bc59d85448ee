package parquetview

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// localTimes is a file an older delta-rs wrote: timestamps as
// microseconds, marked (by localTimeFile) as local date-times.
type localTimes struct {
	ID  int64 `parquet:"id"`
	TS  int64 `parquet:"ts,optional"`
	NTZ int64 `parquet:"ntz"` // a Delta timestamp_ntz: stays local
	S   struct {
		T int64 `parquet:"t"`
	} `parquet:"s"`
	L []int64 `parquet:"l,list"`
}

func mkLocalTimes(i int64) localTimes {
	r := localTimes{ID: i, TS: 1_700_000_000_000_000 + i, NTZ: 1_600_000_000_000_000 - i, L: []int64{i, -i}}
	r.S.T = 1_500_000_000_000_000 + i*1000
	return r
}

// localTimeFile writes rows of localTimes whose int64 leaves but id are
// timestamps, adjusted to UTC or not.
func localTimeFile(t testing.TB, adjusted bool) []byte {
	data := writeRowGroups(t, mkLocalTimes, []int{5, 3}, parquet.KeyValueMetadata("ARROW:schema", "cache"))
	md := footerOf(t, data)
	for i := range md.Schema {
		el := &md.Schema[i]
		if el.Type.Valid && el.Type.V == format.Int64 && el.Name != "id" {
			el.LogicalType.Value = &format.TimestampType{IsAdjustedToUTC: adjusted, Unit: format.TimeUnit{Value: &format.MicroSeconds{}}}
		}
	}
	return withSchema(t, data, md)
}

// instantTable is the Delta schema of localTimes: id long, ts, s.t and
// the elements of l timestamps, ntz a timestamp_ntz.
func instantTable() *Rename {
	leaf := func(name string, instant bool) Column {
		return Column{Name: name, Physical: name, Instant: instant}
	}
	return &Rename{Key: "instants", Columns: []Column{
		leaf("id", false), leaf("ts", true), leaf("ntz", false),
		{Name: "s", Physical: "s", Kind: StructColumn, Children: []Column{leaf("t", true)}},
		{Name: "l", Physical: "l", Kind: ListColumn, Children: []Column{leaf("element", true)}},
	}}
}

// TestLocalTimesServedAsInstants: a file storing a Delta timestamp as a
// local date-time is served with it marked as an instant, at any depth,
// in its stored size, every byte before the footer as stored and the
// Arrow schema cache dropped; a timestamp_ntz stays local. pyarrow reads
// the instants in UTC and every value as stored. A file already marking
// them is served as stored.
func TestLocalTimesServedAsInstants(t *testing.T) {
	data := localTimeFile(t, false)
	src := &bytesSource{data: data}
	v, err := Build(context.Background(), src, int64(len(data)), nil, BuildOptions{Rename: instantTable()})
	if err != nil {
		t.Fatal(err)
	}
	out := materialize(t, v, src)
	if v.Unchanged() || len(out) != len(data) {
		t.Fatalf("unchanged %v, %d bytes: want a view of the stored %d bytes", v.Unchanged(), len(out), len(data))
	}
	_, dataEnd, err := readFooter(context.Background(), src, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out[:dataEnd], data[:dataEnd]) {
		t.Error("bytes before the footer changed")
	}
	md := footerOf(t, out)
	var got []string
	for _, el := range md.Schema {
		if ts, ok := el.LogicalType.Value.(*format.TimestampType); ok {
			got = append(got, el.Name+":"+map[bool]string{true: "utc", false: "local"}[ts.IsAdjustedToUTC])
		}
	}
	if want := "ts:utc ntz:local t:utc element:utc"; strings.Join(got, " ") != want {
		t.Errorf("served timestamps %s, want %s", strings.Join(got, " "), want)
	}
	if hasKey(md, "ARROW:schema") {
		t.Error("the Arrow schema cache, which says local, was kept")
	}
	res, ok := pyarrowRead(t, out, `
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
print(t.schema.to_string(show_schema_metadata=False))
print(t.column("ts").cast("int64").to_pylist())
`)
	if ok {
		wantTypes := "id: int64 not null\nts: timestamp[us, tz=UTC]\nntz: timestamp[us] not null\n" +
			"s: struct<t: timestamp[us, tz=UTC] not null> not null\n  child 0, t: timestamp[us, tz=UTC] not null\n" +
			"l: list<element: timestamp[us, tz=UTC] not null> not null\n  child 0, element: timestamp[us, tz=UTC] not null\n"
		wantTS := "[1700000000000000, 1700000000000001, 1700000000000002, 1700000000000003, 1700000000000004, 1700000000000005, 1700000000000006, 1700000000000007]\n"
		if string(res) != wantTypes+wantTS {
			t.Errorf("pyarrow reads\n%s\nwant\n%s", res, wantTypes+wantTS)
		}
	}

	utc := localTimeFile(t, true)
	v, err = Build(context.Background(), &bytesSource{data: utc}, int64(len(utc)), nil, BuildOptions{Rename: instantTable()})
	if err != nil || !v.Unchanged() {
		t.Errorf("a file of instants: unchanged %v, %v; want served as stored", v != nil && v.Unchanged(), err)
	}
}
