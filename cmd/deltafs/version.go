package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"
)

// revision is the commit the binary was built from, set by the Makefile
// (-ldflags -X main.revision=...) where Go records no VCS information.
var revision string

// printVersion prints the module version and what the binary was built
// from: the Go version, the VCS revision and time when Go recorded them.
func printVersion(w io.Writer) {
	version, rev, when, dirty := "(devel)", revision, "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = " (modified)"
				}
			}
		}
	}
	fmt.Fprintf(w, "deltafs %s\n%s %s/%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if rev != "" {
		fmt.Fprintf(w, "revision %s%s\n", strings.TrimSpace(rev+" "+when), dirty)
	}
}

// runVersion is `deltafs version`, which takes no argument.
func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	if err := parseFlags(fs, args, "", 0, 0, stdout, stderr); err != nil {
		return err
	}
	printVersion(stdout)
	return nil
}
