package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// HTTP/3 over QUIC (docs/series/h3.md): the closed model (h3) and a new QUIC
// connection per request (h3-handshake), verified like the TCP subcommands plus
// the protocol actually negotiated: ALPN h3 and an HTTP/3.0 answer.

func init() {
	register("h3", "HTTP/3 GETs over C QUIC connections with M concurrent streams each (closed model), checking ALPN h3", runH3)
	register("h3-handshake", "QUIC handshakes, each on a new connection followed by one HTTP/3 GET; full unless -resume", runH3Handshake)
}

// h3ALPN is the only protocol offered: a server without HTTP/3 fails the handshake.
const h3ALPN = "h3"

type h3Result struct {
	Requests     int64          `json:"requests"` // answered (any status) over the whole run
	OK           int64          `json:"ok"`
	Errors       int64          `json:"errors"` // failed requests plus answers that were not ok
	ErrorSamples []string       `json:"error_samples"`
	Status       map[string]int `json:"status"`
	BodyMismatch int64          `json:"body_mismatch"`
	ConnsOpened  int64          `json:"conns_opened"`
	Streams      int            `json:"streams"`
	// Requests sent again on a new connection because the server had closed or was closing
	// theirs before processing them (GOAWAY after its per-connection request limit).
	Retried     int64   `json:"retried"`
	Proto       string  `json:"proto"`
	TLSVersion  string  `json:"tls_version"`
	ALPN        string  `json:"alpn"`
	QUICVersion string  `json:"quic_version"`
	DurationS   float64 `json:"duration_s"`
	Rate        float64 `json:"rate"`
	// Requests whose latency falls inside [-warmup, -warmup + -window]: what the percentiles describe.
	WindowOK  int64           `json:"window_ok"`
	latencies                 // of ok requests inside the window
	Spectrum  latencySpectrum `json:"latency_spectrum"`
	// UDP datagrams of all connections, sent and received over the whole run, and both ways
	// inside the window (what window_ok's requests cost in datagrams, edges included).
	UDPSent     int64 `json:"udp_datagrams_sent"`
	UDPReceived int64 `json:"udp_datagrams_received"`
	WindowUDP   int64 `json:"window_udp_datagrams"`
}

// h3Check is the verification every answer goes through.
type h3Check struct {
	expectStatus, expectBytes int
	checkBody                 bool
	expectBody                string
}

// problem returns why an answer is not ok, or "" when it is.
func (c h3Check) problem(resp *http.Response, body []byte) string {
	switch {
	case resp.ProtoMajor != 3:
		return "protocol " + resp.Proto + ", not HTTP/3"
	case c.expectStatus != 0 && resp.StatusCode != c.expectStatus:
		return fmt.Sprintf("status %d", resp.StatusCode)
	case c.checkBody && string(body) != c.expectBody:
		return fmt.Sprintf("body mismatch: %.40q", body)
	case c.expectBytes >= 0 && len(body) != c.expectBytes:
		return fmt.Sprintf("body length %d, expected %d", len(body), c.expectBytes)
	}
	return ""
}

func addH3CheckFlags(fs *flag.FlagSet) (status, bytes *int, body *string) {
	status = fs.Int("expect-status", 200, "status a response needs to count as ok (0: any)")
	body = fs.String("expect-body", "", "exact body a response needs to count as ok (unchecked when not given)")
	bytes = fs.Int("expect-bytes", -1, "body length in bytes a response needs to count as ok (-1: unchecked)")
	return
}

// h3TLS is the shared TLS config with only h3 in ALPN and a server name set.
func h3TLS(fs *flag.FlagSet, tf *tlsFlags, u *url.URL, stderr io.Writer) (*tls.Config, int, bool) {
	cfg, code, ok := tf.config(fs, stderr)
	if !ok {
		return nil, code, false
	}
	cfg.NextProtos = []string{h3ALPN}
	cfg.MinVersion = tls.VersionTLS13 // QUIC requires it; stated so a refusal reads plainly
	if cfg.ServerName == "" {
		cfg.ServerName = u.Hostname()
	}
	return cfg, 0, true
}

// h3Addr is host:port, 443 when the URL names none.
func h3Addr(u *url.URL) string { return hostPort(u) }

