package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/fs"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/tests/deltagen"
)

// TestMountFileClaimingBillionsOfRows: a 2 MB data file whose pages claim
// 2^36 null rows, half of them deleted by an inline vector of 7.4 MB,
// reads through the mount as a file of the rows kept, built run by run (row
// by row, the deleted rows alone took 256 GiB, and the mount died of it);
// a small one of such runs reads right in pyarrow.
func TestMountFileClaimingBillionsOfRows(t *testing.T) {
	dir := t.TempDir()
	gen := deltagen.New(dir)
	addFile := func(name string, pages int, dict bool, runs ...[2]uint64) action.Action {
		t.Helper()
		data, err := deltagen.ClaimingFile(pages, dict)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		dv, err := deltagen.InlineDVRuns(runs...)
		if err != nil {
			t.Fatal(err)
		}
		return deltagen.AddFileDV(name, int64(len(data)), 1_700_000_000_000, nil, "", dv)
	}
	const bigRows = 1 << 36
	bigDeleted := [][2]uint64{{1, 1 << 35}, {1<<35 + 5, 1<<35 + 9}, {bigRows - 3, bigRows}}
	smallDeleted := [][2]uint64{{0, 2}, {1<<19 - 1, 1<<19 + 1}, {1<<20 - 3, 1<<20 + 4}, {3<<20 - 1, 3 << 20}}
	schema := `{"type":"struct","fields":[{"name":"x","type":"long","nullable":true,"metadata":{}}]}`
	mustCommit(t, gen, deltagen.Protocol(3, 7, []string{"deletionVectors"}, []string{"deletionVectors"}),
		deltagen.Metadata(schema, nil, map[string]string{"delta.enableDeletionVectors": "true"}),
		addFile("big.parquet", bigRows/deltagen.ClaimsPerPage, false, bigDeleted...),
		addFile("small.parquet", 3, true, smallDeleted...))
	count := func(runs [][2]uint64) int64 {
		var n int64
		for _, r := range runs {
			n += int64(r[1] - r[0])
		}
		return n
	}

	m := mountForTest(t, dir, fs.Options{})
	big, err := os.ReadFile(filepath.Join(m.dir, "latest", "big.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(big), int64(len(big)))
	if err != nil {
		t.Fatal(err)
	}
	if want := bigRows - count(bigDeleted); f.NumRows() != want {
		t.Fatalf("big.parquet serves %d rows, want %d", f.NumRows(), want)
	}

	small := filepath.Join(m.dir, "latest", "small.parquet")
	py := pythonOrSkip(t)
	script := `
import sys, pyarrow.parquet as pq
x = pq.read_table(sys.argv[1]).column("x").to_pylist()
print(len(x), x.count(7), x.count(9), x.count(None))
`
	out, err := exec.Command(py, "-c", script, small).CombinedOutput()
	if err != nil {
		t.Fatalf("pyarrow: %v\n%s", err, out)
	}
	// Half h of the file (2^19 rows) holds 7 where h + h/2 is even (see
	// deltagen.ClaimingFile), else 9.
	var sevens, nines int64
	gone := smallDeleted
	for half := int64(0); half < 6; half++ {
		lo, hi := half<<19, (half+1)<<19
		n := hi - lo
		for _, r := range gone {
			n -= max(0, min(int64(r[1]), hi)-max(int64(r[0]), lo))
		}
		if (half+half/2)%2 == 0 {
			sevens += n
		} else {
			nines += n
		}
	}
	want := fmt.Sprintf("%d %d %d 0", sevens+nines, sevens, nines)
	if got := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("pyarrow reads %q (rows, 7s, 9s, nulls), want %q", got, want)
	}
}
