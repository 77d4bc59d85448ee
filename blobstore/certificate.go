package blobstore

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
)

// untrustedCertificate is a request refused because the server's TLS
// certificate did not verify: asking again gets the same certificate, so
// it is not retried, and the error says how to trust a private CA.
type untrustedCertificate struct{ err error }

func (u *untrustedCertificate) Error() string {
	var host x509.HostnameError
	if errors.As(u.err, &host) {
		return fmt.Sprintf("the server's TLS certificate is for another host (the endpoint's host must be one it names): %v", u.err)
	}
	return fmt.Sprintf("the server's TLS certificate is not trusted (a private CA: name its PEM file in AWS_CA_BUNDLE for s3://, else SSL_CERT_FILE): %v", u.err)
}

func (u *untrustedCertificate) Unwrap() error { return u.err }

// certificateHint wraps err in untrustedCertificate when the server's
// certificate failed verification.
func certificateHint(err error) error {
	var v *tls.CertificateVerificationError
	if errors.As(err, &v) {
		return &untrustedCertificate{v}
	}
	return err
}
