package action

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParseLines(f *testing.F) {
	f.Add([]byte(`{"add":{"path":"a%20b.parquet","partitionValues":{"x":null},"size":1,"modificationTime":2,"dataChange":true,"stats":"{\"numRecords\":3}","deletionVector":{"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":1,"sizeInBytes":36,"cardinality":2}}}` + "\n" + `{"remove":{"path":"b","deletionTimestamp":1,"dataChange":true}}`))
	f.Add([]byte(`{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["v2Checkpoint"]}}` + "\n\n" + `{"unknownAction":{}}`))
	f.Add([]byte(`{"metaData":{"id":"x","format":{"provider":"parquet"},"schemaString":"{}","partitionColumns":[]}}`))
	f.Add([]byte("{\"add\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		err := ParseLines(data, func(a *Action) error {
			n++
			if a.Add != nil {
				if a.Add.Path == "" {
					t.Fatal("add without path accepted")
				}
				FileOf(a.Add, "file:///t")
				NumRecords([]byte(a.Add.Stats))
				a.Add.DeletionVector.UniqueID()
			}
			return nil
		})
		if err == nil && n > strings.Count(string(data), "\n")+1 {
			t.Fatalf("%d actions from %d lines", n, strings.Count(string(data), "\n")+1)
		}
	})
}

func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"a/b.parquet", "a%20b", "../x", "file:///t/a", "/t/a", "s3://b/k", "a//b", "%2e%2e/x", "x=a:b/c", "ts=2024-01-01%2010%253A00/part-0.parquet", "a%2", "a%zz", "a%2Fb", "a%2F%2E/b", "%41%00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		// The fast checks agree with the careful path.
		if plainRelative(raw) {
			if p, err := cleanPath(raw, "file:///t"); p != raw || err != nil {
				t.Fatalf("plain path %q cleans to %q, %v", raw, p, err)
			}
		}
		if fast, ok := escapedRelative(raw); ok {
			if p, err := cleanPath(raw, "file:///t"); p != fast || err != nil {
				t.Fatalf("escaped path %q decodes to %q, the careful way to %q, %v", raw, fast, p, err)
			}
		}
		p, err := CleanPath(raw, "file:///t")
		if err != nil {
			return
		}
		if IsExternal(p) {
			return
		}
		// A relative result never climbs out of the root.
		if p == "" || p[0] == '/' || strings.HasSuffix(p, "/") {
			t.Fatalf("CleanPath(%q) = %q", raw, p)
		}
		for _, elem := range strings.Split(p, "/") {
			if elem == "" || elem == "." || elem == ".." {
				t.Fatalf("CleanPath(%q) = %q has element %q", raw, p, elem)
			}
		}
	})
}

// FuzzParseAll: a commit parsed in pieces gives what ParseLines gives:
// the same actions, or the same first error.
func FuzzParseAll(f *testing.F) {
	f.Add([]byte(`{"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":2,"dataChange":true}}`+"\n\n"+`{"remove":{"path":"b","dataChange":true}}`+"\n"+`{"txn":{"appId":"x","version":1}}`+"\n"), uint8(3))
	f.Add([]byte("{\"commitInfo\":{}}\n{\"add\":{\"path\":\"\"}}\n{\"add\":\n"), uint8(1))
	f.Add([]byte("\n\n{}\n{\"remove\":{\"path\":\"p\"}}\nnot json\n"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		var want []Action
		wantErr := ParseLines(data, func(a *Action) error { want = append(want, *a); return nil })
		got, err := parseAll(data, int(chunk))
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("error %v, ParseLines %v", err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("%d actions, ParseLines %d", len(got), len(want))
		}
	})
}

