package servers

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fault is one way a Proxy spoils an answer.
type Fault int

const (
	Unavailable   Fault = iota // 503 SlowDown, S3's throttling answer
	ServerError                // 500 InternalError
	ResetMidBody               // half the body, then a TCP reset
	TruncatedBody              // half the body, then a clean close: fewer bytes than Content-Length
	ShortBody                  // a well-formed answer holding half the range asked for (ranged GETs)
	LongBody                   // a well-formed answer holding more bytes than the range asked for (ranged GETs)
	NoAnswer                   // the request taken, then nothing until the client gives up
	StalledBody                // half the body, then nothing until the client gives up
	TrickleBody                // half the body, then a byte every 50 ms until the client gives up
)

func (f Fault) String() string {
	return [...]string{"503 SlowDown", "500 InternalError", "reset mid-body", "truncated body", "short body", "long body",
		"no answer", "stalled body", "trickling body"}[f]
}

// Faults lists every Fault.
var Faults = []Fault{Unavailable, ServerError, ResetMidBody, TruncatedBody, ShortBody, LongBody, NoAnswer, StalledBody, TrickleBody}

// Proxy stands between a client and a server on 127.0.0.1 and spoils the
// answers it is told to: status errors, cut or reset bodies, wrong lengths,
// or no answer at all while down. Body faults apply to GETs of objects.
type Proxy struct {
	Addr    string
	backend string
	ln      net.Listener
	srv     *http.Server
	client  *http.Client

	mu      sync.Mutex
	planned []plan                // GUARDED_BY(mu)
	down    bool                  // GUARDED_BY(mu)
	hung    chan struct{}         // GUARDED_BY(mu): closed when no longer hung; nil when not hung
	conns   map[net.Conn]struct{} // GUARDED_BY(mu)
	seen    map[string]int        // GUARDED_BY(mu): requests by path
	pending int                   // GUARDED_BY(mu): requests held while hung
	latency time.Duration         // GUARDED_BY(mu): added before every request
}

type plan struct {
	fault Fault
	match string // a substring of the request path
	times int
}

// StartProxy starts a proxy in front of s, stopped when the test ends.
// Location on the proxy's server value reaches s through it.
func StartProxy(t testing.TB, s *Server) (*Proxy, *Server) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), backend: s.Addr, conns: map[net.Conn]struct{}{}, seen: map[string]int{},
		// Keep connections to the server for as many requests as a client
		// has in flight (Go keeps 2): a new one for each would make the
		// proxy, not the latency it adds, what a benchmark measures.
		client: &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 1024}}}
	p.ln = &downListener{Listener: ln, p: p}
	p.srv = &http.Server{Handler: p, ConnState: p.track}
	go p.srv.Serve(p.ln)
	t.Cleanup(func() { p.srv.Close() })
	via := *s
	via.Addr = p.Addr
	via.query = strings.ReplaceAll(s.query, s.Addr, p.Addr)
	return p, &via
}

// Inject has the next times requests whose path contains match answered
// with fault (after any faults injected before).
func (p *Proxy) Inject(fault Fault, match string, times int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.planned = append(p.planned, plan{fault, match, times})
}

// Clear drops the faults not yet used.
func (p *Proxy) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.planned = nil
}

// SetDown makes the proxy act as a dead server (true: open connections
// reset, new ones refused with a reset) or a live one again.
func (p *Proxy) SetDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			reset(c)
		}
	}
}

// SetHang makes the proxy take requests and not answer them (true) until
// it is told otherwise or the client goes away.
func (p *Proxy) SetHang(hang bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case hang && p.hung == nil:
		p.hung = make(chan struct{})
	case !hang && p.hung != nil:
		close(p.hung)
		p.hung = nil
	}
}

// SetLatency adds d before every request is forwarded, as a distant
// server would take.
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// Pending is how many requests the proxy holds unanswered now (SetHang).
func (p *Proxy) Pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pending
}

// Requests is how many requests reached the proxy for paths containing
// match.
func (p *Proxy) Requests(match string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for path, k := range p.seen {
		if strings.Contains(path, match) {
			n += k
		}
	}
	return n
}

func (p *Proxy) track(c net.Conn, state http.ConnState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch state {
	case http.StateNew:
		p.conns[c] = struct{}{}
	case http.StateClosed, http.StateHijacked:
		delete(p.conns, c)
	}
}

// next takes the fault planned for a request to path, if any.
func (p *Proxy) next(path string) (Fault, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[path]++
	for i := range p.planned {
		pl := &p.planned[i]
		if pl.times > 0 && strings.Contains(path, pl.match) {
			pl.times--
			return pl.fault, true
		}
	}
	return 0, false
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	hung, latency := p.hung, p.latency
	p.mu.Unlock()
	time.Sleep(latency)
	if hung != nil {
		p.mu.Lock()
		p.pending++
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			p.pending--
			p.mu.Unlock()
		}()
		select {
		case <-hung:
		case <-r.Context().Done():
			return
		}
	}
	fault, spoil := p.next(r.URL.Path)
	if spoil && fault == NoAnswer {
		<-r.Context().Done()
		return
	}
	if spoil && (fault == Unavailable || fault == ServerError) {
		code, name := http.StatusServiceUnavailable, "SlowDown"
		if fault == ServerError {
			code, name = http.StatusInternalServerError, "InternalError"
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(code)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>injected by the test proxy</Message></Error>`, name)
		return
	}
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.RequestURI = "http", p.backend, ""
	out.Host = r.Host // signed by the client
	resp, err := p.client.Transport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	if !spoil || r.Method != http.MethodGet || resp.StatusCode/100 != 2 || len(body) < 2 {
		w.WriteHeader(resp.StatusCode)
		w.Write(body)
		return
	}
	half := body[:len(body)/2]
	if (fault == ShortBody || fault == LongBody) && resp.Header.Get("Content-Range") == "" {
		// A whole object's answer defines its length: only a range can be
		// short or long and well formed.
		panic(fmt.Sprintf("proxy: %v injected for %s, which is not a ranged GET", fault, r.URL.Path))
	}
	switch fault {
	case ResetMidBody, TruncatedBody:
		w.WriteHeader(resp.StatusCode)
		w.Write(half)
		w.(http.Flusher).Flush()
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		if fault == ResetMidBody {
			reset(c)
		} else {
			c.Close()
		}
	case StalledBody:
		w.WriteHeader(resp.StatusCode)
		w.Write(half)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case TrickleBody:
		w.WriteHeader(resp.StatusCode)
		w.Write(half)
		w.(http.Flusher).Flush()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for _, b := range body[len(half):] {
			select {
			case <-tick.C:
			case <-r.Context().Done():
				return
			}
			if _, err := w.Write([]byte{b}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	case ShortBody:
		w.Header().Set("Content-Length", strconv.Itoa(len(half)))
		if cr := resp.Header.Get("Content-Range"); cr != "" {
			var first, last, total int64
			if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &first, &last, &total); err == nil {
				w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, first+int64(len(half))-1, total))
			}
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(half)
	case LongBody:
		w.Header().Set("Content-Length", strconv.Itoa(len(body)+len(half)))
		w.WriteHeader(resp.StatusCode)
		w.Write(body)
		w.Write(half)
	}
}

// reset closes c with a TCP reset, as a crashed server's kernel answers.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

// downListener resets every connection while its proxy is down.
type downListener struct {
	net.Listener
	p *Proxy
}

func (l *downListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.p.mu.Lock()
		down := l.p.down
		l.p.mu.Unlock()
		if !down {
			return c, nil
		}
		reset(c)
	}
}
