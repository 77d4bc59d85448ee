package blobstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLocalReadsStayInTheFolder: reads of a local table follow no symbolic
// link (out of the folder or within it), refuse FIFOs and folders without
// blocking, read plain files as they are (a stray X.attrs beside X, or a
// data file named X.attrs, are plain files too) and refuse names that
// leave the folder.
func TestLocalReadsStayInTheFolder(t *testing.T) {
	ctx := context.Background()
	outside, dir := t.TempDir(), t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret"), "secret")
	write(filepath.Join(dir, "plain.parquet"), "plain")
	write(filepath.Join(dir, "plain.parquet.attrs"), "not the driver's metadata")
	write(filepath.Join(dir, "data.attrs"), "a data file")
	write(filepath.Join(dir, "sub", "x.parquet"), "nested")
	for name, target := range map[string]string{
		"out.parquet":   filepath.Join(outside, "secret"),
		"in.parquet":    "plain.parquet",
		"linkdir":       outside,
		"sub/up.parque": "../plain.parquet",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	for key, want := range map[string]string{"plain.parquet": "plain", "data.attrs": "a data file", "sub/x.parquet": "nested"} {
		got, err := st.Read(ctx, key)
		if err != nil || string(got) != want {
			t.Errorf("Read(%s) = %q, %v; want %q", key, got, err, want)
		}
		got, err = st.ReadRange(ctx, key, 1, 3)
		if err != nil || string(got) != want[1:4] {
			t.Errorf("ReadRange(%s) = %q, %v", key, got, err)
		}
		if o, err := st.Stat(ctx, key); err != nil || o.Size != int64(len(want)) {
			t.Errorf("Stat(%s) = %+v, %v", key, o, err)
		}
		f, _, err := st.OpenLocal(key)
		if err != nil {
			t.Errorf("OpenLocal(%s): %v", key, err)
		} else {
			f.Close()
		}
	}
	for key, why := range map[string]string{
		"out.parquet":        "symbolic link",
		"in.parquet":         "symbolic link",
		"linkdir/secret":     "symbolic link",
		"sub/up.parque":      "symbolic link",
		"fifo.parquet":       "FIFO",
		"sub":                "folder",
		"../outside/secret":  "leaves the table folder",
		"/etc/passwd":        "leaves the table folder",
		"sub/../../x":        "leaves the table folder",
		"missing.parquet":    "object not found",
		"plain.parquet/more": "object not found",
	} {
		_, errRead := st.Read(ctx, key)
		_, errRange := st.ReadRange(ctx, key, 0, 10)
		_, errStat := st.Stat(ctx, key)
		_, _, errOpen := st.OpenLocal(key)
		for _, err := range []error{errRead, errRange, errStat, errOpen} {
			if err == nil || !strings.Contains(err.Error(), why) {
				t.Errorf("%s: %v, want %q", key, err, why)
			}
		}
		if why != "object not found" && !errors.Is(errRead, ErrRefused) {
			t.Errorf("%s: %v is not ErrRefused", key, errRead)
		}
		if why == "object not found" && !errors.Is(errRead, ErrNotFound) {
			t.Errorf("%s: %v is not ErrNotFound", key, errRead)
		}
	}
}

// TestLocalWalkRefusesLinks: the walk used where openat2 is missing
// applies the same rules.
func TestLocalWalkRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f", filepath.Join(dir, "a", "g")); err != nil {
		t.Fatal(err)
	}
	l, err := openLocalRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	fd, err := l.walk("a/f", openFlags)
	if err != nil {
		t.Fatalf("walk(a/f): %v", err)
	}
	syscall.Close(fd)
	for _, key := range []string{"l/f", "a/g"} {
		if fd, err := l.walk(key, openFlags); err == nil {
			syscall.Close(fd)
			t.Errorf("walk(%s) followed a link", key)
		}
	}
}

// TestS3WithoutRegion: an s3:// table with no region anywhere is refused
// at open with what to set, before any request (the SDK would fail each
// one with "Invalid region: region was not a valid DNS name").
func TestS3WithoutRegion(t *testing.T) {
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	_, err := Open(context.Background(), "s3://bucket/table")
	if err == nil || !strings.Contains(err.Error(), "no AWS region: set AWS_REGION, or add ?region=") {
		t.Fatalf("open: %v; want the missing region named", err)
	}
}

// TestGCSWithoutCredentials: a gs:// table with no source of credentials
// is refused at open with what to set, before any request (the driver
// printed a warning and the request failed with a PEM parse error).
func TestGCSWithoutCredentials(t *testing.T) {
	for _, k := range []string{"STORAGE_EMULATOR_HOST", "STORAGE_EMULATOR_HOST_GRPC", "GOOGLE_APPLICATION_CREDENTIALS", "GCE_METADATA_HOST"} {
		t.Setenv(k, "")
	}
	t.Setenv("CLOUDSDK_CONFIG", t.TempDir())
	if b, err := os.ReadFile("/sys/class/dmi/id/product_name"); err == nil && strings.HasPrefix(string(b), "Google") {
		t.Skip("SKIPPING: this machine is Google's: its metadata server has credentials")
	}
	_, err := Open(context.Background(), "gs://bucket/table")
	if err == nil || !strings.Contains(err.Error(), "no Google credentials: set GOOGLE_APPLICATION_CREDENTIALS") {
		t.Fatalf("open: %v; want the missing credentials named", err)
	}
	// An emulator needs none.
	t.Setenv("STORAGE_EMULATOR_HOST", "127.0.0.1:1")
	st, err := Open(context.Background(), "gs://bucket/table")
	if err != nil {
		t.Fatalf("open with an emulator: %v", err)
	}
	st.Close()
}

// A local table may be named file:/abs (Hadoop's spelling) as well as
// file:///abs; file://host/... names another machine and is refused.
func TestFileLocations(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "a b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{"file:" + filepath.ToSlash(dir) + "/a%20b", "file://" + filepath.ToSlash(dir) + "/a%20b", "file://localhost" + filepath.ToSlash(dir) + "/a%20b"} {
		st, err := Open(context.Background(), loc)
		if err != nil {
			t.Errorf("%s: %v", loc, err)
			continue
		}
		if b, err := st.ReadRange(context.Background(), "x", 0, 1); err != nil || string(b) != "x" {
			t.Errorf("%s: read %q, %v", loc, b, err)
		}
		st.Close()
	}
	if _, err := Open(context.Background(), "file://tmp"+filepath.ToSlash(dir)); err == nil || !strings.Contains(err.Error(), `names host "tmp"`) {
		t.Errorf("file://tmp/...: %v, want the host refused", err)
	}
}
