package versions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/blobstore"
	"github.com/deltafs/deltafs/replay"
)

// A _last_checkpoint that is no regular file (a folder, a FIFO, a link the
// store will not follow) is only a hint that cannot be read: the table
// opens from a listing of the log, as with a garbled one, and says why.
// Nothing blocks on the FIFO, and the link is not followed.
func TestOpenPastUnreadableHint(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "hint")
	if err := os.WriteFile(outside, []byte(`{"version":1,"size":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, why string
		make      func(path string) error
	}{
		{"folder", "not a regular file", func(p string) error { return os.Mkdir(p, 0o755) }},
		{"fifo", "not a regular file", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"symlink", "symbolic link", func(p string) error { return os.Symlink(outside, p) }},
		{"garbage", "names no checkpoint", func(p string) error { return os.WriteFile(p, []byte("garbage"), 0o644) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			logDir := filepath.Join(dir, replay.LogDir)
			if err := os.MkdirAll(logDir, 0o755); err != nil {
				t.Fatal(err)
			}
			for v := range int64(3) {
				if err := os.WriteFile(filepath.Join(logDir, replay.Padded(v)+".json"), []byte("{}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.make(filepath.Join(dir, LastCheckpointKey)); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			st, err := blobstore.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			table, err := Open(ctx, st, Options{})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if table.Latest() != 2 || table.Hint() != HintCorrupt || table.HintVersion() != -1 {
				t.Errorf("latest %d, hint %s at %d; want 2, corrupt at -1", table.Latest(), table.Hint(), table.HintVersion())
			}
			if why := table.HintProblem(); why == nil || !strings.Contains(why.Error(), c.why) {
				t.Errorf("hint problem %v, want one saying %q", why, c.why)
			}
		})
	}
}
