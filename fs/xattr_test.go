package fs

import (
	"errors"
	"sort"
	"strings"
	"syscall"
	"testing"
)

func getxattr(t *testing.T, path, name string) (string, error) {
	t.Helper()
	n, err := syscall.Getxattr(path, name, nil)
	if err != nil {
		return "", err
	}
	buf := make([]byte, n)
	n, err = syscall.Getxattr(path, name, buf)
	return string(buf[:n]), err
}

func TestXattrs(t *testing.T) {
	m := mountFake(t, standardTable(t), Options{})
	p := m.path("v/1/date=2024-01-02/part-1.parquet")
	for name, want := range map[string]string{
		"user.delta.numRecords":      "7",
		"user.delta.partitionValues": `{"date":"2024-01-02"}`,
		"user.delta.deletedRows":     "0",
		"user.delta.version":         "1",
		"user.delta.path":            "date=2024-01-02/part-1.parquet",
		"user.delta.size":            "131071",
	} {
		got, err := getxattr(t, p, name)
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := getxattr(t, p, "user.delta.nope"); !errors.Is(err, syscall.ENODATA) {
		t.Errorf("unknown xattr: err = %v, want ENODATA", err)
	}
	if _, err := syscall.Getxattr(p, "user.delta.path", make([]byte, 3)); !errors.Is(err, syscall.ERANGE) {
		t.Errorf("short buffer: err = %v, want ERANGE", err)
	}

	list := func(path string) []string {
		n, err := syscall.Listxattr(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, n)
		n, err = syscall.Listxattr(path, buf)
		if err != nil {
			t.Fatal(err)
		}
		names := strings.Split(strings.TrimSuffix(string(buf[:n]), "\x00"), "\x00")
		sort.Strings(names)
		return names
	}
	if got, want := strings.Join(list(p), " "), "user.delta.deletedRows user.delta.modificationTime user.delta.numRecords user.delta.partitionValues user.delta.path user.delta.size user.delta.version"; got != want {
		t.Errorf("listxattr = %q, want %q", got, want)
	}
	// Unknown record counts are absent; deletion vectors are described.
	if _, err := getxattr(t, m.path("v/1/big.bin"), "user.delta.numRecords"); !errors.Is(err, syscall.ENODATA) {
		t.Errorf("numRecords of a file without stats: err = %v, want ENODATA", err)
	}
	dv := m.path("v/1/dv.parquet")
	if got, err := getxattr(t, dv, "user.delta.deletedRows"); err != nil || got != "6" {
		t.Errorf("deletedRows of the DV file = %q, %v", got, err)
	}
	if got, err := getxattr(t, dv, "user.delta.deletionVector"); err != nil || !strings.Contains(got, `"cardinality":6`) {
		t.Errorf("deletionVector of the DV file = %q, %v", got, err)
	}
	if got, err := getxattr(t, m.path("v/1/small.parquet"), "user.delta.partitionValues"); err != nil || got != "{}" {
		t.Errorf("partitionValues of an unpartitioned file = %q, %v", got, err)
	}
}

// With attributes off, the kernel asks once and then answers "not
// supported" itself, whatever the name (ls -l asks each file for a label,
// ls --color for capabilities); the log says which flag serves
// user.delta.*, only to a process that asks for those (getfattr), and once.
func TestXattrsOff(t *testing.T) {
	tbl := standardTable(t)
	files := []string{"v/1/small.parquet", "v/1/big.bin", "v/1/dv.parquet"}
	for _, tc := range []struct {
		name  string
		ask   func(path string) error
		hints bool
	}{
		{"ls -l", func(p string) error { _, err := syscall.Getxattr(p, "security.selinux", nil); return err }, false},
		{"ls --color", func(p string) error { _, err := syscall.Getxattr(p, "security.capability", nil); return err }, false},
		{"getfattr -n", func(p string) error { _, err := syscall.Getxattr(p, "user.delta.version", nil); return err }, true},
		{"getfattr -d", func(p string) error { _, err := syscall.Listxattr(p, nil); return err }, true},
	} {
		m := mountFake(t, tbl, Options{NoXAttrs: true, Debug: true, RefreshInterval: -1})
		for range 2 {
			for _, f := range files {
				if err := tc.ask(m.path(f)); !errors.Is(err, syscall.EOPNOTSUPP) {
					t.Errorf("%s %s: err = %v, want EOPNOTSUPP", tc.name, f, err)
				}
			}
		}
		if n := fuseRequests(m, "GETXATTR") + fuseRequests(m, "LISTXATTR"); n != 1 {
			t.Errorf("%s: %d requests for 6 asks, want 1", tc.name, n)
		}
		hints := strings.Count(m.logs.String(), "mount with --xattrs")
		if want := map[bool]int{false: 0, true: 1}[tc.hints]; hints != want {
			t.Errorf("%s: %d hints in the log, want %d:\n%s", tc.name, hints, want, m.logs)
		}
	}
}
