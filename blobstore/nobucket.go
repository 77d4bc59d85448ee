package blobstore

import (
	"errors"
	"fmt"
	"net/url"

	"cloud.google.com/go/storage"
)

// ErrNoBucket is returned (wrapped) when the bucket (Azure: the container)
// of the table's location does not exist. It is not ErrNotFound: no key of
// the location can be read, and "object not found" sent users looking for
// a missing file.
var ErrNoBucket = errors.New("bucket does not exist")

// noBucketError names the missing bucket; errors.Is(err, ErrNoBucket).
type noBucketError struct{ kind, name string }

func (e noBucketError) Error() string        { return fmt.Sprintf("%s %q does not exist", e.kind, e.name) }
func (e noBucketError) Is(target error) bool { return target == ErrNoBucket }

// noBucket returns the error saying that the store's bucket is missing,
// when the store's answer says so, else nil. Only answers with a body or
// an error code tell: S3 GET and LIST (NoSuchBucket; a HEAD's 404 has no
// body), GCS listings (the client says an object is missing for a GET or
// HEAD in a missing bucket), Azure every request (ContainerNotFound, also
// in a header).
func (s *Store) noBucket(err error) error {
	code, _, _ := answerOf(err)
	switch {
	case code == "NoSuchBucket", errors.Is(err, storage.ErrBucketNotExist):
		return noBucketError{"bucket", s.bucketName()}
	case code == "ContainerNotFound":
		return noBucketError{"container", s.bucketName()}
	}
	return nil
}

// bucketName is the bucket (container) of the store's location.
func (s *Store) bucketName() string {
	u, err := url.Parse(s.location)
	if err != nil {
		return s.location
	}
	return u.Host
}
