package servers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// Names of the servers, as Start takes them.
const (
	VersityGW     = "versitygw"       // s3://
	FakeGCSServer = "fake-gcs-server" // gs://
	Azurite       = "azurite"         // azblob://
	// VersityGWTLS is versitygw over HTTPS, its certificate of a private
	// CA (Server.CACert); not in All: only StartOwn starts it.
	VersityGWTLS = "versitygw-tls"
)

// All lists every server name.
var All = []string{VersityGW, FakeGCSServer, Azurite}

// Bucket is the bucket (container) every server is started with.
const Bucket = "deltafs"

// Azurite's well-known development account and key (public, documented by
// Microsoft for the emulator; not a secret).
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// S3 credentials versitygw is started with (its root account).
const (
	S3AccessKey = "deltafs-test"
	S3SecretKey = "deltafs-test-secret"
)

// S3ClientEnv is the environment of a process (delta-rs, pyarrow) that
// reaches versitygw at addr (host:port) with the test credentials.
func S3ClientEnv(addr string) []string {
	return append(os.Environ(), "AWS_ENDPOINT_URL=http://"+addr, "AWS_ALLOW_HTTP=true", "AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID="+S3AccessKey, "AWS_SECRET_ACCESS_KEY="+S3SecretKey)
}

// Server is one running object-store server.
type Server struct {
	Name   string   // VersityGW, FakeGCSServer or Azurite
	Scheme string   // s3, gs or azblob
	Addr   string   // 127.0.0.1:PORT
	Env    []string // KEY=VALUE settings a client process needs (already set in this one)
	CACert string   // VersityGWTLS: the PEM file of the CA its certificate is signed by
	query  string   // URL query a table location needs
	bin    string
	args   []string
	cmd    *exec.Cmd
	dir    string
	log    *bytes.Buffer
	exited chan struct{}
	client *http.Client // what waitReady asks with
	scheme string       // http or https
}

// Location is the URL of a table under prefix in the server's bucket, in
// the form blobstore.Open (and bin/deltafs) takes: prefix is escaped.
func (s *Server) Location(prefix string) string {
	u := s.Scheme + "://" + Bucket + (&url.URL{Path: "/" + strings.Trim(prefix, "/")}).EscapedPath()
	if s.query != "" {
		u += "?" + s.query
	}
	return u
}

// Endpoint is the server's URL, scheme and address (http://127.0.0.1:PORT).
func (s *Server) Endpoint() string { return s.scheme + "://" + s.Addr }

var (
	mu      sync.Mutex
	running = map[string]*Server{}
	failed  = map[string]error{}
)

// Start returns the named server, starting it (and installing it, if
// needed) on first use. When it cannot run, the test is skipped, or fails if
// DELTAFS_STRICT=1 (as in CI).
func Start(t testing.TB, name string) *Server {
	t.Helper()
	s, err := start(name)
	if err != nil {
		if os.Getenv("DELTAFS_STRICT") == "1" {
			t.Fatalf("object-store server %s: %v", name, err)
		}
		t.Skipf("SKIPPING: object-store server %s unavailable: %v", name, err)
	}
	return s
}

func start(name string) (*Server, error) {
	mu.Lock()
	defer mu.Unlock()
	if s := running[name]; s != nil {
		return s, nil
	}
	if err := failed[name]; err != nil {
		return nil, err
	}
	bin, err := binary(name)
	var s *Server
	if err == nil {
		for attempt := 0; attempt < 3; attempt++ { // a free port can be taken before the server binds it
			if s, err = launch(name, bin); err == nil {
				break
			}
		}
	}
	if err != nil {
		failed[name] = err
		return nil, err
	}
	for _, kv := range s.Env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	running[name] = s
	return s, nil
}

// StopAll stops every server started by this process and removes their files.
func StopAll() {
	mu.Lock()
	defer mu.Unlock()
	for name, s := range running {
		s.stop()
		delete(running, name)
	}
}

func (s *Server) stop() {
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.exited
		}
	}
	os.RemoveAll(s.dir)
}

