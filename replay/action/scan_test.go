package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// parseWithJSON is ParseLines with encoding/json for every line: what the
// scanner must agree with.
func parseWithJSON(data []byte) ([]Action, error) {
	var out []Action
	for _, raw := range bytes.Split(data, []byte("\n")) {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		if !utf8.Valid(raw) { // encoding/json would replace the bad bytes
			return nil, errors.New("not UTF-8")
		}
		if err := checkSurrogates(raw); err != nil { // and a lone surrogate
			return nil, err
		}
		var a Action
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, err
		}
		if err := a.validate(); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// asJSONWouldLeaveIt turns what the scanner kept as JSON back into the
// fields encoding/json fills.
func asJSONWouldLeaveIt(t *testing.T, a Action) Action {
	t.Helper()
	if a.Add != nil {
		add := *a.Add
		if add.statsRaw != nil {
			if err := json.Unmarshal(add.statsRaw, &add.Stats); err != nil {
				t.Fatalf("stats %s: %v", add.statsRaw, err)
			}
		}
		if add.partitionRaw != nil {
			if err := json.Unmarshal(add.partitionRaw, &add.PartitionValues); err != nil {
				t.Fatalf("partitionValues %s: %v", add.partitionRaw, err)
			}
		}
		add.statsRaw, add.partitionRaw = nil, nil
		a.Add = &add
	}
	if a.Remove != nil {
		rm := *a.Remove
		if rm.partitionRaw != nil {
			if err := json.Unmarshal(rm.partitionRaw, &rm.PartitionValues); err != nil {
				t.Fatalf("partitionValues %s: %v", rm.partitionRaw, err)
			}
		}
		rm.partitionRaw = nil
		a.Remove = &rm
	}
	return a
}

var scanSeeds = []string{
	`{"add":{"path":"date=2024-01-01/part-00000.parquet","partitionValues":{"date":"2024-01-01","n":null},"size":13472,"modificationTime":1704445200000,"dataChange":true,"stats":"{\"numRecords\":1500,\"minValues\":{\"id\":1}}","tags":{"a":"b"},"baseRowId":4,"defaultRowCommitVersion":null}}`,
	`{"add":{"path":"a%20b.parquet","partitionValues":{},"size":1,"modificationTime":2,"dataChange":false,"stats":"{\"numRecords\":3}","deletionVector":{"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":1,"sizeInBytes":36,"cardinality":2}}}`,
	`{"remove":{"path":"b","deletionTimestamp":1,"dataChange":true,"extendedFileMetadata":true,"partitionValues":{"x":"1"},"size":10,"tags":null}}`,
	`{"add":{"path":"x","PATH":"y","size":1}}`,
	`{"add":{"path":"x","size":1.5}}`,
	`{"add":{"path":"x","size":-0,"unknown":[1,{"a":[true,false,null]},"s\u00e9"],"stats":null}}`,
	`{"add":{"path":"x","partitionValues":{"a":"1"},"partitionValues":{"b":"2"}}}`,
	`{"remove":{"path":"x","deletionVector":{"storageType":"i","pathOrInlineDv":"wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L","sizeInBytes":40,"cardinality":6,"maxRowIndex":9,"offset":null}}}`,
	`{"add":{"path":"x","deletionVector":{"storageType":"p","pathOrInlineDv":"s3://b/dv.bin","offset":2147483647,"sizeInBytes":1,"cardinality":1,"future":{"a":[1]}}}}`,
	`{"add":{"path":"x","deletionVector":{"storageType":"u","offset":2147483648,"sizeInBytes":1,"cardinality":1}}}`,
	`{"add":{"path":"x","deletionVector":{"storageType":"u","sizeInBytes":null,"cardinality":1}}}`,
	`{"add":{"path":"x","deletionVector":{"storageType":"u","cardinality":1},"deletionVector":{"sizeInBytes":3}}}`,
	`{"add":{"path":"x","deletionVector":{"storageType":"u","Cardinality":1,"cardinality":2}}}`,
	`{"add":{"path":"x","deletionVector":{"storageType":"\u0075","cardinality":1.0}}}`,
	`{"add":{"path":"x","deletionVector":null,"deletionVector":{"storageType":"u"}}}`,
	`{"add":{"path":"x","deletionVector":[]}}`,
	`{"add":{"path":"x","deletionVector":{"storageType":"u","pathOrInlineDv":"ab\u003c\u003e\u0026-aqEH.-t@S}K{v\"","sizeInBytes":1,"cardinality":1}}}`,
	"{\"add\":{\"path\":\"x\",\"deletionVector\":{\"storageType\":\"\\u00e9\xff\",\"cardinality\":1}}}",
	`{"add":{"path":"caf\u00e9","size":1}}`,
	"{\"add\":{\"path\":\"caf\xc3\xa9\",\"size\":1}}",
	`{"add":{"path":"x","size":01}}`,
	`{"add":{"path":"x"}, "remove":{"path":"y"}}`,
	`{"add":{"path":""}}`,
	`{"Add":{"path":"x"}}`,
	`{"add":null}`,
	`{"remove":{"path":"x","size":null,"deletionTimestamp":99999999999999999999}}`,
	`{"commitInfo":{"timestamp":1,"operation":"WRITE"}}`,
	`{"commitInfo":{"timestamp":1,"inCommitTimestamp":2,"operation":"MERGE","operationParameters":{"predicate":"[\"a\"]","n":[1,2.5]},"operationMetrics":{"rows":"1"},"isBlindAppend":false,"engineInfo":null}}`,
	`{"commitInfo":{"timestamp":null,"operation":"caf\u00e9","Timestamp":3}}`,
	`{"commitInfo":{"timestamp":1.7e12,"inCommitTimestamp":-1}}`,
	`{"commitInfo":null}`,
	`{"add":{"path":"x","partitionValues":{"b":"1","a":null,"b":"2","c":"\u00e9\"q","d":"caf\u00e9","e":"","a":"3"}}}`,
	`{"add":{"path":"x","partitionValues": { "a" : "1" , "b" : null , "A" : "2" } }}`,
	`{"commitInfo":{"operation":"a","operation":"b","timestamp":1,"timestamp":2}}`,
	`{"add":{"path":"x","stats":"{\"numRecords\":7,\"x\":\"\\u0041\"}"}} `,
	`{"add":{"path":"x","dataChange":tru}}`,
	`{"add":{"path":"x"}}}`,
	`{"add":{"path":"x","partitionValues":{"a":"\ud83d\ude00","b":"\udcff"}}}`,
	`{"add":{"path":"x","partitionValues":{"a":"\ud83d\ude00","b":"\\udcff"}}}`,
	`{"commitInfo":{"operation":"\ud800\ud800"}}`,
}

// A commit that is not UTF-8 is refused wherever the bad byte is, naming
// the line: encoding/json would replace it with U+FFFD, and a path so
// changed names another file.
func TestParseRefusesNonUTF8(t *testing.T) {
	for _, line := range []string{
		"{\"add\":{\"path\":\"a\xff.parquet\",\"size\":1}}",
		"{\"add\":{\"path\":\"a\",\"partitionValues\":{\"p\":\"\xc3\"},\"size\":1}}",
		"{\"add\":{\"path\":\"a\",\"stats\":\"{\\\"numRecords\\\":1,\\\"minValues\\\":{\\\"s\\\":\\\"\xed\xa0\x80\\\"}}\"}}",
		"{\"remove\":{\"path\":\"a\xc0\xaf\"}}",
		"{\"commitInfo\":{\"operation\":\"WRITE\",\"engineInfo\":\"x\xfe\"}}",
		"{\"metaData\":{\"id\":\"\xff\",\"schemaString\":\"{}\"}}",
	} {
		commit := []byte("{\"commitInfo\":{}}\n" + line + "\n")
		err := ParseLines(commit, func(*Action) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "line 2: not UTF-8") {
			t.Errorf("%q: error %v, want line 2 not UTF-8", line, err)
		}
	}
}

// A lone surrogate escape is refused wherever it is, naming the line: it
// names no character, and encoding/json would make it U+FFFD. A pair, an
// escaped backslash before "u", and surrogates inside the stats (JSON in
// a string, escaped twice) are not refused.
func TestParseRefusesLoneSurrogates(t *testing.T) {
	for _, c := range []struct {
		line string
		bad  bool
	}{
		{`{"add":{"path":"a\udcff.parquet","size":1}}`, true},
		{`{"add":{"path":"a\ud800.parquet","size":1}}`, true},
		{`{"add":{"path":"a\ud800\u0041.parquet","size":1}}`, true},
		{`{"add":{"path":"a","partitionValues":{"p":"x\udfff"},"size":1}}`, true},
		{`{"add":{"path":"a","deletionVector":{"storageType":"p","pathOrInlineDv":"/t/dv\udbff.bin","sizeInBytes":1,"cardinality":1}}}`, true},
		{`{"commitInfo":{"operation":"W\ud834"}}`, true},
		{`{"add":{"path":"a\ud83d\ude00.parquet","size":1}}`, false},
		{`{"add":{"path":"a\\udcff.parquet","size":1}}`, false},
		{`{"add":{"path":"a","stats":"{\"minValues\":{\"s\":\"\\udcff\"}}","size":1}}`, false},
	} {
		err := ParseLines([]byte("{\"commitInfo\":{}}\n"+c.line), func(*Action) error { return nil })
		if c.bad != (err != nil) || c.bad && !strings.Contains(err.Error(), "line 2: a lone surrogate escape") {
			t.Errorf("%s: error %v, want refused: %v", c.line, err, c.bad)
		}
	}
}

func TestScanMatchesJSON(t *testing.T) {
	for _, seed := range scanSeeds {
		checkScanMatchesJSON(t, []byte(seed))
	}
}

func FuzzScanMatchesJSON(f *testing.F) {
	for _, seed := range scanSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(checkScanMatchesJSON)
}

func checkScanMatchesJSON(t *testing.T, data []byte) {
	want, wantErr := parseWithJSON(data)
	var got []Action
	gotErr := ParseLines(data, func(a *Action) error {
		got = append(got, asJSONWouldLeaveIt(t, *a))
		if a.Add != nil {
			var in Interner
			if p, q := a.Add.Partition(&in), (&Interner{}).InternMap(got[len(got)-1].Add.PartitionValues); !reflect.DeepEqual(p, q) {
				t.Fatalf("%q: partition %+v, want %+v", data, p, q)
			}
			if n, m := a.Add.NumRecords(), NumRecords([]byte(got[len(got)-1].Add.Stats)); n != m {
				t.Fatalf("%q: numRecords %d, want %d", data, n, m)
			}
		}
		return nil
	})
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%q: error %v, encoding/json says %v", data, gotErr, wantErr)
	}
	if gotErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %s\nwant %s", data, dump(got), dump(want))
	}
}

