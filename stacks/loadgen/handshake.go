package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

func init() {
	register("handshake", "TLS handshakes, each on a new connection followed by one Connection: close GET; full unless -resume", runHandshake)
}

type handshakeResult struct {
	Handshakes   int64           `json:"handshakes"`
	Resumed      int64           `json:"resumed"`
	RequestsOK   int64           `json:"requests_ok"`
	Errors       int64           `json:"errors"`
	ErrorSamples []string        `json:"error_samples"`
	TLSVersion   string          `json:"tls_version"`
	Cipher       string          `json:"cipher"`
	Curve        string          `json:"curve"`
	DurationS    float64         `json:"duration_s"`
	Rate         float64         `json:"rate"`
	latencies                    // of dial + handshake + GET, successful attempts only
	Spectrum     latencySpectrum `json:"latency_spectrum"`
}

func runHandshake(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("handshake", flag.ContinueOnError)
	rawURL := fs.String("url", "", "URL to GET (https://; http:// measures plain connects)")
	af := addAttemptFlags(fs, "connect, handshake and GET")
	expectBody := fs.String("expect-body", "", "exact body an answer needs to count as ok (unchecked when not given)")
	resume := fs.String("resume", "none", "none: every handshake full; tickets: keep and offer session tickets (TLS 1.3 PSK, still with a key exchange); tickets-tls12: tickets with TLS 1.2 as the highest version (an abbreviated handshake, no key exchange). Go's client never resumes by session ID")
	tf := addTLSFlags(fs)
	u, code, ok := parseCommand(fs, args, stdout, stderr, rawURL, "http", "https")
	if !ok {
		return code
	}
	if code, ok := af.check(fs, stderr); !ok {
		return code
	}
	switch {
	case *resume != "none" && *resume != "tickets" && *resume != "tickets-tls12":
		return flagError(stderr, fs, "resume", "must be none, tickets or tickets-tls12, got %q", *resume)
	}
	tlsConf, code, ok := tf.config(fs, stderr)
	if !ok {
		return code
	}
	// Without -resume, resumption would skip the expensive part this command measures.
	tlsConf.ClientSessionCache = nil
	tlsConf.SessionTicketsDisabled = true
	if *resume != "none" {
		// One cache for all workers, one entry per server name: each new connection offers the
		// newest ticket; a handshake that finds none (the first, an expired one) is full.
		tlsConf.SessionTicketsDisabled = false
		tlsConf.ClientSessionCache = tls.NewLRUClientSessionCache(64)
	}
	if *resume == "tickets-tls12" {
		tlsConf.MaxVersion = tls.VersionTLS12
	}
	if tlsConf.ServerName == "" {
		tlsConf.ServerName = u.Hostname()
	}
	h := &handshaker{
		addr:       hostPort(u),
		useTLS:     u.Scheme == "https",
		tlsConf:    tlsConf,
		timeout:    *af.timeout,
		checkBody:  flagGiven(fs, "expect-body"),
		expectBody: *expectBody,
		request:    closeRequest(u),
	}

	st := newHandshakeStats()
	end := endAtInterrupt(af.deadline(fs))
	defer end.release()
	elapsed := backToBack(*af.c, *af.n, end, func() { st.record(h.attempt()) })

	res := st.result()
	res.DurationS = seconds(elapsed)
	res.Rate = perSecond(res.Handshakes, elapsed)
	emit(stdout, res)
	if res.Handshakes == 0 {
		return unreachable(stderr, "handshake", res.ErrorSamples)
	}
	return 0
}

// hostPort adds the scheme's default port the URL may leave out.
func hostPort(u *url.URL) string {
	if port := u.Port(); port != "" {
		return u.Host
	}
	if u.Scheme == "https" || u.Scheme == "wss" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// closeRequest is serialized once; every attempt writes the same bytes.
func closeRequest(u *url.URL) []byte {
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	req.Close = true // Connection: close
	req.Header.Set("User-Agent", "proxybench-loadgen")
	var buf bytes.Buffer
	req.Write(&buf)
	return buf.Bytes()
}

type handshaker struct {
	addr       string
	useTLS     bool
	tlsConf    *tls.Config
	timeout    time.Duration
	checkBody  bool
	expectBody string
	request    []byte
}

type attemptResult struct {
	handshook bool // TCP connected and (with TLS) handshake completed
	state     *tls.ConnectionState
	ok        bool
	err       string
	took      time.Duration
}

// attempt is one fresh connection: dial, full handshake, GET, close.
func (h *handshaker) attempt() (r attemptResult) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", h.addr)
	if err != nil {
		r.err = "dial: " + err.Error()
		return r
	}
	defer conn.Close()
	conn.SetDeadline(start.Add(h.timeout))
	if h.useTLS {
		tc := tls.Client(conn, h.tlsConf)
		if err := tc.HandshakeContext(ctx); err != nil {
			r.err = "handshake: " + err.Error()
			return r
		}
		st := tc.ConnectionState()
		r.state = &st
		conn = tc
	}
	r.handshook = true
	if _, err := conn.Write(h.request); err != nil {
		r.err = "request: " + err.Error()
		return r
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		r.err = "response: " + err.Error()
		return r
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		r.err = "body: " + err.Error()
	case resp.StatusCode != http.StatusOK:
		r.err = fmt.Sprintf("status %d", resp.StatusCode)
	case h.checkBody && string(body) != h.expectBody:
		r.err = fmt.Sprintf("body mismatch: %.40q", body)
	default:
		r.ok = true
		r.took = time.Since(start)
	}
	return r
}

type handshakeStats struct {
	accumulator
	res handshakeResult
}

func newHandshakeStats() *handshakeStats { return &handshakeStats{accumulator: newAccumulator()} }

func (s *handshakeStats) record(r attemptResult) {
	if r.err != "" {
		s.samples.add(r.err)
	}
	s.do(func() {
		if r.handshook {
			s.res.Handshakes++
		}
		if st := r.state; st != nil {
			if st.DidResume {
				s.res.Resumed++
			}
			s.saw("version", strings.ReplaceAll(tls.VersionName(st.Version), " ", ""))
			s.saw("cipher", tls.CipherSuiteName(st.CipherSuite))
			s.saw("curve", st.CurveID.String())
		}
		if r.ok {
			s.res.RequestsOK++
			recordDur(s.hist, r.took)
		} else {
			s.res.Errors++
		}
	})
}

func (s *handshakeStats) result() handshakeResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.res
	res.ErrorSamples = s.samples.get()
	res.TLSVersion, res.Cipher, res.Curve = s.distinct("version"), s.distinct("cipher"), s.distinct("curve")
	res.latencies = summarize(s.hist)
	res.Spectrum = newSpectrum(s.hist)
	return res
}
