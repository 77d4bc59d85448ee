package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"syscall"

	"github.com/deltafs/deltafs/cmd/deltafs/internal/stopsignal"
	"golang.org/x/sys/unix"
)

const usage = `deltafs: a Delta Lake table as a read-only filesystem

Usage:
  deltafs mount TABLE MOUNTPOINT [flags]   mount the table (foreground; --version N or --at INSTANT:
                                           pinned at that version)
  deltafs demo [DIR [MOUNTPOINT]]          generate a sample table and mount it
  deltafs versions TABLE [--json]          versions that can be rebuilt, ascending
  deltafs ls TABLE [--version N | --at INSTANT] [--json]
                                           live files of a version (latest by default), by the
                                           paths the log stores (--json: also where a mount serves them)
  deltafs schema TABLE [--version N | --at INSTANT] [--json]
                                           logical schema: physical names, ids, partition columns
  deltafs history TABLE [--json]           version, instant and operation per version
  deltafs diff TABLE A B [--json]          files added (+) and removed (-) from A to B (versions or instants;
                                           stored paths; --json: also where a mount serves them)
  deltafs doctor TABLE [--json]            health check: checkpoints, log, data files, retention, open cost
  deltafs version                          version and build information (also --version)

TABLE is a local path or a URL: file://, mem://, s3://, gs://, azblob://.
Run "deltafs COMMAND --help" (or "deltafs help COMMAND") for a command's flags.
--json prints JSON Lines (one object per line: per version, file or column;
doctor prints one object). Exit status: 0 done, 1 the table or storage failed
(one line on stderr says why; doctor: a data file cannot be served, or latest
cannot be rebuilt), 2 a mistake in the command line, 128+N stopped by signal N
before it was done (130 SIGINT, 143 SIGTERM, 131 SIGQUIT, which also writes a
goroutine dump on stderr).
`

// command runs one subcommand with its arguments.
type command func(ctx context.Context, args []string, stdout, stderr io.Writer) error

var commands = map[string]command{
	"versions": runVersions,
	"ls":       runLs,
	"history":  runHistory,
	"mount":    runMount,
	"demo":     runDemo,
	"doctor":   runDoctor,
	"schema":   runSchema,
	"diff":     runDiff,
	"version":  runVersion,
}

func main() {
	keepConnections()
	ctx := stopOnSignal()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// stopped is the cause of a context a signal ended.
type stopped struct{ sig syscall.Signal }

func (s stopped) Error() string { return "stopped by " + unix.SignalName(s.sig) }

// stopOnSignal returns a context that SIGINT, SIGTERM, SIGHUP (a mount
// whose terminal closes unmounts cleanly) or SIGQUIT (after a goroutine
// dump on stderr, as Go gives) ends, with the signal as its cause.
// stopsignal caught them since before main ran, so one sent at start is
// not lost. Later signals are ignored: a mount being unmounted finishes.
func stopOnSignal() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		sig := <-stopsignal.C
		if sig == syscall.SIGQUIT {
			dumpGoroutines(os.Stderr) // the stacks as they were, before stopping changes them
		}
		cancel(stopped{sig.(syscall.Signal)})
		for range stopsignal.C {
		}
	}()
	return ctx
}

// keepConnections lets Go's default HTTP transport, which the GCS driver
// uses, keep 64 idle connections per host instead of 2: a mount reads
// several blocks at once from one host, and with 2 most reads opened a new
// connection, with its TLS handshake. blobstore tunes the S3 client itself;
// Azure's keeps 10.
func keepConnections() {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t.MaxIdleConnsPerHost = 64
	}
}

// run dispatches to a subcommand. Errors become one line on stderr and a
// non-zero status, so scripts can rely on both.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stderr, usage)
		return 2
	case args[0] == "-h" || args[0] == "--help" || (args[0] == "help" && len(args) == 1):
		fmt.Fprint(stdout, usage)
		return 0
	case args[0] == "help":
		return run(ctx, []string{args[1], "--help"}, stdout, stderr)
	case args[0] == "--version":
		printVersion(stdout)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "deltafs: unknown command %q (deltafs --help lists them)\n", args[0])
		return 2
	}
	if err := cmd(ctx, args[1:], stdout, stderr); err != nil {
		switch err {
		case errHelp:
			return 0
		case errUsage:
			return 2
		}
		var stop stopped
		if errors.As(context.Cause(ctx), &stop) {
			// The error is the cancelled request's: the signal is the news.
			fmt.Fprintf(stderr, "deltafs %s: %v\n", args[0], stop)
			return 128 + int(stop.sig)
		}
		fmt.Fprintf(stderr, "deltafs %s: %v\n", args[0], err)
		return 1
	}
	return 0
}
