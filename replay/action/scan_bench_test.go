package action

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParseAdds: a commit of 1,000 add lines as Spark writes them
// (four partition columns, stats on eight columns, escaped in the line).
//
//	go test ./replay/action -run XXX -bench ParseAdds
func BenchmarkParseAdds(b *testing.B) {
	data := sparkAdds(1000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		n := 0
		if err := ParseLines(data, func(a *Action) error { n++; return nil }); err != nil || n != 1000 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkParseAll: one commit of 30,000 such adds (23 MB, as a bulk
// load writes), parsed by ParseLines into a slice (serial) and by
// ParseAll (in pieces on every core).
//
//	go test ./replay/action -run XXX -bench ParseAll
func BenchmarkParseAll(b *testing.B) {
	data := sparkAdds(30000)
	b.Run("serial", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var out []Action
			if err := ParseLines(data, func(a *Action) error { out = append(out, *a); return nil }); err != nil || len(out) != 30000 {
				b.Fatal(len(out), err)
			}
		}
	})
	b.Run("pieces", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if out, err := ParseAll(data); err != nil || len(out) != 30000 {
				b.Fatal(len(out), err)
			}
		}
	})
}

// sparkAdds is a commit of n add lines as Spark writes them.
func sparkAdds(n int) []byte {
	var sb strings.Builder
	for i := range n {
		stats := fmt.Sprintf(`{"numRecords":1000,"minValues":{"id":%d,"a":%d.5,"b":"b%07d","c":%d,"d":"2024-01-01T00:00:00.000Z","e":"e%07d","f":%d,"g":"2024-01-01"},"maxValues":{"id":%d,"a":%d.5,"b":"b%07d","c":%d,"d":"2024-12-31T23:59:59.999Z","e":"e%07d","f":%d,"g":"2024-12-31"},"nullCount":{"id":0,"a":0,"b":1,"c":0,"d":0,"e":3,"f":0,"g":0}}`,
			i*1000, i, i, i, i, i, i*1000+999, i+1, i+1, i+1, i+1, i+1)
		fmt.Fprintf(&sb, `{"add":{"path":"year=%d/day=2024-%02d-%02d/region=eu-west-1/flag=true/part-%05d-0f3c2a9e-5b7d-4c1e-9a8b-%012d.c000.snappy.parquet","partitionValues":{"year":"%d","day":"2024-%02d-%02d","region":"eu-west-1","flag":"true"},"size":%d,"modificationTime":1704067200000,"dataChange":true,"stats":%q}}`+"\n",
			2020+i%5, 1+i%12, 1+i%28, i, i, 2020+i%5, 1+i%12, 1+i%28, 123456+i, stats)
	}
	return []byte(sb.String())
}

// BenchmarkNullCounted: the columns a JSON commit's stats count nulls of,
// read from the quoted stats as a JSON replay reads every add's: flat
// (eight columns) and with a struct column's counts.
//
//	go test ./replay/action -run XXX -bench NullCounted
func BenchmarkNullCounted(b *testing.B) {
	for _, c := range []struct{ name, stats string }{
		{"flat", `{"numRecords":1000,"minValues":{"id":1,"a":2.5},"maxValues":{"id":9,"a":3.5},"nullCount":{"id":0,"a":0,"b":1,"c":0,"d":0,"e":3,"f":0,"g":0}}`},
		{"struct", `{"numRecords":1000,"minValues":{"id":1},"maxValues":{"id":9},"nullCount":{"id":0,"a":0,"s":{"x":0,"y":1,"t":{"u":0,"v":0}},"g":0}}`},
	} {
		quoted := []byte(fmt.Sprintf("%q", c.stats))
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if nullCountedQuoted(quoted) == nil {
					b.Fatal("no set")
				}
			}
		})
	}
}
