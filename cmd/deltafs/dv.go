package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/dvfilter/parquetview"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/versions/serve"
)

// servedSizes computes what a mount serves for files that are views
// (deletion vectors, renamed columns): the same serve.Files a mount reads
// through, over the table's store.
type servedSizes struct {
	st    *blobstore.Store
	files *serve.Files
}

func newServedSizes(ctx context.Context, location string) (*servedSizes, error) {
	st, err := blobstore.Open(ctx, location)
	if err != nil {
		return nil, err
	}
	return &servedSizes{st: st, files: serve.New(ctx, serve.StoreStorage{Store: st}, serve.Options{SpillDir: os.TempDir()})}, nil
}

func (s *servedSizes) Close() {
	s.files.Close()
	s.st.Close()
}

// servedSize returns the served size of f, whose columns rn renames, for
// `ls --json`, opening *s on first use. A file that cannot be served gets
// no size and a line on stderr; only a failure to open the table is an
// error.
func servedSize(ctx context.Context, s **servedSizes, location string, f *action.File, rn *parquetview.Rename, stderr io.Writer) (*int64, error) {
	if *s == nil {
		ss, err := newServedSizes(ctx, location)
		if err != nil {
			return nil, err
		}
		*s = ss
	}
	n, err := (*s).files.ServedSize(ctx, f, rn, false)
	if err != nil {
		fmt.Fprintf(stderr, "deltafs ls: %s: no servedSize: %v\n", f.Path, err)
		return nil, nil
	}
	return &n, nil
}
