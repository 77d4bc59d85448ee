package layout

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/deltafs/deltafs/replay"
)

// WritePaths writes what one sequential pass would, around chunk sizes,
// with the order it is given.
func TestWritePathsMatchesSequential(t *testing.T) {
	for _, n := range []int{0, 1, 8191, 8192, 8193, 5*8192 + 7} {
		files := make([]replay.File, n)
		order := make([]int32, n)
		for i := range files {
			files[i].Path = fmt.Sprintf("p=%d/part-%07d.parquet", i%7, i)
			order[i] = int32(n - 1 - i)
		}
		var got bytes.Buffer
		if err := WritePaths(&got, files, order); err != nil {
			t.Fatal(err)
		}
		if want := appendPaths(nil, files, order); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%d files: %d bytes written, want %d", n, got.Len(), len(want))
		}
	}
}

// failAfter fails every write after the first n.
type failAfter struct{ n int }

var errFull = errors.New("disk full")

func (w *failAfter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errFull
	}
	w.n--
	return len(p), nil
}

// A writer's error ends WritePaths (no worker left waiting) and is
// returned.
func TestWritePathsStopsOnError(t *testing.T) {
	files := make([]replay.File, 40*8192)
	order := make([]int32, len(files))
	for i := range files {
		files[i].Path, order[i] = fmt.Sprint(i), int32(i)
	}
	if err := WritePaths(&failAfter{n: 2}, files, order); !errors.Is(err, errFull) {
		t.Fatalf("err = %v, want %v", err, errFull)
	}
}
