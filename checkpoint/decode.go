package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/replay/prefault"
)

// groupJob is one row group of one fetched Parquet file.
type groupJob struct {
	pf    *parquetFile
	rg    parquet.RowGroup
	index int      // in its file
	part  *rowPart // the rows decoded, nil for all (rowparts.go)
	paths *leaf    // the add.path column, read first
	start int      // where its files go in the result
	kept  int      // how many it put there
	res   Result
}

// decodeParquets decodes the fetched files' rows after head (the top of a
// v2 JSON checkpoint) into one result, in file order.
//
// It decodes in two passes over the row groups (big ones in parts, see
// rowparts.go), each in parallel. The first reads only the add.path
// column, which tells how many files each row group holds; then one slice
// is allocated for all of them, and the second pass decodes each row
// group straight into its window. Joining per-row-group slices instead
// allocated, cleared and copied every File twice, a tenth of building a
// snapshot.
func decodeParquets(ctx context.Context, head *Result, files []*parquetFile, opts Options) (*Result, error) {
	var jobs []*groupJob
	var groupRows []int64
	totalRows := int64(0)
	for _, pf := range files {
		for _, rg := range pf.file.RowGroups() {
			groupRows = append(groupRows, rg.NumRows())
			totalRows += rg.NumRows()
		}
	}
	workers := runtime.GOMAXPROCS(0)
	cutting := unbalanced(groupRows, workers)
	for _, pf := range files {
		for i, rg := range pf.file.RowGroups() {
			var g *cutGroup
			if cutting {
				g = pf.cut(i, partSize(totalRows, workers))
			}
			if g == nil {
				jobs = append(jobs, &groupJob{pf: pf, rg: rg, index: i})
				continue
			}
			for k := range g.parts {
				jobs = append(jobs, &groupJob{pf: pf, rg: rg, index: i, part: &g.parts[k]})
			}
		}
	}
	err := forEachJob(ctx, jobs, func(j *groupJob, _ *leafPool) error {
		if j.pf.cols.addPath == nil {
			return nil
		}
		if j.part != nil && j.part.lo == 0 {
			if err := j.part.group.readShared(j.rg, j.pf.cols); err != nil {
				return err
			}
		}
		var err error
		j.paths, err = j.readLeaf(j.pf.cols.addPath, false, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	total := len(head.Files)
	for _, j := range jobs {
		j.start = total
		if j.paths != nil {
			total += j.paths.count()
		}
	}
	out := &Result{Tombstones: head.Tombstones, Actions: head.Actions}
	out.Files = make([]action.File, total, total+opts.Reserve)
	prefault.Slice(out.Files) // before the collector reads it: see prefault
	copy(out.Files, head.Files)
	if opts.Details.partitions() {
		out.NumRecords = append(make([]int64, 0, total), head.NumRecords...)[:total]
		out.Partitions = make([]*action.Partition, total)
		prefault.Slice(out.Partitions)
		copy(out.Partitions, head.Partitions)
	}
	if opts.Details == AllDetails {
		out.NullCounted = append(make([]*action.ColumnSet, 0, total), head.NullCounted...)[:total]
	}
	err = forEachJob(ctx, jobs, func(j *groupJob, pool *leafPool) error {
		return decodeRowGroup(j, out, opts, pool)
	})
	if err != nil {
		return nil, err
	}
	// Rows newer commits decided leave gaps at the ends of the windows.
	n := len(head.Files)
	for _, j := range jobs {
		if j.start != n {
			copy(out.Files[n:], out.Files[j.start:j.start+j.kept])
			if opts.Details.partitions() {
				copy(out.NumRecords[n:], out.NumRecords[j.start:j.start+j.kept])
				copy(out.Partitions[n:], out.Partitions[j.start:j.start+j.kept])
			}
			if out.NullCounted != nil {
				copy(out.NullCounted[n:], out.NullCounted[j.start:j.start+j.kept])
			}
		}
		n += j.kept
		out.Tombstones += j.res.Tombstones
		out.Actions = append(out.Actions, j.res.Actions...)
	}
	clear(out.Files[n:]) // release the paths of dropped rows
	out.Files = out.Files[:n]
	if opts.Details.partitions() {
		out.NumRecords, out.Partitions = out.NumRecords[:n], out.Partitions[:n]
	}
	if out.NullCounted != nil {
		out.NullCounted = out.NullCounted[:n]
	}
	return out, nil
}

// readLeaf reads column col for the job: for a part, its rows of a column
// its group reads in parts, or the leaf its group shares; else the whole
// column chunk.
func (j *groupJob) readLeaf(col *parquet.Column, numRecords bool, pool *leafPool) (*leaf, error) {
	if j.part != nil {
		if j.part.isShared(col) {
			return j.part.group.leaves[col], nil
		}
		if _, inParts := j.part.group.pages[col]; inParts {
			p, err := j.pf.partOf(j.index, col, j.part)
			if err != nil {
				return nil, err
			}
			return readLeaf(j.rg, col, numRecords, pool, &p)
		}
	}
	return readLeaf(j.rg, col, numRecords, pool, nil)
}

// forEachJob runs fn on every job, a worker per CPU, each worker with its
// own pool of leaves. It returns the first error in job order.
func forEachJob(ctx context.Context, jobs []*groupJob, fn func(*groupJob, *leafPool) error) error {
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var pool leafPool
			for i := range next {
				if errs[i] = ctx.Err(); errs[i] == nil {
					errs[i] = fn(jobs[i], &pool)
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			if errors.Is(err, ctx.Err()) {
				return err
			}
			j := jobs[i]
			if j.part != nil {
				return fmt.Errorf("checkpoint %s: row group %d, rows %d-%d: %w", j.pf.key, j.index, j.part.lo, j.part.hi, err)
			}
			return fmt.Errorf("checkpoint %s: row group %d: %w", j.pf.key, j.index, err)
		}
	}
	return nil
}
