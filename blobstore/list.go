package blobstore

import (
	"context"
	"io"
	"strings"

	"cloud.google.com/go/storage"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
)

// pageSize is the listing page size every object store caps at.
const pageSize = 1000

// List calls fn, in key order, for every object directly under dir (a
// "folder" such as "_delta_log/") whose key sorts after startAfter. Listing
// starts at startAfter on stores that can (S3 StartAfter, GCS StartOffset,
// Azure startFrom, the key-valued page tokens of file:// and mem://);
// elsewhere it filters, which is correct but reads the earlier pages too.
// Sub-folders are not descended into. fn returning false stops the listing.
func (s *Store) List(ctx context.Context, dir, startAfter string, fn func(Object) bool) error {
	if s.local != nil {
		objs, err := s.localList(dir, startAfter)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if !fn(o) {
				return nil
			}
		}
		return nil
	}
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
	// The driver sees full keys: a table root inside a bucket
	// (blob.PrefixedBucket) adds its prefix to Prefix, not to these.
	full := s.prefix + startAfter
	if startAfter != "" && plainKey(s.scheme, full) {
		opts.BeforeList = func(as func(any) bool) error {
			var s3in *s3.ListObjectsV2Input
			if as(&s3in) {
				s3in.StartAfter = &full
			}
			var q *storage.Query
			if as(&q) {
				q.StartOffset = full + "\x00"
			}
			var az *container.ListBlobsHierarchyOptions
			if as(&az) {
				az.StartFrom = &full // inclusive: List and ListPage drop the key itself
			}
			return nil
		}
	}
	return opts
}

// plainKey reports whether the driver of scheme stores key unchanged. The
// drivers hex-escape some keys (all: control characters, "../", text that
// looks like an escape; azblob also '"', '#', '%', '?', '\\'), and a start
// key is compared with the stored, escaped keys: for any other key, listing
// falls back to filtering.
func plainKey(scheme, key string) bool {
	if strings.Contains(key, "../") || strings.Contains(key, "__0x") {
		return false
	}
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c < 0x20, c == 0x7f:
			return false
		case scheme == "azblob" && strings.IndexByte(`"#%?\`, c) >= 0:
			return false
		}
	}
	return true
}

func (s *Store) firstToken(startAfter string) []byte {
	if startAfter != "" && (s.scheme == "file" || s.scheme == "mem") {
		// Their page token is the last key returned: start right there.
		return []byte(startAfter)
	}
	return blob.FirstPageToken
}

func (s *Store) listPage(ctx context.Context, token []byte, opts *blob.ListOptions) ([]*blob.ListObject, []byte, error) {
	var objs []*blob.ListObject
	var next []byte
	err := s.do(ctx, &s.counts.lists, opts.Prefix, func(t *try) (err error) {
		objs, next, err = s.bucket.ListPage(t.ctx, token, pageSize, opts)
		if err == io.EOF {
			err = nil
		}
		return err
	})
	return objs, next, err
}

// ListPage returns one page of the objects directly under dir whose keys
// sort after startAfter, and whether more may follow. On stores that cannot
// start at a key the page may hold fewer objects, or none, while more follow.
func (s *Store) ListPage(ctx context.Context, dir, startAfter string) ([]Object, bool, error) {
	if s.local != nil {
		done := s.begin(&s.counts.lists)
		objs, err := s.local.list(dir, startAfter, pageSize+1)
		done()
		if err != nil {
			return nil, false, s.wrap(dir, err)
		}
		return objs[:min(len(objs), pageSize)], len(objs) > pageSize, nil
	}
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

// localList lists a local folder, counting one listing request per page
// an object store would have needed, so that counts compare across stores.
func (s *Store) localList(dir, startAfter string) ([]Object, error) {
	done := s.begin(&s.counts.lists)
	objs, err := s.local.list(dir, startAfter, -1)
	done()
	for range (len(objs) - 1) / pageSize { // the pages after the first
		s.begin(&s.counts.lists)()
	}
	if err != nil {
		return nil, s.wrap(dir, err)
	}
	return objs, nil
}
