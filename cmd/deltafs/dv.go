package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/dvfilter"
	"github.com/deltafs/deltafs/replay/action"
)

// dvStore reads data and deletion vector files of a table for dvfilter.
type dvStore struct{ st *blobstore.Store }

func (s dvStore) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if strings.HasPrefix(key, "/") || action.IsExternal(key) {
		k, err := action.KeyUnder(key, s.st.Location())
		if err != nil {
			return nil, fmt.Errorf("deletion vector %s: %w", key, err)
		}
		key = k
	}
	return s.st.ReadRange(ctx, key, off, n)
}

// servedSizes computes what a mount serves for files with deletion vectors:
// the size of the filtered view, built the same way the mount builds it.
type servedSizes struct {
	st    *blobstore.Store
	views *dvfilter.Views
}

func newServedSizes(ctx context.Context, location string) (*servedSizes, error) {
	st, err := blobstore.Open(ctx, location)
	if err != nil {
		return nil, err
	}
	s := dvStore{st}
	return &servedSizes{st: st, views: dvfilter.NewViews(s, s, dvfilter.ViewsOptions{
		Build: dvfilter.BuildOptions{SpillDir: os.TempDir()},
	})}, nil
}

// size is the served size of f, whose columns rn renames (nil: none): the
// size of its view with a deletion vector or renamed columns, its stored
// size without.
func (s *servedSizes) size(ctx context.Context, f *action.File, rn *dvfilter.Rename) (int64, error) {
	if f.DV == nil && rn == nil {
		return f.Size, nil
	}
	v, err := s.views.Get(ctx, f, rn)
	if err != nil {
		return 0, err
	}
	return v.Size(), nil
}

func (s *servedSizes) Close() {
	s.views.Close()
	s.st.Close()
}

// servedSize returns the served size of f for `ls --json`, opening *s on
// first use. A file that cannot be served gets no size and a line on
// stderr; only a failure to open the table is an error.
func servedSize(ctx context.Context, s **servedSizes, location string, f *action.File, rn *dvfilter.Rename, stderr io.Writer) (*int64, error) {
	if *s == nil {
		ss, err := newServedSizes(ctx, location)
		if err != nil {
			return nil, err
		}
		*s = ss
	}
	n, err := (*s).size(ctx, f, rn)
	if err != nil {
		fmt.Fprintf(stderr, "deltafs ls: %s: no servedSize: %v\n", f.Path, err)
		return nil, nil
	}
	return &n, nil
}
