package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/tests/servers"
)

// rcloneVersion is the rclone the benchmarks compare against: the FUSE
// mount of a bucket a user would pick instead of deltafs.
const rcloneVersion = "v1.76.0"

// rcloneBin returns rclone: $DELTAFS_RCLONE, else one built with `go
// install` into the bench folder on first use (about five minutes), or
// skips when it does not build.
func rcloneBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("DELTAFS_RCLONE"); p != "" {
		return p
	}
	dir := cachedBenchDir(t, "deltafs-rclone-"+rcloneVersion, func(dir string) error {
		t.Logf("building rclone %s with go install (once)", rcloneVersion)
		cmd := exec.Command("go", "install", "github.com/rclone/rclone@"+rcloneVersion)
		cmd.Env = append(os.Environ(), "GOBIN="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("SKIPPING: rclone %s does not build here: %v\n%s", rcloneVersion, err, out)
		}
		return nil
	})
	return filepath.Join(dir, "rclone")
}

// rcloneProc is a running `rclone mount`.
type rcloneProc struct {
	cmd    *exec.Cmd
	mp     string
	exited chan struct{}
	stderr lockedBuffer
}

// rcloneMount mounts prefix of the S3 server's bucket read-only at a new
// temp dir with rclone's defaults (no VFS cache); it is unmounted when the
// test ends, or by stop. Extra flags follow rclone's own.
func rcloneMount(t *testing.T, bin string, srv *servers.Server, prefix string, extra ...string) *rcloneProc {
	t.Helper()
	p := &rcloneProc{mp: t.TempDir(), exited: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"mount", ":s3:" + servers.Bucket + "/" + prefix, p.mp, "--read-only",
		"--s3-provider", "Other", "--s3-endpoint", srv.Endpoint(), "--s3-region", "us-east-1",
		"--s3-access-key-id", servers.S3AccessKey, "--s3-secret-access-key", servers.S3SecretKey}, extra...)...)
	if srv.CACert != "" {
		p.cmd.Args = append(p.cmd.Args, "--ca-cert", srv.CACert)
	}
	p.cmd.Env = append(os.Environ(), "RCLONE_CONFIG="+filepath.Join(t.TempDir(), "none.conf"))
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(p.stop)
	for deadline := time.Now().Add(60 * time.Second); !isMountPoint(p.mp); time.Sleep(50 * time.Millisecond) {
		select {
		case <-p.exited:
			t.Fatalf("rclone mount exited: %s", p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("rclone mount did not come up in 60 s: %s", p.stderr.String())
		}
	}
	return p
}

// stop ends the mount and waits for the process.
func (p *rcloneProc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
	exec.Command("fusermount3", "-uz", p.mp).Run()
}

// isMountPoint reports whether dir is listed in this process's mounts.
func isMountPoint(dir string) bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == dir {
			return true
		}
	}
	return false
}
