package tests

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// deltafsBin is the built CLI: $DELTAFS_BIN, else ../bin/deltafs. The test
// skips, loudly, when it is absent.
func deltafsBin(t testing.TB) string {
	t.Helper()
	p := os.Getenv("DELTAFS_BIN")
	if p == "" {
		p = filepath.Join("..", "bin", "deltafs")
	}
	abs, err := filepath.Abs(p)
	if err == nil {
		var info os.FileInfo
		if info, err = os.Stat(abs); err == nil && info.Mode()&0o111 == 0 {
			err = errors.New("not executable")
		}
	}
	if err != nil {
		t.Skipf("SKIPPING: deltafs binary not found at %s (run `make build` or set DELTAFS_BIN): %v", p, err)
	}
	return abs
}

// isMounted reports whether /proc/mounts lists dir as a mount target.
func isMounted(t *testing.T, dir string) bool {
	t.Helper()
	data, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Fatal(err)
	}
	target, err := filepath.EvalSymlinks(dir)
	if err != nil {
		target = dir
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 2 && unescapeMount(fields[1]) == target {
			return true
		}
	}
	return false
}

// unescapeMount undoes /proc/mounts' octal escapes (\040 for a space...).
func unescapeMount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mountProc is one `deltafs mount` process.
type mountProc struct {
	cmd    *exec.Cmd
	dir    string
	stderr *lockedBuffer
	lines  chan string   // stdout, line by line (the first 100 unread); closed at EOF
	eof    chan struct{} // closed when stdout is read to its end

	mu  sync.Mutex
	out []string // GUARDED_BY(mu): every stdout line so far
}

// procPatience bounds every wait on a deltafs process: generous for a
// loaded machine, there only to turn a hang into a failure.
const procPatience = 2 * time.Minute

func startMount(t *testing.T, bin, table, dir string, extra ...string) *mountProc {
	t.Helper()
	return startProc(t, bin, dir, append([]string{"mount", table, dir}, extra...)...)
}

// startProc runs bin with args, collecting its output; dir is where it
// mounts, detached at cleanup if the process left it mounted.
func startProc(t *testing.T, bin, dir string, args ...string) *mountProc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	// A hang then ends with every goroutine's stack on stderr (wait).
	cmd.Env = append(os.Environ(), "GOTRACEBACK=all")
	p := &mountProc{cmd: cmd, dir: dir, stderr: &lockedBuffer{}, lines: make(chan string, 100), eof: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.mu.Lock()
			p.out = append(p.out, sc.Text())
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default: // nobody reads them: p.out has every line
			}
		}
		close(p.lines)
		close(p.eof)
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
		}
		if isMounted(t, dir) {
			t.Errorf("%s still mounted at cleanup; detaching it", dir)
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	return p
}

func (p *mountProc) stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.out, "\n")
}

// ready waits for the "ready" line and returns it; the test fails, with
// what the process printed, if the process ends or hangs first.
func (p *mountProc) ready(t *testing.T) string {
	t.Helper()
	timeout := time.After(procPatience)
	for ended := false; !ended; {
		select {
		case line, ok := <-p.lines:
			if ok && strings.HasPrefix(line, "ready") {
				return line
			}
			ended = !ok
		case <-timeout:
			ended = true
		}
	}
	code, _ := p.wait(procPatience)
	t.Fatalf("%s: no ready line; exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(p.cmd.Args, " "), code, p.stdout(), p.stderr.String())
	return ""
}

// stop sends sig; the test fails unless the process then exits 0 and
// leaves nothing mounted.
func (p *mountProc) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	if code, timedOut := p.wait(procPatience); timedOut || code != 0 {
		t.Errorf("%s after %v: exit %d (timed out: %v), want 0; stderr:\n%s", strings.Join(p.cmd.Args, " "), sig, code, timedOut, p.stderr.String())
	}
	if isMounted(t, p.dir) {
		t.Errorf("%s still mounted after deltafs exited", p.dir)
	}
}

// wait waits for the process to exit, aborting it after d (SIGABRT: Go
// writes its goroutines' stacks on stderr, which says where it hung), and
// killing it if that does not end it. Wait closes
// the stdout pipe once the process has exited, so the pipe is first read
// to its end: else the last lines ("unmounted") could be lost.
func (p *mountProc) wait(d time.Duration) (exitCode int, timedOut bool) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	select {
	case <-p.eof:
	case <-ctx.Done():
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-ctx.Done():
		timedOut = true
		_ = p.cmd.Process.Signal(syscall.SIGABRT)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
	}
	return p.cmd.ProcessState.ExitCode(), timedOut
}

