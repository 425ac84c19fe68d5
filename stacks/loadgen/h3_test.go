package main

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// h3Server is a quic-go HTTP/3 server on a loopback UDP port with httptest's
// certificate (valid for 127.0.0.1); it returns the https URL and the CA file.
type connKey struct{}

func h3Server(t *testing.T, h http.HandlerFunc, allow0RTT bool, alpn ...string) (string, string, *atomic.Int64) {
	t.Helper()
	tcp, ca := tlsServer(t, h) // only for its certificate and CA file
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	tlsConf := http3.ConfigureTLSConfig(&tls.Config{Certificates: tcp.TLS.Certificates})
	if len(alpn) > 0 {
		tlsConf = &tls.Config{Certificates: tcp.TLS.Certificates, NextProtos: alpn}
	}
	var accepted atomic.Int64
	srv := &http3.Server{
		Handler:    h,
		QUICConfig: &quic.Config{Allow0RTT: allow0RTT},
		ConnContext: func(ctx context.Context, c *quic.Conn) context.Context {
			accepted.Add(1)
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	ln, err := (&quic.Transport{Conn: conn}).ListenEarly(tlsConf, srv.QUICConfig)
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeListener(ln)
	t.Cleanup(func() { srv.Close(); ln.Close(); conn.Close() })
	return "https://" + conn.LocalAddr().String() + "/", ca, &accepted
}

func TestH3ClosedModel(t *testing.T) {
	url, ca, accepted := h3Server(t, hello, false)
	code, res, stderr := runCmd[h3Result](t, "h3", "-url", url, "-c", "3", "-m", "4", "-n", "120", "-cacert", ca, "-expect-body", "hello world")
	if code != 0 || res.Requests != 120 || res.OK != 120 || res.Errors != 0 || res.ConnsOpened != 3 || accepted.Load() != 3 || res.Streams != 4 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	if res.Proto != "HTTP/3.0" || res.ALPN != "h3" || res.TLSVersion != "TLS1.3" || res.QUICVersion == "" || res.Status["200"] != 120 {
		t.Fatalf("protocol: %+v", res)
	}
	if res.WindowOK != 120 || res.Spectrum.TotalCount != 120 || res.P50 <= 0 || res.Max < res.P99 || res.Rate <= 0 {
		t.Fatalf("latencies: %+v", res)
	}
}

func TestH3StreamsRunConcurrently(t *testing.T) {
	// Each answer waits until m requests are in flight on the one connection: with fewer
	// concurrent streams the run would time out.
	const m = 5
	var inFlight atomic.Int64
	release := make(chan struct{})
	url, ca, _ := h3Server(t, func(w http.ResponseWriter, r *http.Request) {
		if inFlight.Add(1) == m {
			close(release)
		}
		<-release
		hello(w, r)
	}, false)
	code, res, stderr := runCmd[h3Result](t, "h3", "-url", url, "-c", "1", "-m", "5", "-n", "5", "-cacert", ca, "-timeout", "3s")
	if code != 0 || res.OK != m || res.ConnsOpened != 1 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
}

func TestH3ReconnectsWhenTheServerClosesAConnection(t *testing.T) {
	// The server serves 10 requests per connection and closes it at the 11th unanswered
	// (as a proxy does past its per-connection request limit): the generator dials a new
	// connection and sends that request again.
	var served sync.Map
	url, ca, accepted := h3Server(t, func(w http.ResponseWriter, r *http.Request) {
		c := r.Context().Value(connKey{}).(*quic.Conn)
		n, _ := served.LoadOrStore(c, new(atomic.Int64))
		if n.(*atomic.Int64).Add(1) > 10 {
			c.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "enough")
			return
		}
		hello(w, r)
	}, false)
	code, res, stderr := runCmd[h3Result](t, "h3", "-url", url, "-c", "1", "-m", "1", "-n", "35", "-cacert", ca, "-expect-body", "hello world")
	if code != 0 || res.OK != 35 || res.Errors != 0 || res.ConnsOpened != 4 || accepted.Load() != 4 || res.Retried != 3 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
}

func TestH3CountsUDPDatagrams(t *testing.T) {
	url, ca, _ := h3Server(t, hello, false)
	code, res, stderr := runCmd[h3Result](t, "h3", "-url", url, "-c", "2", "-m", "1", "-n", "60", "-cacert", ca, "-expect-body", "hello world")
	if code != 0 || res.OK != 60 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	// Each request goes out in a datagram of its own and its answer comes back in one at least
	// (m=1: nothing to coalesce with); the handshakes add a few more each way per connection.
	if res.UDPSent < 60 || res.UDPReceived < 60 || res.UDPSent > 60*4 || res.UDPReceived > 60*4 {
		t.Fatalf("datagrams: %+v", res)
	}
	// No -warmup and no -window: the window is the whole run, handshakes and all.
	if res.WindowUDP <= 0 || res.WindowUDP > res.UDPSent+res.UDPReceived {
		t.Fatalf("window datagrams %d of %d+%d", res.WindowUDP, res.UDPSent, res.UDPReceived)
	}
	_, late, _ := runCmd[h3Result](t, "h3", "-url", url, "-d", "300ms", "-warmup", "1h", "-cacert", ca)
	if late.WindowUDP != 0 || late.UDPSent == 0 {
		t.Fatalf("a window after the run counts none: %+v", late)
	}
}

func TestH3OpenModel(t *testing.T) {
	url, ca, accepted := h3Server(t, hello, false)
	code, res, stderr := runCmd[h3OpenResult](t, "h3", "-url", url, "-rate", "100", "-d", "1s", "-prealloc", "2", "-max-vus", "20", "-cacert", ca, "-expect-body", "hello world")
	if code != 0 || res.Iterations != 100 || res.OK == 0 || res.Errors != 0 || res.OK+res.Dropped != 100 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	// A user's connection opens on its first request and is kept: at most the cap, and what the server accepted.
	if res.NewConnections < 1 || res.NewConnections > 20 || accepted.Load() != res.NewConnections || res.VUsStarted < 2 || res.MaxVUs > 20 {
		t.Fatalf("users: %+v (server accepted %d)", res, accepted.Load())
	}
	if res.ALPN != "h3" || res.Proto != "HTTP/3.0" || res.TLSVersion != "TLS1.3" || res.UDPSent < res.OK || res.UDPReceived < res.OK || len(res.Series) != 1 || res.Spectrum.TotalCount != res.OK {
		t.Fatalf("protocol and counts: %+v", res)
	}
}

func TestH3Window(t *testing.T) {
	url, ca, _ := h3Server(t, hello, false)
	// A warm-up as long as the run leaves every request outside the window.
	code, res, _ := runCmd[h3Result](t, "h3", "-url", url, "-d", "300ms", "-warmup", "1h", "-cacert", ca)
	if code != 0 || res.OK == 0 || res.WindowOK != 0 || res.Spectrum.TotalCount != 0 {
		t.Fatalf("code %d, result %+v", code, res)
	}
}

func TestH3VerificationFailures(t *testing.T) {
	url, ca, _ := h3Server(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusServiceUnavailable) }, false)
	code, res, _ := runCmd[h3Result](t, "h3", "-url", url, "-n", "4", "-cacert", ca)
	if code != 0 || res.Requests != 4 || res.OK != 0 || res.Errors != 4 || res.ErrorSamples[0] != "status 503" {
		t.Fatalf("code %d, result %+v", code, res)
	}
	okURL, okCA, _ := h3Server(t, hello, false)
	code, res, _ = runCmd[h3Result](t, "h3", "-url", okURL, "-n", "3", "-cacert", okCA, "-expect-bytes", "5")
	if res.OK != 0 || res.BodyMismatch != 3 || !strings.HasPrefix(res.ErrorSamples[0], "body length 11") {
		t.Fatalf("code %d, result %+v", code, res)
	}
}

