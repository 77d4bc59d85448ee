package tests

// A store that accepts connections and never answers: every command says
// so on stderr as it retries, and then fails with a line saying why,
// instead of printing nothing for six minutes.

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// silentListener accepts connections on 127.0.0.1 and holds them without
// a byte, until the test ends. It returns its address.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return l.Addr().String()
}

func TestCommandsLogRetriesOnSilentStore(t *testing.T) {
	bin := deltafsBin(t)
	addr := silentListener(t)
	s3 := "s3://b/p?endpoint=http://" + addr + "&region=us-east-1&use_path_style=true"
	s3Env := []string{"AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=y", "AWS_EC2_METADATA_DISABLED=true"}
	gsEnv := []string{"STORAGE_EMULATOR_HOST=" + addr}
	type run struct {
		name string
		*background
	}
	var runs []run
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"ls", s3Env, []string{"ls", s3}},
		{"versions", s3Env, []string{"versions", s3}},
		{"history", s3Env, []string{"history", s3}},
		{"schema", s3Env, []string{"schema", s3}},
		{"doctor", s3Env, []string{"doctor", s3}},
		{"mount", s3Env, []string{"mount", s3, t.TempDir()}},
		{"versions gs", gsEnv, []string{"versions", "gs://b/p"}},
	} {
		// All at once, not t.Parallel (which -parallel, GOMAXPROCS by
		// default, may hold to one or two): each takes about two minutes,
		// six tries of 20 s and the waits between.
		runs = append(runs, run{c.name, inBackground(t, bin, c.env, c.args...)})
	}
	deadline := time.After(10 * time.Minute) // turns a hang into a failure
	for _, r := range runs {
		select {
		case <-r.done:
		case <-deadline:
			for _, r := range runs {
				r.cmd.Process.Kill()
				<-r.done
			}
			t.Fatalf("%s: still running after 10 minutes:\n%s", r.name, r.stderr)
		}
		out := r.stderr.String()
		if code := r.cmd.ProcessState.ExitCode(); code != 1 {
			t.Errorf("%s: exit %d, want 1", r.name, code)
		}
		for _, want := range []string{
			"deltafs: try 1 of 6 failed", "deltafs: try 5 of 6 failed", // each retry logged
			"no answer in 20s", // the silence of a store that sent nothing
			"deltafs " + strings.Fields(r.name)[0] + ": ", "after 6 tries", // the last line says why
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", r.name, want, out)
			}
		}
	}
}