func dump(as []Action) string {
	b, _ := json.Marshal(as)
	return string(b)
}

// A commit of one add allocates about its own size, not a slab sized for
// large commits: a log of 20,000 such commits once cleared 2 GiB to replay.
func TestSmallCommitAllocatesLittle(t *testing.T) {
	commit := []byte(`{"commitInfo":{"operation":"WRITE"}}` + "\n" +
		`{"add":{"path":"date=2024-01-01/part-00000-0f8a.c000.snappy.parquet","partitionValues":{"date":"2024-01-01"},"size":1024,"modificationTime":1704067200000,"dataChange":true,"stats":"{\"numRecords\":10}"}}` + "\n")
	res := testing.Benchmark(func(b *testing.B) {
		for range b.N {
			if err := ParseLines(commit, func(*Action) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	if got := res.AllocedBytesPerOp(); got > 4<<10 {
		t.Fatalf("ParseLines of a %d-byte commit allocates %d bytes", len(commit), got)
	}
}

// TestSettleKeepsWhatReplayReads: a settled add answers as before, and
// holds nothing of the commit's bytes (they are overwritten here).
func TestSettleKeepsWhatReplayReads(t *testing.T) {
	commit := []byte(`{"add":{"path":"d=1/a.parquet","partitionValues":{"d":"1","e":null},"size":10,"modificationTime":1,"dataChange":true,"stats":"{\"numRecords\":42,\"nullCount\":{\"x\":0,\"y\":3}}"}}` + "\n")
	actions, err := ParseAll(commit)
	if err != nil || len(actions) != 1 {
		t.Fatal(actions, err)
	}
	a := actions[0].Add
	var in Interner
	wantRecords, wantPart, wantCounted := a.NumRecords(), a.Partition(&in), a.NullCounted()
	Settle(actions)
	rawAt := bytes.Index(commit, []byte(`{"d"`))
	for i := range commit {
		commit[i] = 'x'
	}
	if a.statsRaw != nil || &a.partitionRaw[0] == &commit[rawAt] || a.Path != "d=1/a.parquet" {
		t.Fatalf("raw bytes kept, or path %q changed with the commit's bytes", a.Path)
	}
	if a.NumRecords() != wantRecords || wantRecords != 42 || a.NullCounted() != wantCounted || wantCounted == nil {
		t.Fatalf("numRecords %d, null-counted %v; want %d, %v", a.NumRecords(), a.NullCounted(), wantRecords, wantCounted)
	}
	var fresh Interner
	if got := a.Partition(&fresh); fmt.Sprint(got.Values) != fmt.Sprint(wantPart.Values) || len(got.Values) != 2 {
		t.Fatalf("partition %v, want %v", got.Values, wantPart.Values)
	}
}
