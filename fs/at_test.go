package fs

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// TestAtResolvesInstants: at/ lists one canonical instant per version;
// any accepted spelling of an instant is a symlink to the version it
// resolves to, which cd and ls follow; an instant before the first
// version, or a name that is no instant, does not exist.
func TestAtResolvesInstants(t *testing.T) {
	tbl := standardTable(t) // v0 at 1,700,000,000,000 ms, v1 one second later
	m := mountFake(t, tbl, Options{})
	if got := names(t, m.path("at")); got != "2023-11-14T22:13:20.000Z 2023-11-14T22:13:21.000Z" {
		t.Errorf("ls at = %q", got)
	}
	for name, want := range map[string]string{
		"2023-11-14T22:13:20.000Z":       "../v/0",
		"2023-11-14T22:13:20.999Z":       "../v/0",
		"2023-11-14T22:13:21Z":           "../v/1",
		"2023-11-14T23:13:21.5+01:00":    "../v/1",
		"2023-11-15":                     "../v/1",
		"2030-01-01T00:00:00.000000001Z": "../v/1",
	} {
		if got, err := os.Readlink(m.path("at/" + name)); err != nil || got != want {
			t.Errorf("readlink at/%s = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"2023-11-14T22:13:19.999Z", "2023-11-14", "yesterday", "1700000000000"} {
		if _, err := os.Lstat(m.path("at/" + name)); !errors.Is(err, syscall.ENOENT) {
			t.Errorf("at/%s: %v, want ENOENT", name, err)
		}
	}
	if got, want := names(t, m.path("at/2023-11-14T22:13:20.5Z")), names(t, m.path("v/0")); got != want {
		t.Errorf("ls at/<v0's instant>/ = %q, want v/0's %q", got, want)
	}
}

// TestAtListsOnlyWhatResolves: a version timed past the year 9999 (a
// broken or hostile log) has no RFC 3339 name: at/ does not list a name
// that its lookup would not find.
func TestAtListsOnlyWhatResolves(t *testing.T) {
	tbl := standardTable(t)
	tbl.mu.Lock()
	tbl.history[1].Instant = new(int64(1e15)) // the year 33658
	tbl.mu.Unlock()
	m := mountFake(t, tbl, Options{})
	es, err := os.ReadDir(m.path("at"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if _, err := os.Lstat(m.path("at/" + e.Name())); err != nil {
			t.Errorf("ls at/ lists %s: %v", e.Name(), err)
		}
	}
	if len(es) != 1 {
		t.Errorf("ls at/ lists %d names, want v0's only", len(es))
	}
}