func TestH3RefusesAServerWithoutH3(t *testing.T) {
	// A QUIC server that offers another application protocol: the handshake fails on ALPN.
	url, ca, _ := h3Server(t, hello, false, "hq-interop")
	code, res, stderr := runCmd[h3Result](t, "h3", "-url", url, "-n", "2", "-cacert", ca, "-timeout", "2s")
	if code != 1 || res.OK != 0 || res.ConnsOpened != 0 || !strings.Contains(stderr, "not reached") || !strings.Contains(res.ErrorSamples[0], "dial: ") {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	// Nothing listening on UDP at all (a TCP-only listener): the handshake times out.
	tcp, tcpCA := tlsServer(t, hello)
	code, res, _ = runCmd[h3Result](t, "h3", "-url", tcp.URL+"/", "-n", "1", "-cacert", tcpCA, "-timeout", "500ms")
	if code != 1 || res.OK != 0 {
		t.Fatalf("tcp only: code %d, result %+v", code, res)
	}
}

func TestH3HandshakeModes(t *testing.T) {
	url, ca, accepted := h3Server(t, hello, true)
	cases := []struct {
		resume                 string
		wantResumed, wantEarly int64
	}{
		{"none", 0, 0},
		// The first connection finds no ticket and is full; every later one resumes.
		{"tickets", 9, 0},
		{"0rtt", 9, 9},
	}
	for _, tc := range cases {
		before := accepted.Load()
		code, res, stderr := runCmd[h3HandshakeResult](t, "h3-handshake", "-url", url, "-c", "1", "-n", "10", "-cacert", ca, "-resume", tc.resume, "-expect-body", "hello world")
		if code != 0 || res.Handshakes != 10 || res.RequestsOK != 10 || res.Errors != 0 || accepted.Load()-before != 10 {
			t.Fatalf("%s: code %d, stderr %q, result %+v", tc.resume, code, stderr, res)
		}
		if res.Resumed != tc.wantResumed || res.EarlyData != tc.wantEarly || res.ALPN != "h3" || res.TLSVersion != "TLS1.3" || res.Spectrum.TotalCount != 10 {
			t.Fatalf("%s: result %+v", tc.resume, res)
		}
		// Each attempt sends its Initial, its Finished (the request coalesced or after) and its close; the server's flights come back in one at least.
		if res.UDPSent < 3*10 || res.UDPReceived < 10 {
			t.Fatalf("%s: datagrams %d sent, %d received", tc.resume, res.UDPSent, res.UDPReceived)
		}
	}
}

func TestH3HandshakeEarlyDataRefused(t *testing.T) {
	// A server that does not accept 0-RTT: connections resume, the request waits for the handshake.
	url, ca, _ := h3Server(t, hello, false)
	code, res, _ := runCmd[h3HandshakeResult](t, "h3-handshake", "-url", url, "-c", "1", "-n", "5", "-cacert", ca, "-resume", "0rtt")
	if code != 0 || res.RequestsOK != 5 || res.EarlyData != 0 || res.Resumed != 4 {
		t.Fatalf("code %d, result %+v", code, res)
	}
}

func TestH3BadFlags(t *testing.T) {
	badFlags(t, "h3",
		[]string{"-url", "http://127.0.0.1:1/"},
		[]string{"-url", "https://127.0.0.1:1/", "-c", "0"},
		[]string{"-url", "https://127.0.0.1:1/", "-m", "0"},
		[]string{"-url", "https://127.0.0.1:1/", "-warmup", "-1s"},
		[]string{"-url", "https://127.0.0.1:1/", "-cacert", "/nonexistent"},
		// The models' flags do not mix.
		[]string{"-url", "https://127.0.0.1:1/", "-rate", "10", "-c", "2"},
		[]string{"-url", "https://127.0.0.1:1/", "-rate", "10", "-warmup", "1s"},
		[]string{"-url", "https://127.0.0.1:1/", "-prealloc", "5"},
		[]string{"-url", "https://127.0.0.1:1/", "-rate", "0"},
		[]string{"-url", "https://127.0.0.1:1/", "-rate", "10", "-prealloc", "9", "-max-vus", "3"},
	)
	badFlags(t, "h3-handshake",
		[]string{"-url", "https://127.0.0.1:1/", "-resume", "ids"},
		[]string{"-url", "https://127.0.0.1:1/", "-n", "-1"},
	)
}
