// Package blobstore is the only package that talks to storage. It opens a
// table root (a local path, or a file://, mem://, s3://, gs:// or azblob://
// URL) through gocloud.dev/blob and offers what the rest of deltafs needs:
// whole and ranged reads, listing that starts after a key, and counters of
// every request made (GET, LIST page, HEAD), which tests assert and
// benchmarks report. Requests to object stores that fail in a way that may
// pass are retried with backoff (retry.go), a store gone silent included
// (silence.go); a body of the wrong length is an error, never data.
//
// Keys are relative to the table root and use '/' as separator.
package blobstore
