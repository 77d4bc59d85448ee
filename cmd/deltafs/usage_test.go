package main

import (
	"strings"
	"testing"
)

// TestCommandLineMistakes: every mistake gets one line on stderr naming
// it, and exit 2; help goes to stdout with exit 0; a table that cannot be
// read exits 1 with one line.
func TestCommandLineMistakes(t *testing.T) {
	table := testdata(t, "delta-rs/data/simple_table")
	for _, c := range []struct {
		args   []string
		code   int
		stderr string // the one line, exactly
		stdout string // a part of stdout
	}{
		{[]string{"ls", "--bogus", "x"}, 2, "deltafs ls: unknown flag: --bogus (deltafs ls --help)\n", ""},
		{[]string{"ls", table, "--version", "abc"}, 2, `deltafs ls: invalid argument "abc" for "--version" flag: must be an integer (deltafs ls --help)` + "\n", ""},
		{[]string{"ls", table, "--version", "-5"}, 2, "deltafs ls: --version -5: versions are 0 or more (deltafs ls --help)\n", ""},
		{[]string{"schema", table, "--version=-1"}, 2, "deltafs schema: --version -1: versions are 0 or more (deltafs schema --help)\n", ""},
		{[]string{"mount", "--cache-mb", "lots", table, "/nonexistent"}, 2, `deltafs mount: invalid argument "lots" for "--cache-mb" flag: must be an integer (deltafs mount --help)` + "\n", ""},
		{[]string{"mount", "--read-ahead", "-3", table, "/nonexistent"}, 2, `deltafs mount: invalid argument "-3" for "--read-ahead" flag: want 0 or more, or auto (deltafs mount --help)` + "\n", ""},
		{[]string{"mount", "--read-ahead", "auto", table, "/nonexistent"}, 1, "deltafs mount: mountpoint /nonexistent: stat /nonexistent: no such file or directory (make it first: mkdir -p /nonexistent)\n", ""},
		{[]string{"ls"}, 2, "deltafs ls: want TABLE, got 0 arguments (deltafs ls --help)\n", ""},
		{[]string{"versions", table, "extra"}, 2, "deltafs versions: want TABLE, got 2 arguments (deltafs versions --help)\n", ""},
		{[]string{"ls", ""}, 2, "deltafs ls: want TABLE, got an empty argument (deltafs ls --help)\n", ""},
		{[]string{"demo", "a", "b", "c"}, 2, "deltafs demo: want [DIR [MOUNTPOINT]], got 3 arguments (deltafs demo --help)\n", ""},
		{[]string{"version", "extra"}, 2, "deltafs version: takes no argument, got 1 (deltafs version --help)\n", ""},
		{[]string{"version", "--help"}, 0, "", "Usage: deltafs version [flags]\n"},
		{[]string{"bogus"}, 2, "deltafs: unknown command \"bogus\" (deltafs --help lists them)\n", ""},
		{[]string{"ls", "--help"}, 0, "", "Usage: deltafs ls TABLE [flags]\n"},
		{[]string{"help", "mount"}, 0, "", "Usage: deltafs mount TABLE MOUNTPOINT [flags]\n"},
		{[]string{"demo", "--help"}, 0, "", "Usage: deltafs demo [DIR [MOUNTPOINT]] [flags]\n"},
		{[]string{"--help"}, 0, "", "deltafs demo [DIR [MOUNTPOINT]]"},
		{[]string{"--version"}, 0, "", "deltafs "},
		{[]string{"version"}, 0, "", "go1."},
		{[]string{"versions", "--json", table}, 0, "", "{\"version\":0}\n{\"version\":1}\n"},
	} {
		code, out, errOut := runCLI(c.args...)
		if code != c.code || (c.code != 0 && errOut != c.stderr) || !strings.Contains(out, c.stdout) || (c.code == 0 && errOut != "") {
			t.Errorf("deltafs %s: exit %d, stderr %q, stdout %.80q; want exit %d, stderr %q, stdout with %q",
				strings.Join(c.args, " "), code, errOut, out, c.code, c.stderr, c.stdout)
		}
	}
	// A table deltafs cannot read: versions refuses it, as ls does.
	code, out, errOut := runCLI("versions", testdata(t, "delta-rs/data/simple_table_features"))
	if code != 1 || out != "" || !strings.Contains(errOut, "blahabl") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("versions of an unreadable table: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The flag help says what the default is, once.
	_, out, _ = runCLI("ls", "--help")
	if !strings.Contains(out, "version to list (default latest)\n") {
		t.Errorf("ls --help: %q", out)
	}
}
