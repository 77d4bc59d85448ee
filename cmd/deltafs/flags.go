package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// errUsage reports bad arguments, already explained on stderr: exit 2.
var errUsage = errors.New("usage")

// errHelp reports that a command's help was asked for and printed: exit 0.
var errHelp = errors.New("help")

// parseFlags parses args for a command whose positional arguments are
// described by positional and number from least to most. A mistake gets
// one line on stderr (exit 2); --help prints the command's help on stdout
// (exit 0).
func parseFlags(fs *pflag.FlagSet, args []string, positional string, least, most int, stdout, stderr io.Writer) error {
	fs.SetOutput(io.Discard) // pflag's own messages: ours are below
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, pflag.ErrHelp):
		fmt.Fprintf(stdout, "Usage: deltafs %s [flags]\n%s", strings.TrimSpace(fs.Name()+" "+positional), fs.FlagUsages())
		return errHelp
	case err != nil && negativeNumber(err, args) != "":
		return usageError(fs, stderr, "%s: versions are 0 or more", negativeNumber(err, args))
	case err != nil:
		return usageError(fs, stderr, "%v", err)
	case most == 0 && fs.NArg() > 0:
		return usageError(fs, stderr, "takes no argument, got %d", fs.NArg())
	case fs.NArg() < least || fs.NArg() > most:
		if fs.NArg() > most && slices.ContainsFunc(fs.Args(), func(a string) bool { return a == "true" || a == "false" }) {
			return usageError(fs, stderr, "want %s, got %s; a yes/no flag takes its value after '=' (--json=false)", positional, plural(fs.NArg(), "argument", "arguments"))
		}
		return usageError(fs, stderr, "want %s, got %s", positional, plural(fs.NArg(), "argument", "arguments"))
	case slices.Contains(fs.Args(), ""):
		// An empty table would be the current folder, an empty mount
		// point "not empty": say what is wrong instead.
		return usageError(fs, stderr, "want %s, got an empty argument", positional)
	}
	return nil
}

// usageError prints one line saying what is wrong with a command's
// arguments and returns errUsage.
func usageError(fs *pflag.FlagSet, stderr io.Writer, format string, args ...any) error {
	fmt.Fprintf(stderr, "deltafs %s: %s (deltafs %s --help)\n", fs.Name(), fmt.Sprintf(format, args...), fs.Name())
	return errUsage
}

// negativeNumber is the argument like -1 that pflag took for a flag and
// refused ("" if none): what was meant is a version before 0.
func negativeNumber(err error, args []string) string {
	for _, a := range args {
		if _, convErr := strconv.ParseInt(a, 10, 64); convErr == nil && strings.HasPrefix(a, "-") && strings.HasSuffix(err.Error(), " in "+a) {
			return a
		}
	}
	return ""
}

// autoCount is a count flag that also takes "auto" (-1: chosen by the
// table's location), its default, which the help shows.
type autoCount struct{ n *int }

func (a autoCount) String() string {
	if a.n == nil || *a.n < 0 {
		return "auto"
	}
	return strconv.Itoa(*a.n)
}

func (a autoCount) Set(s string) error {
	if s == "auto" {
		*a.n = -1
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return errors.New("want 0 or more, or auto")
	}
	*a.n = n
	return nil
}

func (autoCount) Type() string { return "int" }
