package blobstore

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// An endpoint by IP address or localhost is asked path-style: a bucket
// cannot be a subdomain of it.
func TestBucketCannotBeSubdomain(t *testing.T) {
	for endpoint, want := range map[string]bool{
		"http://127.0.0.1:9000":      true,
		"https://[::1]:9000":         true,
		"http://localhost:9000":      true,
		"https://minio.example.com":  false,
		"https://s3.amazonaws.com":   false,
		"":                           false,
		"127.0.0.1:9000":             false, // no scheme: not a URL the SDK takes either
		"http://10.1.2.3/some/path/": true,
	} {
		if got := bucketCannotBeSubdomain(endpoint); got != want {
			t.Errorf("bucketCannotBeSubdomain(%q) = %v, want %v", endpoint, got, want)
		}
	}
}

// A virtual-hosted name that does not resolve gets the hint to ask
// path-style; other lookups and errors are left as they are.
func TestPathStyleHint(t *testing.T) {
	lookup := func(name string) error {
		return &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}}
	}
	if err := pathStyleHint(lookup("tables.minio.example.com"), "tables"); !strings.Contains(err.Error(), "add use_path_style=true") || !errors.As(err, new(*net.DNSError)) {
		t.Errorf("bucket as a subdomain: %v; want the hint, and the lookup error kept", err)
	}
	for _, err := range []error{lookup("minio.example.com"), lookup("tablesx.minio.example.com"), errors.New("other")} {
		if got := pathStyleHint(err, "tables"); got != err {
			t.Errorf("%v: %v; want it as it was", err, got)
		}
	}
}
