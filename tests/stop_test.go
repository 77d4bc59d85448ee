package tests

// Every command, and a mount that is starting, stops soon after SIGINT,
// SIGTERM or SIGQUIT even while a request to storage hangs: the signal cancels the
// request instead of waiting for the server or the client's timeout.

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deltafs/deltafs/tests/servers"
)

func TestCommandsStopOnSignalWhileStorageHangs(t *testing.T) {
	bin := deltafsBin(t)
	srv := servers.Start(t, servers.VersityGW)
	proxy, via := servers.StartProxy(t, srv)
	prefix := "stop/" + t.Name()
	rrWriteTestTable(t, srv.Location(prefix))
	location := via.Location(prefix)
	proxy.SetHang(true)
	defer proxy.SetHang(false)

	for _, c := range []struct {
		name string
		args []string
		sig  syscall.Signal
	}{
		{"versions", []string{"versions", location}, syscall.SIGINT},
		{"ls", []string{"ls", location}, syscall.SIGTERM},
		{"history", []string{"history", location}, syscall.SIGINT},
		{"schema", []string{"schema", location}, syscall.SIGQUIT}, // Ctrl-\: a goroutine dump, then as the others
		{"doctor", []string{"doctor", location}, syscall.SIGTERM},
		{"mount", []string{"mount", location, t.TempDir()}, syscall.SIGINT},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The requests of the command before end with it: counted
			// still, they would send this signal before this command
			// asks anything (and before it handles signals).
			if !waitFor(time.Minute, func() bool { return proxy.Pending() == 0 }) {
				t.Fatalf("%d requests of the command before still pending", proxy.Pending())
			}
			run := inBackground(t, bin, srv.Env, c.args...)
			cmd, stderr, done := run.cmd, run.stderr, run.done
			// Signal once a request is hanging in the proxy.
			if !waitFor(time.Minute, func() bool { return proxy.Pending() > 0 }) {
				t.Fatalf("no request reached storage:\n%s", stderr)
			}
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			// A try that hears no answer is abandoned after 20 s, and
			// tried again: well before the end of six, or the signal did
			// not cancel the request.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			select {
			case <-done:
			case <-ctx.Done():
				cmd.Process.Kill()
				<-done
				t.Fatalf("%s still running 30 s after %v:\n%s", c.name, c.sig, stderr)
			}
			t.Logf("%s stopped %v after %v (exit %d): %s", c.name, time.Since(sent).Round(time.Millisecond), c.sig,
				cmd.ProcessState.ExitCode(), strings.TrimSpace(stderr.String()))
			if code, want := cmd.ProcessState.ExitCode(), 128+int(c.sig); code != want || !strings.Contains(stderr.String(), "stopped by SIG") {
				t.Errorf("%s exited %d after %v, want %d and a line saying so:\n%s", c.name, code, c.sig, want, stderr)
			}
		})
	}
}
