package blobstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"gocloud.dev/gcerrors"
)

// Retry says how a Store retries a request to an object store that failed
// in a way that may pass: a 5xx answer, throttling, a refused or reset
// connection, a body cut short, a store gone silent. Local files are never
// retried.
type Retry struct {
	Attempts   int           // tries in all, the first included; 1 or less: no retry
	Backoff    time.Duration // wait before the second try, doubled for each one after (with jitter)
	MaxBackoff time.Duration // the longest wait
	// Silence is how long a try may hear nothing from the store (no
	// answer, or a body that stopped), or under 1 KiB a second of it (a
	// body that trickles), before it is abandoned and retried; zero means
	// a minute. A try whose answer has not begun is abandoned after 20 s
	// where Silence is longer (silence.go: firstAnswer).
	Silence time.Duration
}

// DefaultRetry rides out a server restart of a few seconds: six tries over
// about three seconds, then the error; a try the store leaves without a
// byte for a minute (without an answer begun, 20 s) is abandoned.
var DefaultRetry = Retry{Attempts: 6, Backoff: 100 * time.Millisecond, MaxBackoff: 2 * time.Second, Silence: defaultSilence}

// WithRetry replaces DefaultRetry.
func WithRetry(r Retry) Option { return func(s *Store) { s.retry = r } }

// WithLogf has each retry logged through logf, with the error that caused it.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(s *Store) { s.logf = logf }
}

// errShortBody is a body that ended before the bytes its answer promised:
// never data, always retried.
var errShortBody = errors.New("the store's answer ended early")

// do runs one request of a kind, counted, with the latency injected in
// tests, retrying it as s.retry says while the error may pass. Each try
// makes its request with the try's context and reads any body through it
// (silence.go). The error returned is wrapped with the object's URL (and
// the number of tries, when there were several).
func (s *Store) do(ctx context.Context, kind *atomic.Int64, key string, request func(*try) error) error {
	attempts := max(s.retry.Attempts, 1)
	if s.local != nil {
		attempts = 1
	}
	wait := s.retry.Backoff
	for n := 1; ; n++ {
		done := s.begin(kind)
		t := s.startTry(ctx)
		err := t.end(request(t))
		done()
		if err == nil {
			return nil
		}
		err = s.wrap(key, err)
		if n == attempts || !mayPass(ctx, err) {
			if n > 1 {
				err = fmt.Errorf("after %d tries: %w", n, err)
			}
			return err
		}
		s.counts.retries.Add(1)
		pause := jitter(wait)
		if s.logf != nil {
			s.logf("try %d of %d failed, again in %v: %v", n, attempts, pause.Round(time.Millisecond), err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (while waiting to retry: %w)", ctx.Err(), err)
		case <-time.After(pause):
		}
		wait = min(2*wait, max(s.retry.MaxBackoff, s.retry.Backoff))
	}
}

// jitter returns a wait between d/2 and d, so that the readers an outage
// stopped together do not come back together.
func jitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2)
}

// mayPass reports whether a request that failed with err may succeed if
// tried again: not when the caller gave up, and not for answers that say
// what the object or the request is (missing, forbidden, malformed,
// unsupported, no bucket), that no credentials exist, or a server
// certificate that does not verify.
func mayPass(ctx context.Context, err error) bool {
	var untrusted *untrustedCertificate
	if ctx.Err() != nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrNoBucket) || errors.Is(err, ErrSizeChanged) || answerFinal(err) || errors.As(err, &untrusted) {
		return false
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound, gcerrors.PermissionDenied, gcerrors.InvalidArgument,
		gcerrors.FailedPrecondition, gcerrors.Unimplemented, gcerrors.AlreadyExists, gcerrors.Canceled:
		return false
	}
	return !strings.Contains(err.Error(), "no AWS credentials found")
}
