package main

import (
	"bufio"
	"io"
	"log"
	"strconv"
	"strings"
	"testing"
)

// TestLogSinkNeverBlocks: with nothing reading the log, logging returns
// at once; the lines that did not fit are counted, and the count written
// once the log is read: every line is written or counted.
func TestLogSinkNeverBlocks(t *testing.T) {
	r, w := io.Pipe() // a write blocks until read
	sink := newLogSink(w)
	logger := log.New(sink, "", 0)
	const lines = 5000
	for i := range lines {
		logger.Printf("line %d", i) // hangs the test if it blocks
	}
	got := make(chan [2]int)
	go func() {
		written, dropped := 0, 0
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if n, ok := strings.CutSuffix(sc.Text(), " dropped: the log was not read"); ok {
				n = strings.TrimSuffix(strings.TrimSuffix(n, " log lines"), " log line")
				d, err := strconv.Atoi(strings.TrimPrefix(n, "deltafs: "))
				if err != nil {
					t.Errorf("count line %q", sc.Text())
				}
				dropped += d
			} else {
				written++
			}
		}
		got <- [2]int{written, dropped}
	}()
	sink.Close()
	w.Close()
	res := <-got
	if res[0]+res[1] != lines || res[1] == 0 {
		t.Errorf("%d lines written, %d counted dropped; want %d in all, some dropped", res[0], res[1], lines)
	}
}
