package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob:// URLs
	_ "gocloud.dev/blob/gcsblob"   // gs:// URLs
	"gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob" // s3:// URLs
	"gocloud.dev/gcerrors"
)

// ErrNotFound is returned (wrapped) when an object does not exist.
var ErrNotFound = errors.New("object not found")

// Object describes one stored object.
type Object struct {
	Key     string
	Size    int64
	ModTime time.Time
}

// Store is a table root in some bucket. It is safe for concurrent use.
type Store struct {
	bucket   *blob.Bucket
	location string
	scheme   string
	prefix   string        // key prefix of a table root inside a bucket ("tables/t/"), for list-from
	local    *localRoot    // file:// locations: objects are read as the plain files they are
	latency  time.Duration // injected before every request (tests, benchmarks)
	retry    Retry
	logf     func(format string, args ...any) // retries, when set
	counts   counters
}

// Option tunes a Store.
type Option func(*Store)

// WithLatency adds a fixed delay before every request, to measure how an
// access pattern behaves against a remote store.
func WithLatency(d time.Duration) Option { return func(s *Store) { s.latency = d } }

// Open opens the table root at location: a local path or a URL.
func Open(ctx context.Context, location string, opts ...Option) (*Store, error) {
	if p, ok := strings.CutPrefix(location, "file:/"); ok && !strings.HasPrefix(p, "/") {
		location = "file:///" + p // file:/abs, as Hadoop and Spark write it
	}
	if !strings.Contains(location, "://") {
		abs, err := filepath.Abs(location)
		if err != nil {
			return nil, err
		}
		// Escaped, so that a '%', '#' or '?' in a folder name survives.
		location = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	}
	u, err := url.Parse(location)
	if err != nil {
		return nil, fmt.Errorf("table location %q: %w", location, err)
	}
	var b *blob.Bucket
	var keyPrefix string
	var local *localRoot
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("table location %q: file:// names host %q; a local path is file:///path", location, u.Host)
		}
		// Not through the file driver: local.go says why.
		local, err = openLocalRoot(filepath.FromSlash(u.Path))
	case "mem":
		b = memblob.OpenBucket(nil)
	case "s3", "gs", "azblob":
		prefix := strings.Trim(u.Path, "/")
		u.Path = ""
		switch u.Scheme {
		case "s3":
			b, err = openS3(ctx, u)
		case "gs":
			if err = checkGCSCredentials(u); err == nil {
				b, err = blob.OpenBucket(ctx, u.String())
			}
		default:
			b, err = blob.OpenBucket(ctx, u.String())
		}
		if err == nil && prefix != "" {
			keyPrefix = prefix + "/"
			b = blob.PrefixedBucket(b, keyPrefix)
		}
	default:
		return nil, fmt.Errorf("table location %q: unsupported scheme %q (use a path, file://, mem://, s3://, gs:// or azblob://)", location, u.Scheme)
	}
	if err != nil && strings.Contains(err.Error(), "AccountName is required") {
		err = fmt.Errorf("no Azure storage account: set AZURE_STORAGE_ACCOUNT (or ?storage_account=) with AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN, or AZURE_STORAGE_CONNECTION_STRING (README: Table locations)")
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", location, err)
	}
	s := &Store{bucket: b, location: strings.TrimSuffix(location, "/"), scheme: u.Scheme, prefix: keyPrefix, local: local, retry: DefaultRetry}
	switch u.Scheme {
	case "gs":
		// Its client retries until the context ends, which for a mount is
		// never: the Store's retries (retry.go) replace its own.
		var c *storage.Client
		if b.As(&c) {
			c.SetRetry(storage.WithPolicy(storage.RetryNever))
		}
	case "azblob":
		// Its client retries with backoff itself (four tries, about half
		// a minute, then the error) and gocloud.dev gives no hook to change
		// that: one Store try each.
		s.retry.Attempts = 1
	}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Location is the table root as given to Open (a path becomes a file:// URL).
func (s *Store) Location() string { return s.location }

// HasLocalFiles reports whether the objects are files on this machine that
// OpenLocal can open. A store that adds latency to act as a remote one
// has none.
func (s *Store) HasLocalFiles() bool { return s.local != nil && s.latency == 0 }

// CheckRoot fails, wrapping ErrRootReplaced, when the table folder of a
// store of local files is no longer the folder at the path it was opened
// at. An object store's prefix names its objects whatever happens to them:
// nil.
func (s *Store) CheckRoot() error {
	if s.local == nil {
		return nil
	}
	return s.local.checkRoot()
}

// OpenLocal opens the file that holds key, for a store of local files, so
// that a caller may hand it to the kernel, and returns its size as opened.
// The rules of every local read hold: no symbolic link, nothing outside
// the table folder, only a regular file. Reads of it are not counted.
func (s *Store) OpenLocal(key string) (*os.File, int64, error) {
	if !s.HasLocalFiles() {
		return nil, 0, fmt.Errorf("%s: not a local file", s.objectURL(key))
	}
	f, size, err := s.local.open(key)
	if err != nil {
		return nil, 0, s.wrap(key, err)
	}
	return f, size, nil
}

// Close releases the bucket.
func (s *Store) Close() error {
	if s.local != nil {
		return s.local.close()
	}
	return s.bucket.Close()
}

// Read returns a whole object.
func (s *Store) Read(ctx context.Context, key string) ([]byte, error) {
	var data []byte
	err := s.do(ctx, &s.counts.gets, key, func(t *try) (err error) {
		if s.local != nil {
			data, err = s.local.read(key)
			return err
		}
		r, err := s.bucket.NewReader(t.ctx, key, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		// The reader knows the size: one allocation, not ReadAll's doubling.
		data = make([]byte, r.Size())
		_, err = io.ReadFull(t.body(r), data)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w: %d bytes of %d", errShortBody, len(data), r.Size())
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s.counts.bytes.Add(int64(len(data)))
	return data, nil
}

// ReadRange returns length bytes of an object from offset; fewer only at
// its end.
func (s *Store) ReadRange(ctx context.Context, key string, offset, length int64) ([]byte, error) {
	var buf []byte
	n, _, err := s.readRange(ctx, key, offset, length, bufferWithin(&buf, offset, length))
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// bufferWithin gives readRange one buffer, *buf, for what an object of
// the size it learns holds of length bytes from offset (all of them for
// a size the store does not give). Lengths come from what files say of
// one another (a deletion vector's size, a footer's), which may be
// anything: memory is given to what the object holds.
func bufferWithin(buf *[]byte, offset, length int64) func(size int64) [][]byte {
	return func(size int64) [][]byte {
		n := length
		if size >= 0 {
			n = max(0, min(length, size-offset))
		}
		*buf = make([]byte, n)
		return [][]byte{*buf}
	}
}

// ErrSizeChanged is wrapped by ReadRangeOf's error when the object is not
// the size its caller knows it to have.
var ErrSizeChanged = errors.New("the object is not the size the log gives")

// ReadRangeOf is ReadRange of an object known to be size bytes long (from
// the log): an object of another size is an error, found from the answer
// itself (its Content-Range, or the open file), at no extra request.
func (s *Store) ReadRangeOf(ctx context.Context, key string, offset, length, size int64) ([]byte, error) {
	var buf []byte
	n, err := s.readRangeOf(ctx, key, offset, length, size, bufferWithin(&buf, offset, length))
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// ReadRangeInto fills bufs, in turn, with the bytes of an object known to
// be size bytes long from offset, with one ranged read of their total
// length, and returns how many it read: fewer only at the object's end,
// which must then be the end of what was asked. The caller chooses the
// memory: a block each, or buffers it reuses. An object of another size is
// an error, as for ReadRangeOf.
func (s *Store) ReadRangeInto(ctx context.Context, key string, offset, size int64, bufs [][]byte) (int64, error) {
	length := int64(0)
	for _, b := range bufs {
		length += int64(len(b))
	}
	return s.readRangeOf(ctx, key, offset, length, size, func(int64) [][]byte { return bufs })
}

// readRangeOf is readRange of an object known to be size bytes long.
func (s *Store) readRangeOf(ctx context.Context, key string, offset, length, size int64, bufsFor func(size int64) [][]byte) (int64, error) {
	n, actual, err := s.readRange(ctx, key, offset, length, bufsFor)
	if err == nil && actual != size {
		return 0, fmt.Errorf("%s is %d bytes, the log says %d: %w", s.objectURL(key), actual, size, ErrSizeChanged)
	}
	return n, err
}

// readRange reads length bytes from offset (fewer only at the object's
// end) into the buffers bufsFor gives once the object's whole size is
// known, and returns how many it read and that size.
func (s *Store) readRange(ctx context.Context, key string, offset, length int64, bufsFor func(size int64) [][]byte) (int64, int64, error) {
	var n, size int64
	err := s.do(ctx, &s.counts.gets, key, func(t *try) (err error) {
		if s.local != nil {
			n, size, err = s.local.readRange(key, offset, bufsFor)
			return err
		}
		r, err := s.bucket.NewRangeReader(t.ctx, key, offset, length, nil)
		if err != nil {
			return err
		}
		defer r.Close()
		n, err = readInto(bufsFor(r.Size()), t.body(r))
		if err != nil {
			return err
		}
		// The reader's Size is the whole object's: a body that ends before
		// the range or the object does was cut short.
		size = r.Size()
		if want := min(length, size-offset); n < want {
			return fmt.Errorf("%w: %d bytes of %d at offset %d", errShortBody, n, want, offset)
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	s.counts.bytes.Add(n)
	return n, size, nil
}

// readInto fills bufs in turn from r, to the end of r, and returns how
// many bytes it read.
func readInto(bufs [][]byte, r io.Reader) (int64, error) {
	var total int64
	for _, buf := range bufs {
		n, err := io.ReadFull(r, buf)
		total += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
	// Read on to the end of the body: an HTTP client reuses a connection
	// only for a body read to EOF, and a new connection per block read
	// costs the server and us a handshake each. A body longer than the
	// range is a server that ignored it: those bytes are not the ones
	// asked for.
	var probe [1]byte
	n, err := r.Read(probe[:])
	if n > 0 {
		return total, errors.New("the store sent more bytes than the range asked for")
	}
	if err != nil && err != io.EOF {
		return total, err
	}
	return total, nil
}

// Stat returns an object's size and modification time (a HEAD request).
func (s *Store) Stat(ctx context.Context, key string) (Object, error) {
	var o Object
	err := s.do(ctx, &s.counts.heads, key, func(t *try) (err error) {
		if s.local != nil {
			o, err = s.local.stat(key)
			return err
		}
		a, err := s.bucket.Attributes(t.ctx, key)
		if err != nil {
			return err
		}
		o = Object{Key: key, Size: a.Size, ModTime: a.ModTime}
		return nil
	})
	return o, err
}

// Write stores an object. deltafs itself never writes; tests and table
// generators use it to fill any kind of store.
func (s *Store) Write(ctx context.Context, key string, data []byte) error {
	if s.local != nil {
		if err := s.local.write(key, data); err != nil {
			return s.wrap(key, err)
		}
		return nil
	}
	if err := s.bucket.WriteAll(ctx, key, data, nil); err != nil {
		return s.wrap(key, err)
	}
	return nil
}

// Delete removes an object (tests only, like Write).
func (s *Store) Delete(ctx context.Context, key string) error {
	if s.local != nil {
		if err := s.local.remove(key); err != nil {
			return s.wrap(key, err)
		}
		return nil
	}
	if err := s.bucket.Delete(ctx, key); err != nil {
		return s.wrap(key, err)
	}
	return nil
}

func (s *Store) wrap(key string, err error) error {
	if nb := s.noBucket(err); nb != nil {
		return fmt.Errorf("%s: %w", s.objectURL(key), nb)
	}
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%s: %w", s.objectURL(key), ErrNotFound)
	}
	if s.scheme == "s3" {
		err = pathStyleHint(credentialsHint(err), s.bucketName())
	}
	if hinted := certificateHint(err); hinted != err {
		return fmt.Errorf("%s: %w", s.objectURL(key), hinted)
	}
	return fmt.Errorf("%s: %w", s.objectURL(key), oneLine(err))
}

// objectURL names an object in messages: the table root with the key
// appended to its path, before any query string (s3://b/t/KEY?endpoint=...).
func (s *Store) objectURL(key string) string {
	root, query, ok := strings.Cut(s.location, "?")
	if !ok {
		return root + "/" + key
	}
	return strings.TrimSuffix(root, "/") + "/" + key + "?" + query
}
