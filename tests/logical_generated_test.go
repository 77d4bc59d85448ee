package tests

import (
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// logicalRowV1 is a row of a column-mapped generated table read by
// logical names, before the rename and the drop.
type logicalRowV1 struct {
	ID   int64                 `parquet:"id"`
	Name *string               `parquet:"name,optional"`
	Gone string                `parquet:"gone"`
	S    logicalS              `parquet:"s"`
	Tags []logicalTag          `parquet:"tags,list"`
	M    map[string]logicalVal `parquet:"m"`
}

// logicalRowV2 is the same row after name was renamed full_name and gone
// dropped.
type logicalRowV2 struct {
	ID       int64                 `parquet:"id"`
	FullName *string               `parquet:"full_name,optional"`
	S        logicalS              `parquet:"s"`
	Tags     []logicalTag          `parquet:"tags,list"`
	M        map[string]logicalVal `parquet:"m"`
}

type logicalS struct {
	X int64  `parquet:"x"`
	Y string `parquet:"y"`
}

type logicalTag struct {
	K string `parquet:"k"`
}

type logicalVal struct {
	V int64 `parquet:"v"`
}

var (
	columnsV1 = "id name gone s.x s.y tags.list.element.k m.key_value.key m.key_value.value.v"
	columnsV2 = "id full_name s.x s.y tags.list.element.k m.key_value.key m.key_value.value.v"
)

// TestLogicalViewGeneratedColumnMapping builds column-mapped tables in both
// modes: nested columns, a column renamed and one dropped at v2, files
// under random prefixes and a stale hive folder, partition values that need
// escaping and a null one, a deletion vector on a renamed file at v3, and
// a v2 checkpoint. Through a real mount each version directory holds the
// logical folders and each file, read by logical names, gives the rows
// written, with the version's names; field ids stay the table's; stat and
// listing cost no request.
func TestLogicalViewGeneratedColumnMapping(t *testing.T) {
	requireFUSE(t)
	for _, mode := range []string{"name", "id"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			gen := deltagen.New(dir)
			other := mode == "id" // id mode: stored names that match nothing, ids that do
			mustCommit(t, gen, deltagen.MappedProtocol(),
				deltagen.Metadata(deltagen.MappedSchema("name", false, true), []string{"part"}, deltagen.MappedConfig(mode)))
			specs := []struct {
				stored, value string
				null          bool
				rows          int
				folder        string
			}{
				{"aB/f1.parquet", "a/b=c%", false, 7, "part=a%2Fb%3Dc%25"},
				{"col-p11=x/f2.parquet", "é ü", false, 5, "part=é ü"},
				{"Zz/f3.parquet", "", true, 4, "part=__HIVE_DEFAULT_PARTITION__"},
			}
			var adds []action.Action
			for _, s := range specs {
				pv := map[string]*string{"col-p11": nil}
				if !s.null {
					pv["col-p11"] = deltagen.Str(s.value)
				}
				a, err := gen.WriteMappedFile(s.stored, s.rows, other, pv)
				if err != nil {
					t.Fatal(err)
				}
				adds = append(adds, a)
			}
			mustCommit(t, gen, adds...)
			mustCommit(t, gen, deltagen.Metadata(deltagen.MappedSchema("full_name", true, true), []string{"part"}, deltagen.MappedConfig(mode)))
			commitDV(t, gen, adds[0], 1, 2)
			if _, err := gen.V2Checkpoint(3, "json", 1); err != nil {
				t.Fatal(err)
			}

			m := mountLayout(t, dir, fs.Options{RefreshInterval: -1})
			for _, v := range []int64{1, 2, 3} {
				vdir := filepath.Join(m.dir, "v", fmt.Sprint(v))
				for i, s := range specs {
					p := filepath.Join(vdir, s.folder, filepath.Base(s.stored))
					deleted := []int64(nil)
					if v == 3 && i == 0 {
						deleted = []int64{1, 2}
					}
					checkMappedFile(t, p, v, s.rows, deleted, mode)
				}
			}
			// Listing and stat of a built version cost no request (name
			// mode: renamed files keep their stored size).
			if mode == "name" {
				before := m.store.Counts()
				n := 0
				err := filepath.WalkDir(filepath.Join(m.dir, "v", "2"), func(p string, d iofs.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						_, err = os.Stat(p)
						n++
					}
					return err
				})
				if err != nil || n != 3 {
					t.Fatalf("walked %d files: %v", n, err)
				}
				if got := m.store.Counts().Sub(before).Requests(); got != 0 {
					t.Errorf("ls -lR of v/2 made %d storage requests, want 0", got)
				}
			}
		})
	}
}

// checkMappedFile reads a served file of the generated table at version v
// by its logical names and checks names, field ids and rows.
func checkMappedFile(t *testing.T, p string, v int64, rows int, deleted []int64, mode string) {
	t.Helper()
	pf, done := openParquet(t, p)
	defer done()
	var cols []string
	for _, c := range pf.Schema().Columns() {
		cols = append(cols, strings.Join(c, "."))
	}
	want := columnsV1
	if v >= 2 {
		want = columnsV2
	}
	if got := strings.Join(cols, " "); got != want {
		t.Errorf("%s: columns %q, want %q", p, got, want)
	}
	ids := map[string]int{}
	for _, f := range pf.Schema().Fields() {
		ids[f.Name()] = f.ID()
	}
	if ids["id"] != 1 || ids["s"] != 4 || ids["m"] != 9 {
		t.Errorf("%s: field ids %v, want the table's (id 1, s 4, m 9)", p, ids)
	}
	var wantIDs []int64
	for i := int64(0); i < int64(rows); i++ {
		if !slices.Contains(deleted, i) {
			wantIDs = append(wantIDs, i)
		}
	}
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if v < 2 {
		got, err := parquet.Read[logicalRowV1](f, info.Size())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for k, r := range got {
			w := deltagen.MappedRowAt(wantIDs[k])
			if r.ID != w.ID || r.Gone != w.Gone || r.S.X != w.S.X || r.S.Y != w.S.Y || !samePtr(r.Name, w.Name) ||
				len(r.Tags) != 2 || r.Tags[0].K != w.Tags[0].K || len(r.M) != 1 || r.M[fmt.Sprintf("m%d", w.ID)].V != 100*w.ID {
				t.Errorf("%s (%s mode): row %d = %+v, want %+v", p, mode, k, r, w)
			}
		}
		if len(got) != len(wantIDs) {
			t.Errorf("%s: %d rows, want %d", p, len(got), len(wantIDs))
		}
		return
	}
	got, err := parquet.Read[logicalRowV2](f, info.Size())
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if len(got) != len(wantIDs) {
		t.Fatalf("%s: %d rows, want %d", p, len(got), len(wantIDs))
	}
	for k, r := range got {
		w := deltagen.MappedRowAt(wantIDs[k])
		if r.ID != w.ID || r.S.X != w.S.X || !samePtr(r.FullName, w.Name) || len(r.Tags) != 2 || r.Tags[0].K != w.Tags[0].K ||
			r.M[fmt.Sprintf("m%d", w.ID)].V != 100*w.ID {
			t.Errorf("%s (%s mode): row %d = %+v, want %+v", p, mode, k, r, w)
		}
	}
}

func samePtr(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
