package blobstore

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// maxIdleConnsPerHost is how many connections to one server are kept open
// between requests. The SDK keeps 10, fewer than a sequential reader keeps
// in flight (read-ahead 16 and the block being read), so most block reads
// used to open a new connection; 64 covers several readers.
const maxIdleConnsPerHost = 64

// openS3 opens an s3:// bucket URL (no path) as gocloud's URL opener does,
// with the same query parameters, but with a client that does not log: the
// SDK's default logger writes a line to stderr for every object read
// without a checksum (most objects written before 2025, and every object of
// many S3-compatible servers).
func openS3(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	q := u.Query()
	var opts []func(*s3.Options)
	for _, key := range []string{"use_path_style", "s3ForcePathStyle", "disable_https", "accelerate"} {
		v := q.Get(key)
		if v == "" {
			continue
		}
		q.Del(key)
		on, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("invalid value %q for %q", v, key)
		}
		switch key {
		case "disable_https":
			opts = append(opts, func(o *s3.Options) { o.EndpointOptions.DisableHTTPS = on })
		case "accelerate":
			opts = append(opts, func(o *s3.Options) { o.UseAccelerate = on })
		default:
			opts = append(opts, func(o *s3.Options) { o.UsePathStyle = on })
		}
	}
	// Server-side encryption settings concern writes; deltafs only reads.
	q.Del("ssetype")
	q.Del("kmskeyid")
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	opts = append(opts, func(o *s3.Options) {
		o.Logger = logging.Nop{}
		o.DisableLogOutputChecksumValidationSkipped = true
		o.HTTPClient = awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConnsPerHost = maxIdleConnsPerHost
		})
	})
	return s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, opts...), u.Host, nil)
}
