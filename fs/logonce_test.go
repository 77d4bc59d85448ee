package fs

import (
	"fmt"
	"testing"
)

// TestSaidLines: a line is said once; past saidMax lines the set starts
// again, so a line may be said twice, and none goes unsaid.
func TestSaidLines(t *testing.T) {
	var s saidLines
	if !s.first("a") || s.first("a") || !s.first("b") {
		t.Fatal("a line said twice, or a new one not said")
	}
	for i := range saidMax {
		s.first(fmt.Sprint(i))
	}
	if !s.first("a") {
		t.Error("the set did not start again once full")
	}
}
