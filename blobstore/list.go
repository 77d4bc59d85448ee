package blobstore

import (
	"context"
	"io"
	"strings"

	"cloud.google.com/go/storage"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
)

// pageSize is the listing page size every object store caps at.
const pageSize = 1000

// List calls fn, in key order, for every object directly under dir (a
// "folder" such as "_delta_log/") whose key sorts after startAfter. Listing
// starts at startAfter on stores that can (S3 StartAfter, GCS StartOffset,
// the key-valued page tokens of file:// and mem://);
// elsewhere it filters, which is correct but reads the earlier pages too.
// Sub-folders are not descended into. fn returning false stops the listing.
func (s *Store) List(ctx context.Context, dir, startAfter string, fn func(Object) bool) error {
	opts := s.listOptions(dir, startAfter)
	token := s.firstToken(startAfter)
	for {
		objs, next, err := s.listPage(ctx, token, opts)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if o.IsDir || o.Key <= startAfter || !strings.HasPrefix(o.Key, dir) {
				continue
			}
			if !fn(Object{Key: o.Key, Size: o.Size, ModTime: o.ModTime}) {
				return nil
			}
		}
		if len(next) == 0 {
			return nil
		}
		token = next
	}
}

func (s *Store) listOptions(dir, startAfter string) *blob.ListOptions {
	opts := &blob.ListOptions{Prefix: dir, Delimiter: "/"}
	if startAfter != "" {
		opts.BeforeList = func(as func(any) bool) error {
			var s3in *s3.ListObjectsV2Input
			if as(&s3in) {
				s3in.StartAfter = &startAfter
			}
			var q *storage.Query
			if as(&q) {
				q.StartOffset = startAfter + "\x00"
			}
			return nil
		}
	}
	return opts
}

func (s *Store) firstToken(startAfter string) []byte {
	if startAfter != "" && (s.scheme == "file" || s.scheme == "mem") {
		// Their page token is the last key returned: start right there.
		return []byte(startAfter)
	}
	return blob.FirstPageToken
}

func (s *Store) listPage(ctx context.Context, token []byte, opts *blob.ListOptions) ([]*blob.ListObject, []byte, error) {
	done := s.begin(&s.counts.lists)
	defer done()
	objs, next, err := s.bucket.ListPage(ctx, token, pageSize, opts)
	if err == io.EOF {
		err = nil
	}
	if err != nil {
		return nil, nil, s.wrap(opts.Prefix, err)
	}
	return objs, next, nil
}

// ListPage returns one page of the objects directly under dir whose keys
// sort after startAfter, and whether more may follow. On stores that cannot
// start at a key the page may hold fewer objects, or none, while more follow.
func (s *Store) ListPage(ctx context.Context, dir, startAfter string) ([]Object, bool, error) {
	opts := s.listOptions(dir, startAfter)
	objs, next, err := s.listPage(ctx, s.firstToken(startAfter), opts)
	if err != nil {
		return nil, false, err
	}
	var out []Object
	for _, o := range objs {
		if !o.IsDir && o.Key > startAfter && strings.HasPrefix(o.Key, dir) {
			out = append(out, Object{Key: o.Key, Size: o.Size, ModTime: o.ModTime})
		}
	}
	return out, len(next) > 0, nil
}