// h3Stats gathers answers from all streams.
type h3Stats struct {
	mu                            sync.Mutex
	res                           h3Result
	hist                          histogram
	protos, versions, alpns, quic map[string]bool
	samples                       samples
}

func newH3Stats() *h3Stats {
	return &h3Stats{hist: newHist(), res: h3Result{Status: map[string]int{}},
		protos: map[string]bool{}, versions: map[string]bool{}, alpns: map[string]bool{}, quic: map[string]bool{}}
}

func (s *h3Stats) conn(st quic.ConnectionState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.ConnsOpened++
	s.versions[tlsVersionName(st.TLS.Version)] = true
	s.alpns[st.TLS.NegotiatedProtocol] = true
	s.quic[st.Version.String()] = true
}

// answer records one request; inWindow says whether its latency counts.
func (s *h3Stats) answer(resp *http.Response, problem string, err error, took time.Duration, inWindow bool) {
	if err != nil {
		s.samples.add(err.Error())
	} else if problem != "" {
		s.samples.add(problem)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if resp != nil {
		s.res.Requests++
		s.res.Status[strconv.Itoa(resp.StatusCode)]++
		s.protos[resp.Proto] = true
		if strings.HasPrefix(problem, "body ") {
			s.res.BodyMismatch++
		}
	}
	if err != nil || problem != "" {
		s.res.Errors++
		return
	}
	s.res.OK++
	if inWindow {
		s.res.WindowOK++
		recordDur(s.hist, took)
	}
}

func (s *h3Stats) result() h3Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.res
	res.ErrorSamples = s.samples.get()
	res.Proto, res.TLSVersion, res.ALPN, res.QUICVersion = joinKeys(s.protos), joinKeys(s.versions), joinKeys(s.alpns), joinKeys(s.quic)
	res.latencies = summarize(s.hist)
	res.Spectrum = newSpectrum(s.hist)
	return res
}

func tlsVersionName(v uint16) string { return strings.ReplaceAll(tls.VersionName(v), " ", "") }

// quicTransport is one counted UDP socket on an ephemeral port for many QUIC connections.
func quicTransport(n *udpCounter) (*quic.Transport, error) {
	conn, err := listenCountedUDP(n)
	if err != nil {
		return nil, err
	}
	return &quic.Transport{Conn: conn}, nil
}

func resolveUDP(hostPort string) (*net.UDPAddr, error) { return net.ResolveUDPAddr("udp", hostPort) }

// quicConfig: no idle timeout shorter than a request's own limit, no 0-RTT unless asked.
func quicConfig(timeout time.Duration) *quic.Config {
	return &quic.Config{HandshakeIdleTimeout: timeout, MaxIdleTimeout: max(timeout, 30*time.Second)}
}

