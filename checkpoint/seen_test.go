package checkpoint

import (
	"fmt"
	"testing"

	"github.com/deltafs/deltafs/replay/action"
)

// TestSeenGrows adds enough files to make the hash filter grow several
// times: every file added is still found, with and without its deletion
// vector, and files never added are not.
func TestSeenGrows(t *testing.T) {
	s := NewSeen(0)
	dv := &action.DeletionVector{StorageType: "u", PathOrInlineDv: "ab", SizeInBytes: 1, Cardinality: 1}
	for i := 0; i < 5000; i++ {
		if !s.Add(fmt.Sprintf("p/%d.parquet", i), "") {
			t.Fatalf("file %d added twice", i)
		}
		if i%10 == 0 && !s.Add(fmt.Sprintf("p/%d.parquet", i), dv.UniqueID()) {
			t.Fatalf("file %d with a DV added twice", i)
		}
	}
	if s.Add("p/7.parquet", "") {
		t.Error("a file added again reported new")
	}
	for i := 0; i < 5000; i++ {
		p := fmt.Sprintf("p/%d.parquet", i)
		if !s.Has(p, nil) {
			t.Fatalf("%s not found", p)
		}
		if s.Has(p, dv) != (i%10 == 0) {
			t.Fatalf("%s with a DV: found %v", p, !(i%10 == 0))
		}
		if s.Has(fmt.Sprintf("q/%d.parquet", i), nil) {
			t.Fatalf("q/%d.parquet found, never added", i)
		}
	}
	if s.Len() != 5500 {
		t.Errorf("Len %d, want 5500", s.Len())
	}
	var none *Seen
	if none.Has("p/1.parquet", nil) || none.Len() != 0 {
		t.Error("a nil set is not empty")
	}
}
