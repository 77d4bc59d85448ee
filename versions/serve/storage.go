package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay/action"
)

// Storage reads a table's objects.
type Storage interface {
	// ReadRange reads n bytes at off of the object at path (a
	// replay.File.Path, or a deletion vector's relative key); fewer only
	// at its end.
	ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error)
}

// SizedStorage is a Storage that can check, at no extra request, that a
// data file is still the size the log gives (ReadRangeOf: the object's
// size comes with every ranged answer). Files checks every block it
// fetches, and every range a view is built from, when its Storage is one.
type SizedStorage interface {
	ReadRangeOf(ctx context.Context, path string, off, n, size int64) ([]byte, error)
}

// IntoStorage is a SizedStorage that reads into memory its caller gives:
// bufs in turn, with one ranged read of their total length, returning how
// many bytes it read (fewer only at the object's end). Files reads blocks
// so, each into memory of its own or a reused buffer (Lease); from any
// other Storage, by copying (intoOf).
type IntoStorage interface {
	ReadRangeInto(ctx context.Context, path string, off, size int64, bufs [][]byte) (int64, error)
}

// intoOf is st as an IntoStorage: itself, or st reading a range whose
// bytes are then copied into the buffers.
func intoOf(st Storage) IntoStorage {
	if into, ok := st.(IntoStorage); ok {
		return into
	}
	return copyingInto{st}
}

type copyingInto struct{ st Storage }

func (c copyingInto) ReadRangeInto(ctx context.Context, path string, off, size int64, bufs [][]byte) (int64, error) {
	n := int64(0)
	for _, b := range bufs {
		n += int64(len(b))
	}
	data, err := readOf(ctx, c.st, path, off, n, size)
	if err != nil {
		return 0, err
	}
	got := int64(0)
	for _, b := range bufs {
		got += int64(copy(b, data[got:]))
	}
	return got, nil
}

// readOf reads n bytes at off of the data file at path, size bytes long by
// the log, checked where st can check it.
func readOf(ctx context.Context, st Storage, path string, off, n, size int64) ([]byte, error) {
	if sized, ok := st.(SizedStorage); ok {
		return sized.ReadRangeOf(ctx, path, off, n, size)
	}
	return st.ReadRange(ctx, path, off, n)
}

// AbsoluteStorage is a Storage that can also read deletion vectors stored
// at absolute paths or URIs (storage type 'p'), which it maps to objects it
// is willing to read, or refuses.
type AbsoluteStorage interface {
	Storage
	ReadAbsolute(ctx context.Context, uri string, off, n int64) ([]byte, error)
}

// ErrNoAbsolute is returned for a deletion vector at an absolute path when
// the Storage cannot read such paths.
var ErrNoAbsolute = errors.New("deletion vectors at absolute paths are not readable from this table")

// StoreStorage reads the objects of a table whose root is Store: data files
// by relative path, and deletion vectors at absolute URIs where they lie
// under the root. Files and vectors outside the root are read only under
// Elsewhere, stores at the locations the user allowed (a shallow clone
// names its source table's files by absolute URIs); never others.
type StoreStorage struct {
	Store     *blobstore.Store
	Elsewhere []*blobstore.Store
}

var (
	_ AbsoluteStorage = StoreStorage{}
	_ SizedStorage    = StoreStorage{}
	_ IntoStorage     = StoreStorage{}
)

// locate returns the store and key of a data file's path: relative to the
// root, or an absolute URI under one of Elsewhere.
func (s StoreStorage) locate(path string) (*blobstore.Store, string, error) {
	if !action.IsExternal(path) {
		return s.Store, path, nil
	}
	if st, key, ok := s.elsewhere(path); ok {
		return st, key, nil
	}
	return nil, "", fmt.Errorf("%s lies outside the table root", path)
}

// elsewhere returns the store of Elsewhere an absolute URI lies under, and
// its key there.
func (s StoreStorage) elsewhere(uri string) (*blobstore.Store, string, bool) {
	for _, st := range s.Elsewhere {
		if key, err := action.KeyUnder(uri, st.Location()); err == nil {
			return st, key, true
		}
	}
	return nil, "", false
}

// Serves says whether a data file's path is read: relative to the root, or
// under one of Elsewhere.
func (s StoreStorage) Serves(path string) bool {
	_, _, err := s.locate(path)
	return err == nil
}

// Stat returns a data file's size as stored.
func (s StoreStorage) Stat(ctx context.Context, path string) (blobstore.Object, error) {
	st, key, err := s.locate(path)
	if err != nil {
		return blobstore.Object{}, err
	}
	return st.Stat(ctx, key)
}

func (s StoreStorage) ReadRange(ctx context.Context, path string, off, n int64) ([]byte, error) {
	st, key, err := s.locate(path)
	if err != nil {
		return nil, err
	}
	return st.ReadRange(ctx, key, off, n)
}

func (s StoreStorage) ReadRangeOf(ctx context.Context, path string, off, n, size int64) ([]byte, error) {
	st, key, err := s.locate(path)
	if err != nil {
		return nil, err
	}
	return st.ReadRangeOf(ctx, key, off, n, size)
}

func (s StoreStorage) ReadRangeInto(ctx context.Context, path string, off, size int64, bufs [][]byte) (int64, error) {
	st, key, err := s.locate(path)
	if err != nil {
		return 0, err
	}
	return st.ReadRangeInto(ctx, key, off, size, bufs)
}

func (s StoreStorage) ReadAbsolute(ctx context.Context, uri string, off, n int64) ([]byte, error) {
	key, err := action.KeyUnder(uri, s.Store.Location())
	if err == nil {
		return s.Store.ReadRange(ctx, key, off, n)
	}
	if st, key, ok := s.elsewhere(uri); ok {
		return st.ReadRange(ctx, key, off, n)
	}
	return nil, fmt.Errorf("deletion vector %s: %w", uri, err)
}

// VectorStorage gives dvfilter.Load the deletion vector files of the table
// st reads: relative keys as data, absolute paths and URIs through
// AbsoluteStorage.
func VectorStorage(st Storage) Storage { return dvStorage{st} }

// dvStorage is VectorStorage.
type dvStorage struct{ st Storage }

func (s dvStorage) ReadRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if isAbsolute(key) { // a 'p' vector
		abs, ok := s.st.(AbsoluteStorage)
		if !ok {
			return nil, fmt.Errorf("%s: %w", key, ErrNoAbsolute)
		}
		return abs.ReadAbsolute(ctx, key, off, n)
	}
	return s.st.ReadRange(ctx, key, off, n)
}

// isAbsolute tells a 'p' vector's path or URI ("/p", "file:/p",
// "file:///p", "s3://b/p") from the relative key of a 'u' vector
// ("ab/deletion_vector_<uuid>.bin"), which holds no ':'.
func isAbsolute(key string) bool {
	return strings.HasPrefix(key, "/") || strings.Contains(key, ":/")
}
