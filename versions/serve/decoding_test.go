package serve

import (
	"context"
	"testing"
)

// TestDecodingBudget: a build that needs more than the whole budget takes
// all of it and runs alone; the budget is whole again once given back.
func TestDecodingBudget(t *testing.T) {
	b := newDecodingBudget(100)
	if err := b.Acquire(context.Background(), 1000); err != nil {
		t.Fatal(err)
	}
	if b.sem.TryAcquire(1) {
		t.Error("a second build ran beside one that took the whole budget")
	}
	b.Release(1000)
	if !b.sem.TryAcquire(100) {
		t.Error("the budget was not given back whole")
	}
}