func runH3(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("h3", flag.ContinueOnError)
	rawURL := fs.String("url", "", "URL to GET (https://, over UDP)")
	c := fs.Int("c", 1, "QUIC connections, opened before the load starts")
	m := fs.Int("m", 1, "concurrent streams (requests in flight) on each connection")
	n := fs.Int64("n", 0, "stop after this many requests in all (0: run for -d)")
	d := fs.Duration("d", 10*time.Second, "how long to run from the launch, connecting included (requests in flight at the end complete)")
	warmup := fs.Duration("warmup", 0, "latencies of requests that start before this offset from the launch are not recorded")
	window := fs.Duration("window", 0, "record latencies of requests that end within this long after -warmup (0: until the end; a SIGINT ends the run and the window)")
	timeout := fs.Duration("timeout", 5*time.Second, "limit for one request, and for the QUIC handshake")
	of := addH3OpenFlags(fs)
	expectStatus, expectBytes, expectBody := addH3CheckFlags(fs)
	tf := addTLSFlags(fs)
	u, code, ok := parseCommand(fs, args, stdout, stderr, rawURL, "https")
	if !ok {
		return code
	}
	if flagGiven(fs, "rate") {
		return runH3Open(fs, u, tf, of, h3OpenCommon{d: *d, timeout: *timeout, expectStatus: *expectStatus, expectBytes: *expectBytes, expectBody: *expectBody}, stdout, stderr)
	}
	if name := of.onlyOpen(fs); name != "" {
		return flagError(stderr, fs, name, "belongs to the open model: give -rate too")
	}
	switch {
	case *c < 1:
		return flagError(stderr, fs, "c", "must be at least 1")
	case *m < 1:
		return flagError(stderr, fs, "m", "must be at least 1")
	case *n < 0:
		return flagError(stderr, fs, "n", "must not be negative")
	case *d <= 0:
		return flagError(stderr, fs, "d", "must be positive")
	case *warmup < 0:
		return flagError(stderr, fs, "warmup", "must not be negative")
	case *window < 0:
		return flagError(stderr, fs, "window", "must not be negative")
	case *timeout <= 0:
		return flagError(stderr, fs, "timeout", "must be positive")
	}
	tlsConf, code, ok := h3TLS(fs, tf, u, stderr)
	if !ok {
		return code
	}
	check := h3Check{expectStatus: *expectStatus, expectBytes: *expectBytes, checkBody: flagGiven(fs, "expect-body"), expectBody: *expectBody}
	st := newH3Stats()
	st.res.Streams = *m
	addr, err := resolveUDP(h3Addr(u))
	if err != nil {
		return flagError(stderr, fs, "url", "%v", err)
	}
	var udp udpCounter

	// The run's clock starts now, as wrk's does: -d, -warmup and -window count from the
	// launch, so the connections' handshakes fall in the harness's warm-up, not its window.
	start := time.Now()
	// Connections first, all at once, so no request waits for a handshake (h3-handshake measures those).
	dial := func() (*h3Link, error) {
		l, err := dialH3(addr, tlsConf, *timeout, &udp)
		if err != nil {
			st.samples.add("dial: " + err.Error())
			return nil, err
		}
		st.conn(l.qc.ConnectionState())
		return l, nil
	}
	dialed := make([]*h3Link, *c)
	var dials sync.WaitGroup
	for i := range dialed {
		dials.Go(func() { dialed[i], _ = dial() })
	}
	dials.Wait()
	conns := make([]*h3Conn, 0, *c)
	for _, l := range dialed {
		if l != nil {
			conns = append(conns, &h3Conn{link: l})
		}
	}
	defer func() {
		for _, hc := range conns {
			hc.close()
		}
	}()
	if len(conns) < *c {
		res := st.result()
		res.Errors = int64(*c - len(conns))
		emit(stdout, res)
		return unreachable(stderr, "h3", res.ErrorSamples)
	}

	recordFrom := start.Add(*warmup)
	var recordTo time.Time // zero: until the end
	if *window > 0 {
		recordTo = recordFrom.Add(*window)
	}
	var deadline time.Time
	if *n == 0 || flagGiven(fs, "d") {
		deadline = start.Add(*d)
	}
	end := endAtInterrupt(deadline)
	defer end.release()
	inWindowUDP := newUDPWindow(&udp, recordFrom, recordTo, end.signalled)
	var claimed atomic.Int64
	var wg sync.WaitGroup
	for _, hc := range conns {
		for range *m {
			wg.Go(func() {
				for {
					if *n > 0 && claimed.Add(1) > *n {
						return
					}
					if end.over(time.Now()) {
						return
					}
					t0 := time.Now()
					resp, body, err := hc.get(u, *timeout, dial, &st.res.Retried)
					t1 := time.Now()
					problem := ""
					if err == nil {
						problem = check.problem(resp, body)
					}
					until := end.recordUntil(recordTo)
					inWindow := !t0.Before(recordFrom) && (until.IsZero() || !t1.After(until))
					st.answer(resp, problem, err, t1.Sub(t0), inWindow)
				}
			})
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	res := st.result()
	res.WindowUDP = inWindowUDP.datagrams()
	res.UDPSent, res.UDPReceived = udp.sent.Load(), udp.received.Load()
	res.DurationS = seconds(elapsed)
	res.Rate = perSecond(res.Requests, elapsed)
	emit(stdout, res)
	if res.Requests == 0 {
		return unreachable(stderr, "h3", res.ErrorSamples)
	}
	return 0
}

// h3Link is one QUIC connection on its own socket, with its HTTP/3 client.
type h3Link struct {
	qc   *quic.Conn
	sock *countedUDP
	cc   *http3.ClientConn
}

// dialH3 opens a QUIC connection with ALPN h3 on a counted socket of its own, as quic.DialAddr would open one.
func dialH3(addr *net.UDPAddr, tlsConf *tls.Config, timeout time.Duration, udp *udpCounter) (*h3Link, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	sock, err := listenCountedUDP(udp)
	if err != nil {
		return nil, err
	}
	qc, err := quic.Dial(ctx, sock, addr, tlsConf, quicConfig(timeout))
	if err != nil {
		sock.Close()
		return nil, err
	}
	return &h3Link{qc: qc, sock: sock, cc: (&http3.Transport{DisableCompression: true}).NewClientConn(qc)}, nil
}

// close ends the connection (its CONNECTION_CLOSE is sent before CloseWithError returns), then its socket.
func (l *h3Link) close() {
	l.qc.CloseWithError(0, "")
	l.sock.Close()
}

// h3Conn is one of the -c connections: replaced by a new one when the server closes it, as
// a keep-alive client reconnects (nginx closes after keepalive_requests, like over TCP).
type h3Conn struct {
	mu   sync.Mutex
	link *h3Link
}

func (c *h3Conn) current() *h3Link {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.link
}

// replace dials a new connection unless another stream already replaced old.
func (c *h3Conn) replace(old *h3Link, dial func() (*h3Link, error)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.link != old {
		return
	}
	if l, err := dial(); err == nil {
		old.close()
		c.link = l
	}
}

func (c *h3Conn) close() { c.current().close() }

// get is one GET; a request the server refused unprocessed because its connection went away
// is sent once more on a new connection (counted in retried), as RFC 9114 allows.
func (c *h3Conn) get(u *url.URL, timeout time.Duration, dial func() (*h3Link, error), retried *int64) (*http.Response, []byte, error) {
	l := c.current()
	resp, body, err := h3Get(l.cc, u, timeout, http.MethodGet)
	if err == nil || !connGone(l, err) {
		return resp, body, err
	}
	c.replace(l, dial)
	atomic.AddInt64(retried, 1)
	return h3Get(c.current().cc, u, timeout, http.MethodGet)
}

// connGone: the connection is closed (by the server, or found closed) or in graceful
// shutdown, or the request was rejected unprocessed (H3_REQUEST_REJECTED, or H3_NO_ERROR
// after a GOAWAY).
func connGone(l *h3Link, err error) bool {
	var appErr *quic.ApplicationError
	if l.qc.Context().Err() != nil || (errors.As(err, &appErr) && appErr.Remote) {
		return true
	}
	var h3err *http3.Error
	if errors.As(err, &h3err) && (h3err.ErrorCode == http3.ErrCodeNoError || h3err.ErrorCode == http3.ErrCodeRequestRejected) {
		return true
	}
	// quic-go's error for a connection after GOAWAY is unexported; its text is stable.
	return strings.Contains(err.Error(), "conn unusable") || strings.Contains(err.Error(), "graceful shutdown")
}

// h3Get is one GET on an existing HTTP/3 connection, body read to the end.
func h3Get(cc *http3.ClientConn, u *url.URL, timeout time.Duration, method string) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, u.String(), nil)
	req.Header.Set("User-Agent", "proxybench-loadgen")
	resp, err := cc.RoundTrip(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp, nil, fmt.Errorf("body: %w", err)
	}
	return resp, body, nil
}

