package parquetview

import (
	"context"
	"testing"

	"github.com/parquet-go/parquet-go/compress/snappy"

	"github.com/deltafs/deltafs/dvfilter"
)

// recordingBudget records what builds take of it.
type recordingBudget struct{ taken, given []int64 }

func (b *recordingBudget) Acquire(_ context.Context, n int64) error {
	b.taken = append(b.taken, n)
	return nil
}

func (b *recordingBudget) Release(n int64) { b.given = append(b.given, n) }

// TestBuildTakesDecodingBudget: a build holds memory for its decoded
// footer, in proportion to the footer, and gives it back.
func TestBuildTakesDecodingBudget(t *testing.T) {
	data := writeGroups(t, &snappy.Codec{}, 100, 100)
	budget := &recordingBudget{}
	src := &bytesSource{data: data}
	if _, err := Build(context.Background(), src, int64(len(data)), dvfilter.NewVector(3), BuildOptions{Decoding: budget}); err != nil {
		t.Fatal(err)
	}
	footer, err := footerBytes(context.Background(), src, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := footer.decodeBytes()
	if len(budget.taken) != 1 || budget.taken[0] != want || len(budget.given) != 1 || budget.given[0] != want {
		t.Errorf("took %v, gave back %v; want %d each once", budget.taken, budget.given, want)
	}
}
