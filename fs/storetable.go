package fs

import (
	"context"
	"os"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay/action"
	"github.com/deltafs/deltafs/versions"
	"github.com/deltafs/deltafs/versions/serve"
)

// StoreTable is the Table of a mount of a versions.Table whose objects are
// in Store. It reads files inside the table root (data files named by
// relative paths, deletion vectors stored at absolute paths or URIs, 'p'
// vectors, that lie under the root), and outside it only those under the
// stores of Elsewhere, the locations the user allowed (serve.StoreStorage).
type StoreTable struct {
	*versions.Table
	Store     *blobstore.Store
	Elsewhere []*blobstore.Store
}

func (t StoreTable) storage() serve.StoreStorage {
	return serve.StoreStorage{Store: t.Store, Elsewhere: t.Elsewhere}
}

// ServesExternal says whether a file outside the table root is read: it
// lies under one of Elsewhere.
func (t StoreTable) ServesExternal(path string) bool { return t.storage().Serves(path) }

var _ interface {
	Table
	AbsoluteReader
	LocalFiler
	ExternalServer
	serve.SizedStorage
	serve.IntoStorage
} = StoreTable{}

func (t StoreTable) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	return t.storage().ReadRange(ctx, path, off, n)
}

func (t StoreTable) ReadRangeOf(ctx context.Context, path string, off, n, size int64) ([]byte, error) {
	return t.storage().ReadRangeOf(ctx, path, off, n, size)
}

func (t StoreTable) ReadRangeInto(ctx context.Context, path string, off, size int64, bufs [][]byte) (int64, error) {
	return t.storage().ReadRangeInto(ctx, path, off, size, bufs)
}

func (t StoreTable) LocalFile(path string) (func() (*os.File, int64, error), bool) {
	if action.IsExternal(path) || !t.Store.HasLocalFiles() {
		return nil, false
	}
	return func() (*os.File, int64, error) { return t.Store.OpenLocal(path) }, true
}

func (t StoreTable) HasLocalFiles() bool { return t.Store.HasLocalFiles() }

func (t StoreTable) ReadAbsolute(ctx context.Context, uri string, off, n int64) ([]byte, error) {
	return t.storage().ReadAbsolute(ctx, uri, off, n)
}

func (t StoreTable) History(ctx context.Context) ([]HistoryEntry, error) {
	h, err := t.Table.History(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]HistoryEntry, len(h))
	for i, c := range h {
		out[i] = HistoryEntry{Version: c.Version, Instant: c.Instant, Timestamp: c.Timestamp, Operation: c.Operation,
			Files: c.Files, Added: c.Added, Removed: c.Removed, Error: c.Error}
	}
	return out, nil
}
