package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// defaultSilence is how long a try may hear nothing from an object store
// when Retry.Silence is zero.
const defaultSilence = time.Minute

// errSilent is a try abandoned because the store went quiet: always retried.
var errSilent = errors.New("the store went silent")

// A try is one attempt at a request, abandoned (its context cancelled) once
// the store has sent nothing for the retry's silence bound: no answer to the
// request, or a body that stopped. A server that keeps a connection open and
// says nothing would otherwise hold its reader for good, and through a
// mount a read(2) that never returns. Every byte of a body read through
// body counts as hearing from the store.
type try struct {
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer // nil for local files, which are not watched
	silence time.Duration
}

func (s *Store) startTry(ctx context.Context) *try {
	if s.local != nil {
		return &try{ctx: ctx}
	}
	t := &try{silence: s.retry.Silence}
	if t.silence <= 0 {
		t.silence = defaultSilence
	}
	t.ctx, t.cancel = context.WithCancelCause(ctx)
	t.timer = time.AfterFunc(t.silence, func() { t.cancel(errSilent) })
	return t
}

// body returns r, whose bytes restart the silence bound as they arrive.
func (t *try) body(r io.Reader) io.Reader {
	if t.timer == nil {
		return r
	}
	return heardReader{r, t}
}

// end stops watching and returns err, or the silence when it caused err.
func (t *try) end(err error) error {
	if t.timer == nil {
		return err
	}
	t.timer.Stop()
	if err != nil && context.Cause(t.ctx) == errSilent {
		err = fmt.Errorf("%w for %v, the try was abandoned", errSilent, t.silence)
	}
	t.cancel(nil)
	return err
}

type heardReader struct {
	r io.Reader
	t *try
}

func (h heardReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if n > 0 {
		h.t.timer.Reset(h.t.silence)
	}
	return n, err
}
