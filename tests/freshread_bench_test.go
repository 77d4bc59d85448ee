package tests

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/tests/servers"
)

// TestFreshProcessReadBenchmark: the first read of a 1 GiB file from S3
// (versitygw) by `deltafs mount` in a new process with its defaults,
// paired with one curl GET of the object and one read through a new
// `rclone mount` of the bucket (its defaults) just before it; and the
// mount process's peak resident memory (VmHWM) against its documented
// bound.
//
//	make build
//	DELTAFS_FRESH_BENCH=1 go test ./tests -run TestFreshProcessReadBenchmark -v -count=1
//
// DELTAFS_FRESH_FLAGS adds flags to the mount (e.g. --no-open).
// DELTAFS_FRESH_TLS=1 serves the bucket over HTTPS, as S3 is reached
// (every reader decrypts what it reads).
// DELTAFS_FRESH_BINS names other builds of deltafs to measure in the same
// runs, each after the default one (two builds compared without the
// machine's drift between separate runs).
func TestFreshProcessReadBenchmark(t *testing.T) {
	if os.Getenv("DELTAFS_FRESH_BENCH") == "" {
		t.Skip("benchmark: set DELTAFS_FRESH_BENCH=1 to run")
	}
	requireFUSE(t)
	bin, rclone := deltafsBin(t), rcloneBin(t)
	srv := servers.Start(t, servers.VersityGW)
	if os.Getenv("DELTAFS_FRESH_TLS") != "" {
		srv = servers.StartOwn(t, servers.VersityGWTLS)
		t.Setenv("AWS_CA_BUNDLE", srv.CACert) // for the store writing the table, and the mounts
	}
	size := int64(envInt("DELTAFS_FRESH_MIB", 1024)) << 20
	location := srv.Location("fresh/" + t.Name())
	want := rrPutTable(t, location, size)
	object := fmt.Sprintf("%s/%s/fresh/%s/big.bin", srv.Endpoint(), servers.Bucket, t.Name())
	flags := strings.Fields(os.Getenv("DELTAFS_FRESH_FLAGS"))
	others := strings.Fields(os.Getenv("DELTAFS_FRESH_BINS"))
	otherRatios := make([][]float64, len(others))
	const runs = 5
	var ratios, rcloneRatios []float64
	var curls, rclones, mounts []time.Duration
	var peaks []int64
	for range runs {
		start := time.Now()
		curlGet(t, object, size, srv.CACert)
		c := time.Since(start)
		rc := rcloneMount(t, rclone, srv, "fresh/"+t.Name())
		r := timeRead(t, filepath.Join(rc.mp, "big.bin"), size)
		rc.stop()
		d, peak := freshMountRead(t, bin, location, size, flags)
		peaks = append(peaks, peak)
		for i, other := range others {
			o, _ := freshMountRead(t, other, location, size, flags)
			otherRatios[i] = append(otherRatios[i], c.Seconds()/o.Seconds())
		}
		curls, rclones, mounts = append(curls, c), append(rclones, r), append(mounts, d)
		ratios, rcloneRatios = append(ratios, c.Seconds()/d.Seconds()), append(rcloneRatios, r.Seconds()/d.Seconds())
	}
	// The bytes, once, outside the timed runs.
	mp := t.TempDir()
	p := startMount(t, bin, location, mp, flags...)
	p.ready(t)
	rrReadFile(t, filepath.Join(mp, "latest", "big.bin"), want)
	p.stop(t, syscall.SIGTERM)
	for _, s := range [][]time.Duration{curls, rclones, mounts} {
		slices.Sort(s)
	}
	slices.Sort(ratios)
	slices.Sort(rcloneRatios)
	slices.Sort(peaks)
	t.Logf("%d MiB, new process: curl %.0f MiB/s, rclone %.0f MiB/s, deltafs %.0f MiB/s; deltafs's speed (median of %d runs) %.2fx curl's, %.2fx rclone's; peak RSS median %d MiB (max %d)",
		size>>20, rrMiBps(size, curls[runs/2]), rrMiBps(size, rclones[runs/2]), rrMiBps(size, mounts[runs/2]), runs, ratios[runs/2], rcloneRatios[runs/2], peaks[runs/2]>>20, peaks[runs-1]>>20)
	for i, other := range others {
		slices.Sort(otherRatios[i])
		t.Logf("%s: %.2fx curl's speed (median of %d; each run after the default build's)", other, otherRatios[i][runs/2], runs)
	}
}

// freshMountRead mounts location with the deltafs binary bin in a new
// process, times one read of the whole file, logs the process's CPU time
// and page faults, and stops it; it returns the time and the process's
// peak resident memory.
func freshMountRead(t *testing.T, bin, location string, size int64, flags []string) (time.Duration, int64) {
	t.Helper()
	mp := t.TempDir()
	p := startMount(t, bin, location, mp, flags...)
	p.ready(t)
	d := timeRead(t, filepath.Join(mp, "latest", "big.bin"), size)
	pid := p.cmd.Process.Pid
	peak := vmHWM(t, pid)
	t.Logf("%s: %v, CPU %.2f s, %d minor page faults, peak RSS %d MiB", bin, d.Round(time.Millisecond), processCPU(t, pid), minorFaults(t, pid), peak>>20)
	if s := p.stderr.String(); s != "" {
		t.Logf("mount stderr: %s", s)
	}
	p.stop(t, syscall.SIGTERM)
	return d, peak
}

// timeRead reads path front to back in 1 MiB reads and returns how long
// that took.
func timeRead(t *testing.T, path string, size int64) time.Duration {
	t.Helper()
	buf := make([]byte, 1<<20)
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var n int64
	for {
		m, err := f.Read(buf) // 1 MiB a call: io.Copy to io.Discard would read 8 KiB ones
		n += int64(m)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read %s at %d: %v", path, n, err)
		}
	}
	if n != size {
		t.Fatalf("read %s: %d bytes, want %d", path, n, size)
	}
	return time.Since(start)
}

// vmHWM is a process's peak resident memory, in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// curlGet downloads the object at url (on the test S3 server; caCert: the
// CA of its certificate, for https://) with one curl GET to /dev/null,
// signed with the test credentials, and checks its size: the peer of the
// remote read benchmarks.
func curlGet(t *testing.T, url string, size int64, caCert string) {
	t.Helper()
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("SKIPPING: no curl")
	}
	args := []string{"-sS", "-o", "/dev/null", "-w", "%{size_download}",
		"--aws-sigv4", "aws:amz:us-east-1:s3", "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", "--user", servers.S3AccessKey + ":" + servers.S3SecretKey, url}
	if caCert != "" {
		args = append(args, "--cacert", caCert)
	}
	out, err := exec.Command(curl, args...).Output()
	if err != nil || strings.TrimSpace(string(out)) != strconv.FormatInt(size, 10) {
		t.Fatalf("curl: %s, %v", out, err)
	}
}
