package deltagen

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// openParquet opens a Parquet file for the test's lifetime.
func openParquet(t *testing.T, name string) *parquet.File {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return pf
}

// readRows reads every row of a Parquet file as T.
func readRows[T any](t *testing.T, name string) []T {
	t.Helper()
	pf := openParquet(t, name)
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	out := make([]T, 0, pf.NumRows())
	buf := make([]T, 256)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if int64(len(out)) != pf.NumRows() {
		t.Fatalf("%s: read %d rows, footer says %d", name, len(out), pf.NumRows())
	}
	return out
}

// columnPaths lists the dotted leaf column paths of a file's schema.
func columnPaths(pf *parquet.File) []string {
	var out []string
	for _, p := range pf.Schema().Columns() {
		out = append(out, strings.Join(p, "."))
	}
	return out
}

// wantColumns fails unless every path in want is a leaf column of pf.
func wantColumns(t *testing.T, pf *parquet.File, want ...string) {
	t.Helper()
	have := columnPaths(pf)
	for _, w := range want {
		if !slices.Contains(have, w) {
			t.Errorf("missing column %s; have %v", w, have)
		}
	}
}

// nonNullColumns counts the top-level action columns set in a row.
func nonNullColumns(r cpV2Row) int {
	n := 0
	for _, set := range []bool{r.Txn != nil, r.Add != nil, r.Remove != nil, r.MetaData != nil,
		r.Protocol != nil, r.DomainMetadata != nil, r.CheckpointMetadata != nil, r.Sidecar != nil} {
		if set {
			n++
		}
	}
	return n
}

func v1AsV2(rows []cpRow) []cpV2Row {
	out := make([]cpV2Row, len(rows))
	for i, r := range rows {
		out[i] = cpV2Row{Txn: r.Txn, Add: r.Add, Remove: r.Remove, MetaData: r.MetaData, Protocol: r.Protocol, DomainMetadata: r.DomainMetadata}
	}
	return out
}

// checkOneActionPerRow fails unless every row sets exactly one action column.
func checkOneActionPerRow(t *testing.T, rows []cpV2Row) {
	t.Helper()
	for i, r := range rows {
		if n := nonNullColumns(r); n != 1 {
			t.Errorf("row %d has %d non-null action columns", i, n)
		}
	}
}

// addPaths are the add paths of rows, sorted.
func addPaths(rows []cpV2Row) []string {
	var out []string
	for _, r := range rows {
		if r.Add != nil {
			out = append(out, r.Add.Path)
		}
	}
	slices.Sort(out)
	return out
}