// FuzzNumRecords: the prefix scan of a stats string gives what decoding
// the whole of it gives, for stats that are JSON. (The scan reads no
// further than the number: stats cut short after it still give it, and
// checking every stats string whole would cost most of a JSON replay.)
func FuzzNumRecords(f *testing.F) {
	for _, s := range []string{`{"numRecords":12,"minValues":{}}`, `{"numRecords": 12, "minValues": {}}`, `{"numRecords":012}`, `{"numRecords" :0}`, `{"numRecords":1e3}`, `{"numRecords":-1}`, `{"numRecords":12`, `{"numRecords":99999999999999999999}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stats []byte) {
		if !json.Valid(stats) {
			return
		}
		want := int64(-1)
		var s struct {
			NumRecords *int64 `json:"numRecords"`
		}
		if json.Unmarshal(stats, &s) == nil && s.NumRecords != nil {
			want = *s.NumRecords
		}
		if got := NumRecords(stats); got != want {
			t.Fatalf("NumRecords(%q) = %d, want %d", stats, got, want)
		}
	})
}

// FuzzNullCounted: for stats that are JSON, the columns NullCounted finds
// are the keys of the nullCount object encoding/json decodes (encoding/json
// matches the member's name in any case; writers spell it exactly), or
// none when nullCount is not an object; on anything else it does not
// crash.
func FuzzNullCounted(f *testing.F) {
	for _, s := range []string{
		`{"numRecords":3,"minValues":{"a":1,"s":{"x":"}{"}},"maxValues":{"a":3},"nullCount":{"a":0,"s":{"x":1}}}`,
		`{"nullCount":{}}`, `{"nullCount":null}`, `{"nullCount":{"a\"b":0, "c" : [1,{"d":2}]}}`,
		`{"minValues":{"nullCount":{"x":1}},"nullCount":{"y":0}}`, `{"nullCount":{"a":0},"nullCount":null}`, `{"nullCount":{"a":0}`, `[1]`,
		`{"nullCount":{"s":{"a":0,"t":{"b":1}},"s":{"c":0},"u":{}}}`, `{"nullCount":{"s":{"a\u0000b":0}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stats []byte) {
		got := NullCounted(stats)
		if !json.Valid(stats) {
			return
		}
		if quoted, err := json.Marshal(string(stats)); err == nil && utf8.Valid(stats) {
			if q := nullCountedQuoted(quoted); (q == nil) != (got == nil) || q != nil && (!slices.Equal(q.Names(), got.Names()) || !slices.EqualFunc(q.Fields(), got.Fields(), slices.Equal)) {
				t.Fatalf("NullCounted of the stats %q as a JSON string differs", stats)
			}
		}
		var members map[string]json.RawMessage
		if json.Unmarshal(stats, &members) != nil {
			if got != nil {
				t.Fatalf("NullCounted(%q) = %v for stats that are no object", stats, got.Names())
			}
			return
		}
		raw, ok := members["nullCount"]
		var want map[string]json.RawMessage
		if !ok || json.Unmarshal(raw, &want) != nil || want == nil {
			if got != nil {
				t.Fatalf("NullCounted(%q) = %v, want none", stats, got.Names())
			}
			return
		}
		if got == nil {
			t.Fatalf("NullCounted(%q) = none, want %v", stats, want)
		}
		names := got.Names()
		for _, n := range names {
			if _, ok := want[n]; !ok {
				t.Fatalf("NullCounted(%q) has %q, want %v", stats, n, want)
			}
		}
		for k := range want {
			if !got.Has(k) {
				t.Fatalf("NullCounted(%q) = %v, lacks %q", stats, names, k)
			}
		}
		wantFields := map[string]bool{}
		nestedPaths(t, raw, nil, wantFields)
		for _, f := range got.Fields() {
			if !wantFields[strings.Join(f, "\x00")] {
				t.Fatalf("NullCounted(%q) has field %q, want %v", stats, f, wantFields)
			}
		}
		for f := range wantFields {
			if !got.HasField(strings.Split(f, "\x00")...) {
				t.Fatalf("NullCounted(%q) = %v, lacks field %q", stats, got.Fields(), f)
			}
		}
	})
}

// nestedPaths records the paths (names joined by NUL) of the members of
// the objects nested in the object raw, under path, read by a
// json.Decoder's tokens, every member of a name, to the depth NullCounted
// reads.
func nestedPaths(t *testing.T, raw []byte, path []string, out map[string]bool) {
	var members []struct {
		name  string
		value json.RawMessage
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("nullCount %q: %v", raw, err)
		}
		var value json.RawMessage
		if err := d.Decode(&value); err != nil {
			t.Fatalf("nullCount %q: %v", raw, err)
		}
		members = append(members, struct {
			name  string
			value json.RawMessage
		}{tok.(string), value})
	}
	for _, m := range members {
		p := append(slices.Clone(path), m.name)
		if len(path) > 0 {
			out[strings.Join(p, "\x00")] = true
		}
		if len(path) < MaxCountDepth {
			nestedPaths(t, m.value, p, out)
		}
	}
}
