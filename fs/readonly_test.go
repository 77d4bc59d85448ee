package fs

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
)

func TestEverythingIsReadOnly(t *testing.T) {
	m := mountFake(t, standardTable(t), Options{})
	file := m.path("v/1/small.parquet")
	dir := m.path("v/1")
	checks := map[string]func() error{
		"create":          func() error { return os.WriteFile(m.path("v/1/new.parquet"), []byte("x"), 0o644) },
		"create in root":  func() error { return os.WriteFile(m.path("new"), nil, 0o644) },
		"create in v":     func() error { return os.WriteFile(m.path("v/new"), nil, 0o644) },
		"open for write":  func() error { f, err := os.OpenFile(file, os.O_WRONLY, 0); closeIf(f); return err },
		"open read-write": func() error { f, err := os.OpenFile(file, os.O_RDWR, 0); closeIf(f); return err },
		"truncate":        func() error { return os.Truncate(file, 0) },
		"mkdir":           func() error { return os.Mkdir(m.path("v/1/d"), 0o755) },
		"mkdir version":   func() error { return os.Mkdir(m.path("v/99"), 0o755) },
		"rename":          func() error { return os.Rename(file, m.path("v/1/renamed")) },
		"rename dir":      func() error { return os.Rename(m.path("v/1/date=2024-01-01"), m.path("v/1/x")) },
		"unlink":          func() error { return os.Remove(file) },
		"unlink latest":   func() error { return os.Remove(m.path("latest")) },
		"rmdir":           func() error { return syscall.Rmdir(m.path("v/1/date=2024-01-01")) },
		"rmdir version":   func() error { return syscall.Rmdir(dir) },
		"chmod":           func() error { return os.Chmod(file, 0o644) },
		"chmod dir":       func() error { return os.Chmod(dir, 0o755) },
		"chown":           func() error { return os.Chown(file, 1, 1) },
		"symlink":         func() error { return os.Symlink("small.parquet", m.path("v/1/link")) },
		"link":            func() error { return os.Link(file, m.path("v/1/hard")) },
		"setxattr":        func() error { return syscall.Setxattr(file, "user.x", []byte("y"), 0) },
		"removexattr":     func() error { return syscall.Removexattr(file, "user.delta.version") },
		"write history":   func() error { return os.WriteFile(m.path("history.jsonl"), nil, 0o644) },
	}
	for name, op := range checks {
		if err := op(); !errors.Is(err, syscall.EROFS) {
			t.Errorf("%s: err = %v, want EROFS", name, err)
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("file gone after the attempts: %v", err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(m.dir, &st); err != nil {
		t.Fatal(err)
	}
	if st.Flags&1 == 0 { // ST_RDONLY
		t.Errorf("mount is not read-only: statfs flags %#x", st.Flags)
	}
}

func closeIf(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// The nodes refuse changes on their own, not only because the mount is
// read-only.
func TestNodesRefuseChanges(t *testing.T) {
	ctx := context.Background()
	var d readOnlyDir
	if e := d.Unlink(ctx, "x"); e != syscall.EROFS {
		t.Errorf("Unlink = %v", e)
	}
	if e := d.Rmdir(ctx, "x"); e != syscall.EROFS {
		t.Errorf("Rmdir = %v", e)
	}
	if _, e := d.Mkdir(ctx, "x", 0o755, nil); e != syscall.EROFS {
		t.Errorf("Mkdir = %v", e)
	}
	if _, _, _, e := d.Create(ctx, "x", 0, 0o644, nil); e != syscall.EROFS {
		t.Errorf("Create = %v", e)
	}
	if e := d.Rename(ctx, "x", nil, "y", 0); e != syscall.EROFS {
		t.Errorf("Rename = %v", e)
	}
	var f readOnlyFile
	if _, e := f.Write(ctx, nil, []byte("x"), 0); e != syscall.EROFS {
		t.Errorf("Write = %v", e)
	}
	if e := f.Setattr(ctx, nil, nil, nil); e != syscall.EROFS {
		t.Errorf("Setattr = %v", e)
	}
	if e := openReadOnly(syscall.O_RDONLY); e != 0 {
		t.Errorf("openReadOnly(O_RDONLY) = %v", e)
	}
	if e := openReadOnly(syscall.O_RDWR); e != syscall.EROFS {
		t.Errorf("openReadOnly(O_RDWR) = %v", e)
	}
}