type h3HandshakeResult struct {
	handshakeResult
	// Connections that sent the request as 0-RTT early data and had it accepted.
	EarlyData   int64  `json:"early_data"`
	ALPN        string `json:"alpn"`
	QUICVersion string `json:"quic_version"`
	// UDP datagrams of all attempts on the shared socket.
	UDPSent     int64 `json:"udp_datagrams_sent"`
	UDPReceived int64 `json:"udp_datagrams_received"`
}

func runH3Handshake(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("h3-handshake", flag.ContinueOnError)
	rawURL := fs.String("url", "", "URL to GET (https://, over UDP)")
	af := addAttemptFlags(fs, "handshake and GET")
	expectStatus, expectBytes, expectBody := addH3CheckFlags(fs)
	resume := fs.String("resume", "none", "none: every handshake full (1-RTT); tickets: keep and offer session tickets (TLS 1.3 PSK resumption, request after the handshake); 0rtt: tickets, and the request sent as 0-RTT early data where the server accepts it")
	tf := addTLSFlags(fs)
	u, code, ok := parseCommand(fs, args, stdout, stderr, rawURL, "https")
	if !ok {
		return code
	}
	if code, ok := af.check(fs, stderr); !ok {
		return code
	}
	switch {
	case *resume != "none" && *resume != "tickets" && *resume != "0rtt":
		return flagError(stderr, fs, "resume", "must be none, tickets or 0rtt, got %q", *resume)
	}
	tlsConf, code, ok := h3TLS(fs, tf, u, stderr)
	if !ok {
		return code
	}
	tlsConf.ClientSessionCache = nil
	if *resume != "none" {
		// One cache for all workers: each new connection offers the newest ticket.
		tlsConf.ClientSessionCache = tls.NewLRUClientSessionCache(64)
	}
	check := h3Check{expectStatus: *expectStatus, expectBytes: *expectBytes, checkBody: flagGiven(fs, "expect-body"), expectBody: *expectBody}
	// One UDP socket for all attempts: a socket per connection would measure the kernel, not QUIC.
	var counted udpCounter
	udp, err := quicTransport(&counted)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen h3-handshake: UDP socket: %v\n", err)
		return 1
	}
	defer udp.Close()
	addr, err := resolveUDP(h3Addr(u))
	if err != nil {
		return flagError(stderr, fs, "url", "%v", err)
	}
	early := *resume == "0rtt"

	st := newHandshakeStats()
	var earlyData atomic.Int64
	var mu sync.Mutex
	alpns, quics := map[string]bool{}, map[string]bool{}
	end := endAtInterrupt(af.deadline(fs))
	defer end.release()
	elapsed := backToBack(*af.c, *af.n, end, func() {
		r, qs := h3Attempt(udp, addr, u, tlsConf, early, *af.timeout, check)
		if qs != nil {
			mu.Lock()
			alpns[qs.TLS.NegotiatedProtocol], quics[qs.Version.String()] = true, true
			mu.Unlock()
			if qs.Used0RTT && r.ok {
				earlyData.Add(1)
			}
		}
		st.record(r)
	})
	res := h3HandshakeResult{handshakeResult: st.result(), EarlyData: earlyData.Load(), ALPN: joinKeys(alpns), QUICVersion: joinKeys(quics), UDPSent: counted.sent.Load(), UDPReceived: counted.received.Load()}
	res.DurationS = seconds(elapsed)
	res.Rate = perSecond(res.Handshakes, elapsed)
	emit(stdout, res)
	if res.Handshakes == 0 {
		return unreachable(stderr, "h3-handshake", res.ErrorSamples)
	}
	return 0
}

