package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// defaultSilence is how long a try may hear nothing from an object store
// when Retry.Silence is zero.
const defaultSilence = time.Minute

// trickleFloor is the bytes per second of silence bound a body must bring
// for its store to count as heard: a store that sends a byte now and then
// (curl's --speed-limit, in effect) is as stuck as a silent one.
const trickleFloor = 1 << 10

// firstAnswer bounds the wait for the first byte of an answer (its status
// line) where the silence bound is longer. A store that has sent nothing
// at all (a listener that accepts and hangs, a dead host behind a live
// proxy) is likely gone, and at a minute a try, six tries took six minutes
// to say so; a store that is only slow answers its headers in seconds and
// is slow in its body, which keeps the full bound.
const firstAnswer = 20 * time.Second

// errSilent is a try abandoned because the store went quiet: always retried.
var errSilent = errors.New("the store went silent")

// A try is one attempt at a request, abandoned (its context cancelled) once
// the store has sent too little for the retry's silence bound: no answer to
// the request, or a body that stopped or trickles. A server that keeps a
// connection open and says nothing would otherwise hold its reader for good,
// and through a mount a read(2) that never returns. The bound starts again
// each time a body read through body brings floor more bytes.
type try struct {
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer // nil for local files, which are not watched
	silence time.Duration
	floor   int // bytes that restart the silence bound
	heard   int // bytes since it last started
	// answered: an HTTP answer has begun (httptrace), so the bound is
	// silence, no longer firstAnswer.
	answered atomic.Bool
}

func (s *Store) startTry(ctx context.Context) *try {
	if s.local != nil {
		return &try{ctx: ctx}
	}
	t := &try{silence: s.retry.Silence}
	if t.silence <= 0 {
		t.silence = defaultSilence
	}
	t.floor = max(int(t.silence.Seconds()*trickleFloor), 1)
	t.ctx, t.cancel = context.WithCancelCause(ctx)
	t.timer = time.AfterFunc(min(t.silence, firstAnswer), func() { t.cancel(errSilent) })
	t.ctx = httptrace.WithClientTrace(t.ctx, &httptrace.ClientTrace{GotFirstResponseByte: t.heardAnswer})
	return t
}

// heardAnswer gives a try whose answer has begun the full silence bound.
func (t *try) heardAnswer() {
	if !t.answered.Swap(true) {
		t.timer.Reset(t.silence)
	}
}

// body returns r, whose bytes restart the silence bound once they amount
// to the floor.
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
		if t.answered.Load() {
			err = fmt.Errorf("%w (under %d bytes in %v), the try was abandoned", errSilent, t.floor, t.silence)
		} else {
			err = fmt.Errorf("%w (no answer in %v), the try was abandoned", errSilent, min(t.silence, firstAnswer))
		}
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
	if h.t.heard += n; h.t.heard >= h.t.floor {
		h.t.heard = 0
		h.t.timer.Reset(h.t.silence)
	}
	return n, err
}
