package deltagen

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteDataFile(t *testing.T) {
	tb := New(t.TempDir())
	rel := "date=2024-01-01/a b:c%d.parquet"
	a, err := tb.DataFileAdd(rel, 1000, 4, map[string]*string{"date": Str("2024-01-01")})
	if err != nil {
		t.Fatal(err)
	}
	if want := "date=2024-01-01/a%20b%3Ac%25d.parquet"; a.Add.Path != want {
		t.Errorf("add path %q, want %q", a.Add.Path, want)
	}
	name := filepath.Join(tb.Dir, "date=2024-01-01", "a b:c%d.parquet")
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != a.Add.Size || fi.ModTime().UnixMilli() != a.Add.ModificationTime {
		t.Errorf("add size/mtime %d/%d, file %d/%d", a.Add.Size, a.Add.ModificationTime, fi.Size(), fi.ModTime().UnixMilli())
	}
	pf := openParquet(t, name)
	if len(pf.RowGroups()) != 4 {
		t.Errorf("%d row groups, want 4", len(pf.RowGroups()))
	}
	wantColumns(t, pf, "id", "value")
	rows := readRows[dataRow](t, name)
	if len(rows) != 1000 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		if r.ID != int64(i) || r.Value != RowValue(int64(i)) {
			t.Fatalf("row %d = %+v", i, r)
		}
	}
}

func TestEncodePath(t *testing.T) {
	for in, want := range map[string]string{
		"part-0.parquet":          "part-0.parquet",
		"x=a b/y=1/f.parquet":     "x=a%20b/y=1/f.parquet",
		"p=%3A/f+g#h?.parquet":    "p=%253A/f%2Bg%23h%3F.parquet",
		"é.parquet":               "%C3%A9.parquet",
		"date=2024-01-01/a~_.bin": "date=2024-01-01/a~_.bin",
	} {
		if got := EncodePath(in); got != want {
			t.Errorf("EncodePath(%q) = %q, want %q", in, got, want)
		}
	}
}
