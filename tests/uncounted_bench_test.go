package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
	"github.com/deltafs/deltafs/tests/servers"
)

// statsKind is how the stats of uncountedFolder's files count nulls.
type statsKind int

const (
	countsAll   statsKind = iota // every column: they tell the files lacking score
	countsFirst                  // id alone (as a table of more than 32 columns counts the first 32): footers tell
	countsNone                   // no nullCount (as CONVERT TO DELTA leaves old files): footers tell
)

// uncountedFolder writes a table of n one-row files, the oldest lacking
// lack (n-lacking have the column score, added in a second commit), their
// stats counting nulls as stats says.
func uncountedFolder(tb testing.TB, dir string, n, lacking int, stats statsKind) {
	tb.Helper()
	var conf map[string]string
	if stats == countsFirst {
		conf = map[string]string{"delta.dataSkippingNumIndexedCols": "1"}
	}
	before, after := `{"numRecords":1,"nullCount":{"id":0,"name":0}}`, `{"numRecords":1,"nullCount":{"id":0,"name":0,"score":0}}`
	if stats == countsNone {
		before, after = `{"numRecords":1}`, `{"numRecords":1}`
	}
	schema := schemaBefore
	if lacking == 0 {
		schema = schemaAfter
	}
	commits := [][]action.Action{{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(schema, nil, conf)}, {deltagen.Metadata(schemaAfter, nil, conf)}}
	for i := range n {
		name := fmt.Sprintf("part-%05d.parquet", i)
		var a action.Action
		if i < lacking {
			a = writeRows(tb, dir, name, []beforeScore{{ID: int64(i), Name: "n"}}, before)
		} else {
			score := 1.0
			a = writeRows(tb, dir, name, []withScore{{ID: int64(i), Name: "n", Score: &score}}, after)
		}
		a.Add.ModificationTime += int64(i)
		c := 0
		if i >= lacking {
			c = 1
		}
		commits[c] = append(commits[c], a)
	}
	gen := deltagen.New(dir)
	for _, c := range commits {
		if _, err := gen.Commit(c...); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkListingUncounted: the first ls -l of a version of 400 files,
// half of which lack a column the table added, on the local disk and on
// versitygw with 20 ms before every request, timed from the version's
// lookup (which lays it out) on: where stats count the column (the fill
// read from stats), where they count id alone or no column (FindUncounted
// reads footers to tell), and where no file lacks it (stats tell; one
// footer read).
//
//	go test ./tests -run XXX -bench ListingUncounted -benchtime 5x
func BenchmarkListingUncounted(b *testing.B) {
	requireFUSE(b)
	s3 := servers.Start(b, servers.VersityGW)
	for _, c := range []struct {
		name    string
		lacking int
		stats   statsKind
	}{
		{"half-lack/counted", 200, countsAll}, {"half-lack/uncounted", 200, countsFirst}, {"half-lack/no-null-counts", 200, countsNone},
		{"none-lack/counted", 0, countsAll}, {"none-lack/uncounted", 0, countsFirst}, {"none-lack/no-null-counts", 0, countsNone},
	} {
		dir := b.TempDir()
		uncountedFolder(b, dir, 400, c.lacking, c.stats)
		remote := s3.Location(fmt.Sprintf("listing-uncounted-%d-%d", c.lacking, c.stats))
		uploadTable(b, openAt(b, remote), dir)
		for _, at := range []struct {
			store, location string
			latency         time.Duration
		}{{"disk", dir, 0}, {"versitygw", remote, 20 * time.Millisecond}} {
			b.Run(fmt.Sprintf("%s/store=%s/latency=%v", c.name, at.store, at.latency), func(b *testing.B) {
				var rounds, gets int64
				for b.Loop() {
					b.StopTimer()
					m := mountLayout(b, at.location, fs.Options{RefreshInterval: -1}, blobstore.WithLatency(at.latency))
					before := m.store.Counts()
					b.StartTimer()
					version := filepath.Join(m.dir, "v", "1")
					if _, err := os.Stat(version); err != nil {
						b.Fatal(err)
					}
					if sizes := lsL(b, version); len(sizes) != 400 {
						b.Fatalf("%d files listed", len(sizes))
					}
					b.StopTimer()
					d := m.store.Counts().Sub(before)
					rounds, gets = rounds+d.Rounds, gets+d.Gets
					m.unmount()
					b.StartTimer()
				}
				b.ReportMetric(float64(rounds)/float64(b.N), "roundtrips/op")
				b.ReportMetric(float64(gets)/float64(b.N), "gets/op")
			})
		}
	}
}
