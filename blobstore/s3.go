package blobstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
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
	pathStyleSet := q.Get("use_path_style") != "" || q.Get("s3ForcePathStyle") != ""
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
	// The credential chain logs (e.g. "WARN falling back to IMDSv1") to
	// stderr through the config's logger; a failure reaches the caller as
	// an error instead (credentialsHint).
	cfg.Logger = logging.Nop{}
	if cfg.Region == "" {
		// The SDK would fail each request with "Invalid region: region was
		// not a valid DNS name".
		return nil, errors.New("no AWS region: set AWS_REGION, or add ?region=<region> to the URL (README: Table locations)")
	}
	if !pathStyleSet && bucketCannotBeSubdomain(s3Endpoint(q, cfg)) {
		opts = append(opts, func(o *s3.Options) { o.UsePathStyle = true })
	}
	// The config's client holds what the environment asked for (a CA
	// bundle: AWS_CA_BUNDLE, ca_bundle in the profile); a new one would
	// drop it, and a server of a private CA could not be reached.
	client, ok := cfg.HTTPClient.(*awshttp.BuildableClient)
	if !ok {
		client = awshttp.NewBuildableClient()
	}
	opts = append(opts, func(o *s3.Options) {
		o.Logger = logging.Nop{}
		o.DisableLogOutputChecksumValidationSkipped = true
		o.HTTPClient = client.WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConnsPerHost = maxIdleConnsPerHost
		})
		// The Store retries (retry.go), body reads included, which the
		// SDK cannot: two layers would multiply the tries and the waits.
		o.Retryer = aws.NopRetryer{}
	})
	return s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, opts...), u.Host, nil)
}

// s3Endpoint is the endpoint a location names (?endpoint=), else the
// environment's or the profile's, else "" (AWS itself).
func s3Endpoint(q url.Values, cfg aws.Config) string {
	endpoint := cmp.Or(q.Get("endpoint"), os.Getenv("AWS_ENDPOINT_URL_S3"), os.Getenv("AWS_ENDPOINT_URL"))
	if endpoint == "" && cfg.BaseEndpoint != nil {
		endpoint = *cfg.BaseEndpoint
	}
	return endpoint
}

// bucketCannotBeSubdomain reports whether an endpoint's host is an IP
// address or localhost: the SDK's default, virtual-hosted requests to
// BUCKET.HOST, then looks up a name that cannot exist (bucket.127.0.0.1),
// so such an endpoint is asked path-style, as delta-rs asks any endpoint
// of one's own. use_path_style=false in the URL keeps the default.
func bucketCannotBeSubdomain(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return false
	}
	host := u.Hostname()
	return host == "localhost" || net.ParseIP(host) != nil
}

// pathStyleHint says what to add to a location when a virtual-hosted
// request's name, BUCKET.HOST, did not resolve: a server of one's own
// (MinIO under a DNS name) has no such names unless set up for them.
func pathStyleHint(err error, bucket string) error {
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound && strings.HasPrefix(dns.Name, bucket+".") {
		return fmt.Errorf("%w (%s is the bucket as a subdomain: for a server of your own, add use_path_style=true to the URL; else check the region and endpoint)", err, dns.Name)
	}
	return err
}

// credentialsHint rewrites the SDK's answer when no credential source
// worked, a paragraph about its provider chain, into what to do.
func credentialsHint(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "get credentials") || strings.Contains(msg, "failed to retrieve credentials") {
		return fmt.Errorf("no AWS credentials found (environment, shared files, instance role): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE; ?anonymous=true for a public bucket (README: Table locations): %w", err)
	}
	return err
}