// h3Attempt is one fresh QUIC connection: handshake, one GET, close.
func h3Attempt(tr *quic.Transport, addr *net.UDPAddr, u *url.URL, tlsConf *tls.Config, early bool, timeout time.Duration, check h3Check) (r attemptResult, qs *quic.ConnectionState) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	conf := quicConfig(timeout)
	var qc *quic.Conn
	var err error
	if early {
		qc, err = tr.DialEarly(ctx, addr, tlsConf, conf)
	} else {
		qc, err = tr.Dial(ctx, addr, tlsConf, conf)
	}
	if err != nil {
		r.err = "handshake: " + err.Error()
		return r, nil
	}
	defer qc.CloseWithError(0, "")
	cc := (&http3.Transport{DisableCompression: true}).NewClientConn(qc)
	method := http.MethodGet
	if early {
		method = http3.MethodGet0RTT // sent before the handshake completes, in 0-RTT packets
	}
	resp, body, err := h3Get(cc, u, timeout, method)
	if early {
		// The handshake completes while (or after) the early request is answered.
		select {
		case <-qc.HandshakeComplete():
		case <-ctx.Done():
		}
	}
	state := qc.ConnectionState()
	qs = &state
	tlsState := state.TLS
	r.state = &tlsState
	r.handshook = true
	switch {
	case err != nil:
		var appErr *quic.ApplicationError
		if errors.As(err, &appErr) {
			r.err = "request: " + appErr.Error()
		} else {
			r.err = "request: " + err.Error()
		}
	default:
		if p := check.problem(resp, body); p != "" {
			r.err = p
		} else {
			r.ok = true
			r.took = time.Since(start)
		}
	}
	return r, qs
}
