package main

import (
	"bytes"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// logSink hands a mount's log lines to w from a goroutine of its own. A
// FUSE handler logs a read that fails; written straight to a stderr that
// nothing reads (a pipe left full, a terminal stopped with ^S), the line
// blocked the handler, and every other that logged after it: reads hung.
// A line that finds the queue full is dropped and counted; the count is
// written once the queue drains.
type logSink struct {
	w       io.Writer
	lines   chan []byte
	dropped atomic.Int64
	closing chan struct{}
	done    chan struct{}
}

// logQueue is how many lines wait for w before more are dropped.
const logQueue = 1024

// logCloseWait bounds how long Close waits for w to take the lines left.
const logCloseWait = 2 * time.Second

func newLogSink(w io.Writer) *logSink {
	s := &logSink{w: w, lines: make(chan []byte, logQueue), closing: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

// Write queues one line (log.Logger writes a line per call); it never
// blocks.
func (s *logSink) Write(p []byte) (int, error) {
	select {
	case s.lines <- bytes.Clone(p):
	default:
		s.dropped.Add(1)
	}
	return len(p), nil
}

func (s *logSink) run() {
	defer close(s.done)
	for {
		select {
		case line := <-s.lines:
			s.write(line)
		case <-s.closing:
			for {
				select {
				case line := <-s.lines:
					s.write(line)
				default:
					return
				}
			}
		}
	}
}

func (s *logSink) write(line []byte) {
	s.w.Write(line) // nowhere to report a failure to write the log
	if n := s.dropped.Load(); n > 0 && len(s.lines) == 0 {
		s.dropped.Add(-n)
		fmt.Fprintf(s.w, "deltafs: %s dropped: the log was not read\n", plural(n, "log line", "log lines"))
	}
}

// Close writes the lines queued, waiting for w at most logCloseWait; lines
// logged later are dropped.
func (s *logSink) Close() {
	close(s.closing)
	select {
	case <-s.done:
	case <-time.After(logCloseWait):
	}
}
