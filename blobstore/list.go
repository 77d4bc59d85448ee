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
// starts at startAfter on stores that can (S3 StartAfter, GCS StartOffset);
// elsewhere it filters, which is correct but reads the earlier pages too.
// Sub-folders are not descended into. fn returning false stops the listing.
func (s *Store) List(ctx context.Context, dir, startAfter string, fn func(Object) bool) error {
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
	token := blob.FirstPageToken
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
