package main

import (
	"context"
	"io"
	"os"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/versions/serve"
)

// servedSizes computes what a mount serves for files that are views
// (deletion vectors, renamed or filled columns), with the same
// serve.Files a mount reads through, over the table's store. The sizes
// are asked for in the order ls prints them, and read ahead as a
// mount's listing reads them.
type servedSizes struct {
	st    *blobstore.Store
	files *serve.Files
	order []serve.Sized // the files whose size is asked for, in order
	next  int           // the index in order of the next size asked for
	ahead int           // order[:ahead] have been asked for ahead
}

// sizesAhead is how many sizes past the one asked for are read ahead.
const sizesAhead = 64

// newServedSizes opens the table at location for the sizes of files,
// and of those outside it under elsewhere (set order before asking for
// them); retries are logged on stderr.
func newServedSizes(ctx context.Context, location string, elsewhere []*blobstore.Store, stderr io.Writer) (*servedSizes, error) {
	st, err := blobstore.Open(ctx, location, retryLog(stderr))
	if err != nil {
		return nil, err
	}
	storage := serve.StoreStorage{Store: st, Elsewhere: elsewhere}
	return &servedSizes{st: st, files: serve.New(ctx, storage, serve.Options{SpillDir: os.TempDir()})}, nil
}

func (s *servedSizes) Close() {
	if s != nil {
		s.files.Close()
		s.st.Close()
	}
}

// nextSize returns the served size of the next file of the order.
func (s *servedSizes) nextSize(ctx context.Context) (int64, error) {
	if s.ahead < s.next+sizesAhead/2 {
		to := min(s.next+1+sizesAhead, len(s.order))
		s.files.SizeAhead(s.order[min(max(s.ahead, s.next+1), to):to])
		s.ahead = to
	}
	f := s.order[s.next]
	s.next++
	return s.files.ServedSize(ctx, f)
}
