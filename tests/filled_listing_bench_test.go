package tests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/tests/servers"
)

// filledFolder writes a table of n files of 5,000 rows (id, s{a}; about
// 80 KB each) and then adds a top-level column (lacking "column") or a
// field inside s (lacking "field"): every file is served filled.
func filledFolder(tb testing.TB, dir string, n int, lacking string) {
	tb.Helper()
	rows := make([]withStructBefore, 5000)
	for i := range rows {
		a := int64(i)
		rows[i] = withStructBefore{ID: int64(i), S: &structBefore{A: &a}}
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		tb.Fatal(err)
	}
	field := func(name, typ string) string {
		return fmt.Sprintf(`{"name":%q,"type":%q,"nullable":true,"metadata":{}}`, name, typ)
	}
	schema := func(top string, fields ...string) string {
		return `{"type":"struct","fields":[` + field("id", "long") + `,{"name":"s","type":{"type":"struct","fields":[` +
			strings.Join(fields, ",") + `]},"nullable":true,"metadata":{}}` + top + `]}`
	}
	commit := []action.Action{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schema("", field("a", "long")), nil, nil)}
	for i := range n {
		name := fmt.Sprintf("part-%04d.parquet", i)
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			tb.Fatal(err)
		}
		commit = append(commit, deltagen.AddFile(name, int64(buf.Len()), 1_700_000_000_000, nil, `{"numRecords":5000,"nullCount":{"id":0,"s":{"a":0}}}`))
	}
	after := schema(","+field("score", "double"), field("a", "long"))
	if lacking == "field" {
		after = schema("", field("a", "long"), field("b", "string"))
	}
	// One more file, whose stats count the new field as files written
	// after the change do (its bytes do not matter here: never read).
	newer := deltagen.AddFile("part-0000.parquet", int64(buf.Len()), 1_700_000_000_000, nil, `{"numRecords":5000,"nullCount":{"id":0,"s":{"a":0,"b":5000},"score":5000}}`)
	newer.Add.Path = "part-new.parquet"
	if err := os.WriteFile(filepath.Join(dir, newer.Add.Path), buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	gen := deltagen.New(dir)
	for _, c := range [][]action.Action{commit, {deltagen.Metadata(after, nil, nil), newer}} {
		if _, err := gen.Commit(c...); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkListingFilled: ls -l of a folder of 400 files a column was
// added to, at the top level or inside a struct, on the local disk and on
// versitygw, as it is and with 20 ms before every request. A file lacking
// a top-level column costs its footer at its first stat; one lacking a
// field inside a struct its footer and a stored field's column chunk.
//
//	go test ./tests -run XXX -bench ListingFilled -benchtime 3x
func BenchmarkListingFilled(b *testing.B) {
	requireFUSE(b)
	s3 := servers.Start(b, servers.VersityGW)
	for _, lacking := range []string{"column", "field"} {
		dir := b.TempDir()
		filledFolder(b, dir, 400, lacking)
		remote := s3.Location("listing-filled-" + lacking)
		uploadTable(b, openAt(b, remote), dir)
		for _, location := range []string{dir, remote} {
			for _, latency := range []time.Duration{0, 20 * time.Millisecond} {
				store := "versitygw"
				if location == dir {
					store = "disk"
				}
				b.Run(fmt.Sprintf("lacking=%s/store=%s/latency=%v", lacking, store, latency), func(b *testing.B) {
					var rounds, bytes int64
					for b.Loop() {
						sizes, d := timedListing(b, location, latency)
						rounds, bytes = rounds+d.Rounds, bytes+d.Bytes
						if len(sizes) != 401 {
							b.Fatalf("%d files listed", len(sizes))
						}
					}
					b.ReportMetric(float64(rounds)/float64(b.N), "roundtrips/op")
					b.ReportMetric(float64(bytes)/float64(b.N)/(1<<20), "MiB/op")
				})
			}
		}
	}
}
