package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/versions/layout"
	"github.com/deltafs/deltafs/versions/serve"
)

// doctorFiles is what doctor found of the live data files themselves: do
// they exist with the log's size, do their deletion vectors load, and can
// those files be rebuilt without the deleted rows (their footers' codecs).
type doctorFiles struct {
	Checked       int      `json:"checked"`       // files stat'ed (a HEAD each on object stores)
	Sampled       bool     `json:"sampled"`       // only a sample of the live files was checked
	Missing       int      `json:"missing"`       // not in storage
	WrongSize     int      `json:"wrongSize"`     // stored size is not the log's
	Unreadable    int      `json:"unreadable"`    // refused or failing (a link, a FIFO, an error)
	BadVectors    int      `json:"badVectors"`    // deletion vectors that do not load
	Unrebuildable int      `json:"unrebuildable"` // files with deletion vectors that cannot be rebuilt without the deleted rows (their codecs)
	External      int      `json:"external"`      // live files outside the table root (and --allow-external): not served
	ExternalUnder string   `json:"externalUnder"` // the folder those all lie under, if any
	NegativeSizes int      `json:"negativeSizes"` // sizes below 0 in the log
	Examples      []string `json:"examples"`      // the first few problems, one line each
}

// maxFileChecks bounds the files doctor stats, spread evenly over the live
// files sorted by path: a big table gets a sample, said so.
const maxFileChecks = 200

// checkFiles stats a sample of the live files it serves (and loads their
// deletion vectors) through st, 16 at a time.
func checkFiles(ctx context.Context, st serve.StoreStorage, snap *replay.Snapshot) doctorFiles {
	var r doctorFiles
	r.External, r.ExternalUnder = unserved(snap.Files, st.Serves)
	var inside []*replay.File
	for i := range snap.Files {
		f := &snap.Files[i]
		switch {
		case !st.Serves(f.Path): // counted above
		case f.Size < 0:
			r.NegativeSizes++
			r.note(fmt.Sprintf("%s: size %d in the log", f.Path, f.Size))
		default:
			inside = append(inside, f)
		}
	}
	sample := spread(inside, maxFileChecks)
	r.Sampled = len(sample) < len(inside)
	vectors := serve.VectorStorage(st)
	// Each check writes its own slot; problems are counted and noted in
	// path order afterwards, so that the examples do not depend on which
	// check finished first.
	type result struct {
		problem string
		kind    func(*doctorFiles) *int
	}
	results := make([]result, len(sample))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	checked := 0
	for i, f := range sample {
		if ctx.Err() != nil {
			break
		}
		checked++
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i].problem, results[i].kind = checkFile(ctx, st, vectors, f)
		}()
	}
	wg.Wait()
	r.Checked = checked
	for _, res := range results[:checked] {
		if res.problem != "" {
			*res.kind(&r)++
			r.note(res.problem)
		}
	}
	return r
}

// checkFile returns what is wrong with one live file, and the counter it
// goes to, or "".
func checkFile(ctx context.Context, st serve.StoreStorage, vectors serve.Storage, f *replay.File) (string, func(*doctorFiles) *int) {
	o, err := st.Stat(ctx, f.Path)
	switch {
	case errors.Is(err, blobstore.ErrNotFound):
		return fmt.Sprintf("%s: missing from storage", f.Path), func(r *doctorFiles) *int { return &r.Missing }
	case err != nil:
		return fmt.Sprintf("%s: %v", f.Path, err), func(r *doctorFiles) *int { return &r.Unreadable }
	case o.Size != f.Size:
		return fmt.Sprintf("%s: %d bytes stored, the log says %d", f.Path, o.Size, f.Size), func(r *doctorFiles) *int { return &r.WrongSize }
	}
	if f.DV != nil {
		v, err := dvfilter.Load(ctx, vectors, f.DV)
		if err == nil {
			err = dvfilter.Check(v, f.DV)
		}
		if err != nil {
			return fmt.Sprintf("%s: deletion vector: %v", f.Path, err), func(r *doctorFiles) *int { return &r.BadVectors }
		}
		footer := parquetview.RangeReaderFunc(func(ctx context.Context, off, n int64) ([]byte, error) {
			return st.ReadRange(ctx, f.Path, off, n)
		})
		if err := parquetview.CheckRebuild(ctx, footer, f.Size); err != nil {
			return fmt.Sprintf("%s: cannot be served without its deleted rows: %v", f.Path, err), func(r *doctorFiles) *int { return &r.Unrebuildable }
		}
	}
	return "", nil
}

// spread returns at most n of files, sorted by path, spread evenly over
// them (a big table gets a sample).
func spread(files []*replay.File, n int) []*replay.File {
	slices.SortFunc(files, func(a, b *replay.File) int { return strings.Compare(a.Path, b.Path) })
	if len(files) <= n {
		return files
	}
	sample := make([]*replay.File, n)
	for i := range sample {
		sample[i] = files[i*len(files)/n]
	}
	return sample
}

// note keeps the first few problems as examples.
func (r *doctorFiles) note(line string) {
	if len(r.Examples) < 5 {
		r.Examples = append(r.Examples, line)
	}
}

// problems counts the files a mount cannot serve as the log says.
func (r *doctorFiles) problems() int {
	return r.Missing + r.WrongSize + r.Unreadable + r.BadVectors + r.Unrebuildable + r.NegativeSizes
}

// addSize adds a file size to a total, saturating instead of overflowing
// (a log may carry any number) and skipping negative sizes.
func addSize(total, size int64) int64 {
	if size < 0 {
		return total
	}
	if total > math.MaxInt64-size {
		return math.MaxInt64
	}
	return total + size
}

// notShown lists, one line each, the live files of a layout that a mount
// does not show although they lie in the table (their served names are
// longer than a file system allows): readers of the mount miss their rows.
// Files outside the table are counted as external.
func notShown(lay *layout.Version) []string {
	var out []string
	for _, h := range lay.Hidden {
		if !action.IsExternal(h.Path) {
			out = append(out, h.Path+": "+h.Why)
		}
	}
	return out
}
