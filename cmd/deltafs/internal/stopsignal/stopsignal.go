package stopsignal

import (
	"os"
	"os/signal"
	"syscall"
)

// Signals are the signals that stop deltafs.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// C receives them. It holds one until main reads it: the first is what
// counts, later ones are dropped.
var C = make(chan os.Signal, 1)

func init() { signal.Notify(C, Signals...) }
