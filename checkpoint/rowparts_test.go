package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// dirStorage serves the files of a directory.
type dirStorage string

func (d dirStorage) Read(ctx context.Context, key string) ([]byte, error) {
	return os.ReadFile(filepath.Join(string(d), key))
}

func (d dirStorage) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	f, err := os.Open(filepath.Join(string(d), key))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := f.ReadAt(buf, off)
	if k == len(buf) {
		err = nil
	}
	return buf[:k], err
}

// partsTableAdds is how many adds partsCheckpoint writes: enough for a
// row group to be cut in parts.
const partsTableAdds = 40_000

// partsCheckpoint writes, under dir, a classic checkpoint of one row group
// in small pages of the given version: partsTableAdds adds under one
// partition column (some null), with stats on most, a deletion vector on
// every seventh; a txn and a domain. It returns the checkpoint to read.
func partsCheckpoint(t testing.TB, dir string, pageVersion int) Checkpoint {
	t.Helper()
	acts := []action.Action{
		deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors", "domainMetadata"}),
		deltagen.Metadata(deltagen.PartitionedSchema, []string{"date"}, map[string]string{"delta.enableDeletionVectors": "true"}),
		deltagen.Txn("stream-1", 42, 1_700_000_000_000),
		deltagen.DomainMetadata("delta.rowTracking", `{"rowIdHighWaterMark":7}`, false),
	}
	for i := range partsTableAdds {
		var date *string
		if i%11 != 0 {
			date = deltagen.Str(fmt.Sprintf("2024-01-%02d", i%28+1))
		}
		// Fixed names, so that a fuzz input meets the same pages each run.
		path := fmt.Sprintf("date=%s/part-%05d-%08x-97f3-4c1d-8b2e-%012x.c000.snappy.parquet", deref(date), i, uint32(i*2654435761), uint64(i)*0x9e3779b97f4a7c15>>16)
		stats := ""
		if i%5 != 0 {
			stats = deltagen.Stats(int64(i), int64(i+100))
		}
		pv := map[string]*string{"date": date}
		if i%7 == 0 {
			dv := action.DeletionVector{StorageType: "u", PathOrInlineDv: fmt.Sprintf("ab^-aZ!%013d", i), SizeInBytes: 40, Cardinality: int64(i%9 + 1)}
			off := int32(i % 100)
			dv.Offset = &off
			acts = append(acts, deltagen.AddFileDV(path, int64(1000+i), int64(1_700_000_000_000+i), pv, stats, dv))
			continue
		}
		acts = append(acts, deltagen.AddFile(path, int64(1000+i), int64(1_700_000_000_000+i), pv, stats))
	}
	return commitAndCheckpoint(t, dir, acts, deltagen.WithRowGroupRows(1<<20), deltagen.WithPageBytes(16<<10), deltagen.WithDataPageVersion(pageVersion))
}

// commitAndCheckpoint commits acts as version 0 of a table under dir and
// returns its classic checkpoint.
func commitAndCheckpoint(t testing.TB, dir string, acts []action.Action, opts ...deltagen.CheckpointOption) Checkpoint {
	t.Helper()
	tb := deltagen.New(dir)
	if _, err := tb.Commit(acts...); err != nil {
		t.Fatal(err)
	}
	info, err := tb.Checkpoint(0, opts...)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(info.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimPrefix(info.Files[0], dir+string(filepath.Separator))
	return Checkpoint{Kind: Classic, Parts: []Part{{Key: key, Size: fi.Size()}}}
}

func deref(s *string) string {
	if s == nil {
		return "__HIVE_DEFAULT_PARTITION__"
	}
	return *s
}

// readWith reads a checkpoint with GOMAXPROCS set to procs: with one, no
// row group is cut in parts.
func readWith(t testing.TB, procs int, st Storage, cp Checkpoint, opts Options) (*Result, error) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	return Read(context.Background(), st, cp, opts)
}

// cutOf is how the first row group of the checkpoint's file is cut on 4
// cores: in how many parts (0: not cut), sharing how many columns.
func cutOf(t testing.TB, st Storage, cp Checkpoint, details Detail) (parts, shared int) {
	t.Helper()
	pf, err := fetchParquet(context.Background(), st, cp.Parts[0], details)
	if err != nil {
		t.Fatal(err)
	}
	g := pf.cut(0, partSize(pf.file.NumRows(), 4))
	if g == nil {
		return 0, 0
	}
	return len(g.parts), len(g.shared)
}