// TestMountBinarySignals runs `deltafs mount`, waits for its ready line,
// uses the mount, then sends SIGTERM (in other runs SIGINT, SIGHUP as a
// closing terminal does, and SIGQUIT as Ctrl-\ does): the process must
// exit 0 and leave nothing in /proc/mounts. SIGQUIT also gets Go's
// goroutine dump on stderr first; left to Go, it exited 2 after the dump,
// leaving the mount dead.
func TestMountBinarySignals(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	table := filepath.Join(TestdataDir(t), "dat/reader_tests/generated/basic_partitioned/delta")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			p := startMount(t, bin, table, dir)
			t.Logf("%s", p.ready(t))
			if !isMounted(t, dir) {
				t.Fatalf("ready printed but %s is not in /proc/mounts", dir)
			}
			if got := readlink(t, filepath.Join(dir, "latest")); got != "v/1" {
				t.Errorf("latest -> %q, want v/1", got)
			}
			if names, err := walkFiles(filepath.Join(dir, "latest")); err != nil || len(names) != 6 {
				t.Errorf("latest: %d files (want 6), %v", len(names), err)
			}
			p.stop(t, sig)
			if dump := p.stderr.String(); sig == syscall.SIGQUIT && (!strings.Contains(dump, "SIGQUIT: goroutine dump") || !strings.Contains(dump, "\ngoroutine 1 [")) {
				t.Errorf("no goroutine dump on stderr after SIGQUIT:\n%s", dump)
			}
		})
	}
}

// TestMountBinaryRefusesTables runs `deltafs mount` on every table deltafs
// must refuse (oracle_test.go's refusedTables and negativeReasons): a non-zero
// exit, no ready line, nothing mounted, and an error that says why (for
// simple_table_features, the unknown reader feature "blahabl").
func TestMountBinaryRefusesTables(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	data := TestdataDir(t)
	want := map[string]string{}
	for table, reason := range refusedTables {
		want[table] = reason
	}
	for table, reason := range negativeReasons {
		want[table] = reason
	}
	if want["delta-rs/data/simple_table_features"] != "blahabl" {
		t.Fatal("refusedTables no longer expects simple_table_features to be refused for blahabl")
	}
	for table, reason := range want {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "mount", filepath.Join(data, table), dir)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() == 0 {
				t.Errorf("want a non-zero exit, got %v", err)
			}
			if strings.Contains(stdout.String(), "ready") {
				t.Errorf("printed ready for a table it must refuse:\n%s", stdout.String())
			}
			if !strings.Contains(stderr.String(), reason) {
				t.Errorf("stderr does not name %q:\n%s", reason, stderr.String())
			}
			if isMounted(t, dir) {
				t.Errorf("%s mounted although the table was refused", dir)
				_ = syscall.Unmount(dir, syscall.MNT_DETACH)
			}
		})
	}
}