// Dir is where install.sh puts the servers.
func Dir() (string, error) {
	if d := os.Getenv("DELTAFS_SERVERS_DIR"); d != "" {
		return d, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".cache", "servers"), nil
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// binary returns the server's executable, running install.sh if it is missing.
func binary(name string) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	if name == VersityGWTLS {
		name = VersityGW
	}
	path := filepath.Join(dir, "bin", name)
	if name == Azurite {
		path = filepath.Join(dir, "azurite", "node_modules", ".bin", "azurite-blob")
	}
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	out, err := exec.Command("bash", filepath.Join(root, "tests", "servers", "install.sh"), name).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s missing and install.sh failed: %v\n%s", path, err, out)
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("install.sh ran but %s is missing:\n%s", path, out)
	}
	return path, nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func launch(name, bin string) (*Server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(addr)
	reapStale()
	dir, err := os.MkdirTemp("", fmt.Sprintf("deltafs-servers-%d-%s-", os.Getpid(), name))
	if err != nil {
		return nil, err
	}
	s := &Server{Name: name, Addr: addr, dir: dir, log: &bytes.Buffer{}, client: http.DefaultClient, scheme: "http"}
	var args []string
	switch name {
	case VersityGW, VersityGWTLS:
		// The posix backend serves each folder under its root as a bucket.
		// Keep-alive as S3 does: without it every request is a new
		// connection, which S3 clients never see.
		if err := os.Mkdir(filepath.Join(dir, Bucket), 0o755); err != nil {
			return nil, err
		}
		s.Scheme = "s3"
		args = []string{"--access", S3AccessKey, "--secret", S3SecretKey, "--port", addr, "--region", "us-east-1", "--keep-alive", "--quiet", "posix", dir}
		if name == VersityGWTLS {
			cert, key, client, err := writeCertificate(dir)
			if err != nil {
				return nil, err
			}
			args = append([]string{"--cert", cert, "--key", key}, args...)
			s.CACert, s.client, s.scheme = cert, client, "https"
		}
		s.query = "endpoint=" + s.Endpoint() + "&region=us-east-1&use_path_style=true"
		s.Env = []string{"AWS_ACCESS_KEY_ID=" + S3AccessKey, "AWS_SECRET_ACCESS_KEY=" + S3SecretKey, "AWS_EC2_METADATA_DISABLED=true"}
	case FakeGCSServer:
		s.Scheme = "gs"
		args = []string{"-scheme", "http", "-host", "127.0.0.1", "-port", port, "-backend", "memory",
			"-public-host", addr, "-external-url", "http://" + addr, "-log-level", "warn"}
		s.Env = []string{"STORAGE_EMULATOR_HOST=" + addr}
	case Azurite:
		s.Scheme = "azblob"
		args = []string{"--blobHost", "127.0.0.1", "--blobPort", port, "--inMemoryPersistence",
			"--skipApiVersionCheck", "--loose", "--disableProductStyleUrl", "--disableTelemetry", "--silent"}
		s.query = "localemu=true&protocol=http&domain=" + addr
		s.Env = []string{"AZURE_STORAGE_ACCOUNT=" + AzuriteAccount, "AZURE_STORAGE_KEY=" + AzuriteKey}
	default:
		return nil, fmt.Errorf("unknown server %q", name)
	}
	s.bin, s.args = bin, args
	if err := s.spawn(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// spawn starts the server's process and waits until it answers.
func (s *Server) spawn() error {
	s.log.Reset()
	s.exited = make(chan struct{})
	s.cmd = exec.Command(s.bin, s.args...)
	s.cmd.Dir = s.dir
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	// Own process group (so stop reaches node's children too); killed with
	// the test binary even if it crashes.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	exited := s.exited
	go func() { s.cmd.Wait(); close(exited) }()
	if err := s.waitReady(); err != nil {
		s.kill()
		return fmt.Errorf("%s on %s: %w\n%s", s.Name, s.Addr, err, s.log)
	}
	return nil
}

// StartOwn starts a server of its own for one test, which may Kill and
// Restart it; it is stopped when the test ends.
func StartOwn(t testing.TB, name string) *Server {
	t.Helper()
	bin, err := binary(name)
	var s *Server
	if err == nil {
		for attempt := 0; attempt < 3; attempt++ {
			if s, err = launch(name, bin); err == nil {
				break
			}
		}
	}
	if err != nil {
		if os.Getenv("DELTAFS_STRICT") == "1" {
			t.Fatalf("object-store server %s: %v", name, err)
		}
		t.Skipf("SKIPPING: object-store server %s unavailable: %v", name, err)
	}
	for _, kv := range s.Env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	t.Cleanup(s.stop)
	return s
}

// Kill stops the server at once (SIGKILL), as a crash would; its data stays.
func (s *Server) Kill() { s.kill() }

func (s *Server) kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
}

// Restart starts a killed server again, on the same address and data.
func (s *Server) Restart() error { return s.spawn() }

// DataDir is the folder a versitygw server keeps its bucket's objects in,
// as plain files: a test may write objects there while the server is down.
func (s *Server) DataDir() string { return filepath.Join(s.dir, Bucket) }

// waitReady waits for the server to answer HTTP, then creates the bucket
// where it is not a folder.
func (s *Server) waitReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		resp, err := s.client.Get(s.Endpoint() + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-s.exited:
			return fmt.Errorf("exited at start")
		case <-ctx.Done():
			return fmt.Errorf("not answering after 60s: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	switch s.Name {
	case FakeGCSServer:
		body := strings.NewReader(`{"name":"` + Bucket + `"}`)
		resp, err := http.Post("http://"+s.Addr+"/storage/v1/b?project=deltafs", "application/json", body)
		if err != nil {
			return fmt.Errorf("create bucket: %w", err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("create bucket: %s", resp.Status)
		}
	case Azurite:
		cred, err := container.NewSharedKeyCredential(AzuriteAccount, AzuriteKey)
		if err != nil {
			return err
		}
		c, err := container.NewClientWithSharedKeyCredential(
			(&url.URL{Scheme: "http", Host: s.Addr, Path: "/" + AzuriteAccount + "/" + Bucket}).String(), cred, nil)
		if err != nil {
			return err
		}
		if _, err := c.Create(ctx, nil); err != nil {
			var re *azcore.ResponseError
			if !errors.As(err, &re) || re.ErrorCode != "ContainerAlreadyExists" {
				return fmt.Errorf("create container: %w", err)
			}
		}
	}
	return nil
}

// reapStale removes the folders of servers whose test process is gone
// (one that was killed before it could clean up).
func reapStale() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), "deltafs-servers-*"))
	for _, m := range matches {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(m), "deltafs-servers-%d-", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(m)
		}
	}
}
