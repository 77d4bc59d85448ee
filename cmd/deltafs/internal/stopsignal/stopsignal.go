package stopsignal

import (
	"os"
	"os/signal"
	"syscall"
)

// Signals are the signals that stop deltafs. SIGQUIT (Ctrl-\) is among
// them: left to Go it dumps the goroutines and exits at once, leaving a
// mount dead behind it ("Transport endpoint is not connected"); main
// writes the dump itself, then unmounts.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// C receives them. It holds one until main reads it: the first is what
// counts, later ones are dropped.
var C = make(chan os.Signal, 1)

func init() { signal.Notify(C, Signals...) }
