package main

import (
	"fmt"
	"io"
	"runtime"
)

// dumpGoroutines writes every goroutine's stack to w, as Go does on
// SIGQUIT before it exits: what a user pressing Ctrl-\ on a stuck command
// wants to see. deltafs catches SIGQUIT to unmount cleanly, which turns
// Go's own dump off.
func dumpGoroutines(w io.Writer) {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	fmt.Fprintf(w, "SIGQUIT: goroutine dump follows; deltafs then stops as on SIGINT (a mount is unmounted first)\n\n%s\n", buf)
}