// A row group read in parts on several cores gives what it gives read
// whole on one: the same files in the same order, with rows newer
// commits decided dropped, the same deletion vectors, partition values,
// record counts and other actions. Column chunks of v1 pages that repeat
// (partition values) give no rows per page: the parts share them.
func TestRowPartsReadAsWhole(t *testing.T) {
	limit := wholeFileLimit
	t.Cleanup(func() { wholeFileLimit = limit })
	for _, version := range []int{1, 2} {
		dir := t.TempDir()
		cp := partsCheckpoint(t, dir, version)
		st := dirStorage(dir)
		whole, err := readWith(t, 1, st, cp, Options{Root: "file:///t"})
		if err != nil {
			t.Fatal(err)
		}
		seen := NewSeen(0)
		for i := 0; i < len(whole.Files); i += 97 {
			seen.Add(whole.Files[i].Path, whole.Files[i].DV.UniqueID())
		}
		for _, details := range []Detail{NoDetails, Partitions, AllDetails} {
			name := fmt.Sprintf("v%d pages, details %d", version, details)
			wholeFileLimit = limit
			if details == Partitions {
				// The footer first, then the column chunks, as a file
				// bigger than wholeFileLimit is read.
				wholeFileLimit = 0
				name += ", read in ranges"
			}
			parts, shared := cutOf(t, st, cp, details)
			wantShared := 0
			if version == 1 && details != NoDetails {
				wantShared = 2 // partition keys and values
			}
			if parts < 2 || shared != wantShared {
				t.Errorf("%s: cut in %d parts sharing %d columns, want 2 or more sharing %d", name, parts, shared, wantShared)
			}
			for _, s := range []*Seen{nil, seen} {
				opts := Options{Root: "file:///t", Details: details, Seen: s, Reserve: 3}
				want, err := readWith(t, 1, st, cp, opts)
				if err != nil {
					t.Fatal(err)
				}
				got, err := readWith(t, 4, st, cp, opts)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(want.Files) != partsTableAdds-s.Len() {
					t.Fatalf("%s: %d files read whole, want %d", name, len(want.Files), partsTableAdds-s.Len())
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s, seen %d: the parts read otherwise than the whole", name, s.Len())
				}
				if cap(got.Files)-len(got.Files) < opts.Reserve {
					t.Errorf("%s: room for %d more files, want %d", name, cap(got.Files)-len(got.Files), opts.Reserve)
				}
			}
		}
	}
}

// withHeaders returns a copy of the Parquet file data in which the
// headers of pages from and to of the column chunk chunk (all taken
// modulo what there is) claim delta more and delta fewer values, or rows
// (a v2 page), and whether the headers kept their lengths, so that
// nothing else moves.
func withHeaders(t testing.TB, data []byte, details Detail, chunk, from, to int, values bool, delta int32) ([]byte, bool) {
	t.Helper()
	pf, err := fetchParquet(context.Background(), bytesStorage(data), Part{Key: "cp", Size: int64(len(data))}, details)
	if err != nil {
		t.Fatal(err)
	}
	cols := pf.cols.all()
	col := cols[chunk%len(cols)]
	pages := pf.pages[chunkID{0, col.Index()}]
	md := pf.file.Metadata().RowGroups[0].Columns[col.Index()].MetaData
	base := md.DataPageOffset
	if md.DictionaryPageOffset > 0 {
		base = min(base, md.DictionaryPageOffset)
	}
	out := bytes.Clone(data)
	for _, change := range []struct{ page, delta int }{{from, int(delta)}, {to, -int(delta)}} {
		at := int(base) + pages[change.page%len(pages)].start
		r := bytes.NewReader(data[at:])
		var proto thrift.CompactProtocol
		var h format.PageHeader
		if err := thrift.NewDecoder(proto.NewReader(r)).Decode(&h); err != nil {
			t.Fatal(err)
		}
		n := len(data[at:]) - r.Len()
		d := int32(change.delta)
		switch {
		case h.DataPageHeaderV2.Valid && values:
			h.DataPageHeaderV2.V.NumValues += d
		case h.DataPageHeaderV2.Valid:
			h.DataPageHeaderV2.V.NumRows += d
		case h.DataPageHeader.Valid:
			h.DataPageHeader.V.NumValues += d
		default:
			return nil, false
		}
		enc, err := thrift.Marshal(&proto, &h)
		if err != nil || len(enc) != n {
			return nil, false
		}
		copy(out[at:], enc)
	}
	return out, true
}

// partsFiles are the bytes of partsCheckpoint's file in v1 and v2 pages,
// made once.
var partsFiles = sync.OnceValue(func() [2][]byte {
	var out [2][]byte
	for i, version := range []int{1, 2} {
		dir, err := os.MkdirTemp("", "rowparts")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(dir)
		cp := partsCheckpoint(&testing.T{}, dir, version)
		if out[i], err = os.ReadFile(filepath.Join(dir, cp.Parts[0].Key)); err != nil {
			panic(err)
		}
	}
	return out
})