// TestMountBinarySignalWhileBusy sends SIGTERM while a file of the mount is
// open (as when a shell sits in the mount or a reader is mid-file): deltafs
// must still exit 0 and leave no mount behind, rather than a dead one
// ("Transport endpoint is not connected").
func TestMountBinarySignalWhileBusy(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	table := filepath.Join(TestdataDir(t), "dat/reader_tests/generated/basic_append/delta")
	dir := t.TempDir()
	p := startMount(t, bin, table, dir)
	p.ready(t)
	names, err := walkFiles(filepath.Join(dir, "latest"))
	if err != nil || len(names) == 0 {
		t.Fatalf("latest: %v %v", names, err)
	}
	f, err := os.Open(filepath.Join(dir, "latest", names[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p.stop(t, syscall.SIGTERM)
}

// TestMountBinaryDemo runs `deltafs demo DIR`: it must write the sample
// table, mount it at DIR/mnt with the versions the tour talks about, and
// stop cleanly on SIGINT (Ctrl-C).
func TestMountBinaryDemo(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	dir := t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	p := startProc(t, bin, mnt, "demo", dir)
	p.ready(t)
	if !waitFor(5*time.Second, func() bool { return strings.Contains(p.stdout(), "Ctrl-C") }) {
		t.Errorf("demo printed no tour after ready:\n%s", p.stdout())
	}
	if got := readlink(t, filepath.Join(mnt, "latest")); got != "v/5" {
		t.Errorf("latest -> %q, want v/5", got)
	}
	want := map[string][]string{
		"v/0":    {"date=2024-01-01/part-00000.parquet", "date=2024-01-02/part-00000.parquet"},
		"v/3":    {"date=2024-01-02/part-00000.parquet", "date=2024-01-03/part-00000.parquet", "date=2024-01-03/part-00001.parquet"},
		"latest": {"date=2024-01-02/part-00000.parquet", "date=2024-01-03/part-00002.parquet", "date=2024-01-04/part-00000.parquet"},
	}
	for v, files := range want {
		got, err := walkFiles(filepath.Join(mnt, v))
		if err != nil || !sameStrings(got, files) {
			t.Errorf("%s: got %q (%v), want %q", v, got, err, files)
		}
	}
	// The removed file is still in the table's folder, but only v/0..v/2 show it.
	if _, err := os.Stat(filepath.Join(dir, "table", "date=2024-01-01", "part-00000.parquet")); err != nil {
		t.Errorf("the DELETEd file should stay on disk: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "table", "_delta_log", "00000000000000000003.checkpoint.parquet")); err != nil {
		t.Errorf("no checkpoint: %v", err)
	}
	hist, err := os.ReadFile(filepath.Join(mnt, "history.jsonl"))
	if err != nil || strings.Count(string(hist), "\n") != 6 {
		t.Errorf("history.jsonl: %v\n%s", err, hist)
	}
	p.stop(t, syscall.SIGINT)
}

// TestDemoOutlivesItsReader: `deltafs demo | head -1` must not kill the
// mount when head exits: the demo keeps writing its tour, and a write to a
// closed pipe used to end the process by SIGPIPE, leaving a dead mount.
// The mount keeps serving, and SIGTERM still unmounts it and exits 0.
func TestDemoOutlivesItsReader(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	dir := t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	cmd := exec.Command(bin, "demo", filepath.Join(dir, "table"), mnt)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
		}
		if isMounted(t, mnt) {
			_ = syscall.Unmount(mnt, syscall.MNT_DETACH)
		}
	})
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %v", err)
	}
	stdout.Close() // the reader goes away, as head does
	deadline := time.Now().Add(30 * time.Second)
	for !isMounted(t, mnt) {
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			t.Fatalf("not mounted after %q", first)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The demo prints its tour after mounting: give it time to write into
	// the closed pipe, then check it still serves.
	time.Sleep(500 * time.Millisecond)
	if _, err := os.ReadDir(filepath.Join(mnt, "latest")); err != nil {
		t.Fatalf("the mount stopped serving once its reader left: %v", err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("deltafs demo after SIGTERM: %v", err)
	}
	if isMounted(t, mnt) {
		t.Errorf("%s still mounted", mnt)
	}
}

// TestMountBinaryXAttrsFlag: `deltafs mount` serves no extended attributes
// unless asked (--xattrs): ls -l then costs the kernel one question for
// the whole mount, not two per file (BENCHMARKS.md).
func TestMountBinaryXAttrsFlag(t *testing.T) {
	requireFUSE(t)
	bin := deltafsBin(t)
	table := filepath.Join(TestdataDir(t), "dat/reader_tests/generated/basic_append/delta")
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprintf("xattrs=%v", on), func(t *testing.T) {
			dir := t.TempDir()
			var extra []string
			if on {
				extra = []string{"--xattrs"}
			}
			p := startMount(t, bin, table, dir, extra...)
			p.ready(t)
			defer p.stop(t, syscall.SIGTERM)
			files, err := walkFiles(filepath.Join(dir, "latest"))
			if err != nil || len(files) == 0 {
				t.Fatalf("latest: %v, %v", files, err)
			}
			got, err := getxattrString(filepath.Join(dir, "latest", files[0]), "user.delta.path")
			switch {
			case on && (err != nil || got != files[0]):
				t.Errorf("--xattrs: user.delta.path = %q, %v; want %q", got, err, files[0])
			case !on && !errors.Is(err, syscall.ENOTSUP):
				t.Errorf("without --xattrs: user.delta.path = %q, %v; want ENOTSUP", got, err)
			}
		})
	}
}
