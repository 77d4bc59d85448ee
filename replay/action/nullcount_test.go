package action

import (
	"encoding/json"
	"slices"
	"testing"
)

// Each reader of nullCount (the scanner where it comes last, the
// forward scanner, encoding/json, and the quoted form a JSON commit holds)
// finds the fields of struct columns' counts.
func TestNullCountedFields(t *testing.T) {
	wantNames := []string{"id", "s", "arr"}
	wantFields := [][]string{{"s", "a"}, {"s", "t"}, {"s", "t", "b"}}
	for _, stats := range []string{
		`{"numRecords":2,"nullCount":{"id":0,"s":{"a":0,"t":{"b":1}},"arr":1}}`,
		`{"nullCount":{"id":0,"s":{"a":0,"t":{"b":1}},"arr":1},"numRecords":2}`,
		`{"nullCount":{"id":0,"s":{"a":0,"t":{"b":1}},"arr":1},"x\u0041":2}`,
		`{"nullCount" : { "id" : 0 , "s" : { "a" : 0 , "t" : { "b" : 1 } } , "arr" : 1 } }`,
	} {
		for _, set := range []*ColumnSet{NullCounted([]byte(stats)), quotedOf(t, stats)} {
			if set == nil {
				t.Fatalf("%s: no set", stats)
			}
			if !slices.Equal(set.Names(), wantNames) || !slices.EqualFunc(set.Fields(), wantFields, slices.Equal) {
				t.Errorf("%s: names %q fields %q, want %q %q", stats, set.Names(), set.Fields(), wantNames, wantFields)
			}
			if !set.HasField("s", "t", "b") || set.HasField("s", "b") || set.HasField("arr") {
				t.Errorf("%s: HasField wrong", stats)
			}
		}
	}
	// Sets differing only in their fields are distinct.
	a := NullCounted([]byte(`{"nullCount":{"s":{"a":0}}}`))
	b := NullCounted([]byte(`{"nullCount":{"s":{"a":0,"b":0}}}`))
	if a == b || a.HasField("s", "b") || !b.HasField("s", "b") {
		t.Errorf("sets of other fields shared")
	}
}

func quotedOf(t *testing.T, stats string) *ColumnSet {
	quoted, err := json.Marshal(stats)
	if err != nil {
		t.Fatal(err)
	}
	return nullCountedQuoted(quoted)
}