// FuzzRowPartHeaders moves rows or values between two page headers of a
// column chunk, so that they still add up to the row group's: read in
// parts, the checkpoint must give an error or what it gives read whole,
// and an error when the whole read gives one. Rows out of place would be
// a wrong answer.
func FuzzRowPartHeaders(f *testing.F) {
	f.Add(true, false, uint8(3), uint16(1), uint16(2), int16(1))  // partition keys, v2: rows
	f.Add(true, false, uint8(3), uint16(2), uint16(5), int16(-1)) // the same, the other way
	f.Add(false, true, uint8(0), uint16(1), uint16(2), int16(1))  // add.path, v1: values
	f.Add(true, true, uint8(1), uint16(3), uint16(4), int16(-2))  // add.size, v2: values
	f.Fuzz(func(t *testing.T, v2, values bool, chunk uint8, from, to uint16, delta int16) {
		files := partsFiles()
		data := files[0]
		if v2 {
			data = files[1]
		}
		bad, ok := withHeaders(t, data, Partitions, int(chunk), int(from), int(to), values, int32(delta))
		if !ok || delta == 0 || from == to {
			t.Skip("no change, or a header changes length")
		}
		st, cp := bytesStorage(bad), Checkpoint{Kind: Classic, Parts: []Part{{Key: "cp", Size: int64(len(bad))}}}
		opts := Options{Root: "file:///t", Details: Partitions}
		whole, werr := readWith(t, 1, st, cp, opts)
		parts, perr := readWith(t, 4, st, cp, opts)
		switch {
		case werr != nil && perr == nil:
			t.Fatalf("read whole: %v; in parts: no error", werr)
		case werr == nil && perr == nil && !reflect.DeepEqual(parts, whole):
			t.Fatal("the parts read otherwise than the whole")
		}
	})
}

// Partition values come out as written, whatever the number of partition
// columns: up to eight are interned by their dictionary codes, more by
// their strings.
func TestPartitionValuesRead(t *testing.T) {
	for _, cols := range []int{1, 2, 4, 8, 9} {
		dir := t.TempDir()
		want := map[string]map[string]*string{}
		acts := []action.Action{deltagen.Protocol(1, 2, nil, nil), deltagen.Metadata(deltagen.SimpleSchema, nil, nil)}
		for i := range 300 {
			pv := map[string]*string{}
			for c := range cols {
				if (i+c)%13 != 0 { // now and then a null
					pv[fmt.Sprintf("p%d", c)] = deltagen.Str(fmt.Sprint((i / (c + 1)) % 5))
				} else {
					pv[fmt.Sprintf("p%d", c)] = nil
				}
			}
			path := fmt.Sprintf("f-%03d.parquet", i)
			want[path] = pv
			acts = append(acts, deltagen.AddFile(path, 1, 1, pv, ""))
		}
		cp := commitAndCheckpoint(t, dir, acts)
		res, err := Read(context.Background(), dirStorage(dir), cp, Options{Root: "file:///t", Details: Partitions})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Files) != len(want) {
			t.Fatalf("%d columns: %d files, want %d", cols, len(res.Files), len(want))
		}
		for i, f := range res.Files {
			got := map[string]*string{}
			for _, v := range res.Partitions[i].Values {
				got[v.Column] = nil
				if !v.Null {
					got[v.Column] = deltagen.Str(v.Value)
				}
			}
			if !reflect.DeepEqual(got, want[f.Path]) {
				t.Errorf("%d columns: %s has %v, want %v", cols, f.Path, got, want[f.Path])
			}
		}
	}
}

// Row groups are cut only where whole ones would keep a core busy a fifth
// longer than an even share.
func TestUnbalanced(t *testing.T) {
	for _, c := range []struct {
		rows    []int64
		workers int
		want    bool
	}{
		{[]int64{1_000_000}, 2, true},
		{[]int64{1_000_000}, 1, false},
		{[]int64{131072, 118928}, 2, false}, // a writer's 128Ki row groups
		{[]int64{62500, 62500, 62500, 62500}, 2, false},
		{[]int64{400_000, 400_000, 400_000}, 2, true}, // two rounds for one and a half
		{[]int64{400_000, 400_000, 400_000}, 4, true},
		{[]int64{131072, 131072, 131072, 131072, 131072, 131072, 131072, 131072}, 2, false},
		{[]int64{900_000, 10, 10}, 2, true},
	} {
		if got := unbalanced(c.rows, c.workers); got != c.want {
			t.Errorf("unbalanced(%v, %d) = %v, want %v", c.rows, c.workers, got, c.want)
		}
	}
}
