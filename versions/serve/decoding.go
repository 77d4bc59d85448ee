package serve

import (
	"context"

	"golang.org/x/sync/semaphore"
)

// decodingBytes is the memory the views being built share for their
// decoded footers (parquetview.BuildOptions.Decoding): footers of a few
// hundred KB build sixteen at a time, a wide table's of megabytes one or
// two at a time, and one that needs more than all of it builds alone.
const decodingBytes = 128 << 20

// decodingBudget is a parquetview.Budget of size bytes.
type decodingBudget struct {
	sem  *semaphore.Weighted
	size int64
}

func newDecodingBudget(size int64) *decodingBudget {
	return &decodingBudget{sem: semaphore.NewWeighted(size), size: size}
}

// Acquire takes n bytes, or the whole budget for more than it holds.
func (b *decodingBudget) Acquire(ctx context.Context, n int64) error {
	return b.sem.Acquire(ctx, min(n, b.size))
}

func (b *decodingBudget) Release(n int64) { b.sem.Release(min(n, b.size)) }
