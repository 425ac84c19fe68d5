package main

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHandshakeFullEachTime(t *testing.T) {
	srv, ca := tlsServer(t, hello)
	code, res, stderr := runCmd[handshakeResult](t, "handshake", "-url", srv.URL+"/", "-c", "2", "-d", "300ms",
		"-cacert", ca, "-expect-body", "hello world")
	if code != 0 || res.Handshakes == 0 || res.Resumed != 0 || res.RequestsOK != res.Handshakes || res.Errors != 0 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	if res.TLSVersion != "TLS1.3" || res.Cipher == "" || res.Curve == "" || res.P50 <= 0 || res.Max < res.P99 || res.Rate <= 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestHandshakeCountCapAndTLS12(t *testing.T) {
	// A server capped at TLS 1.2 (where tickets would resume) still sees full handshakes.
	srv := httptest.NewUnstartedServer(http.HandlerFunc(hello))
	srv.TLS = &tls.Config{MaxVersion: tls.VersionTLS12}
	srv.StartTLS()
	defer srv.Close()
	code, res, _ := runCmd[handshakeResult](t, "handshake", "-url", srv.URL+"/", "-c", "3", "-n", "10", "-insecure")
	if code != 0 || res.Handshakes != 10 || res.RequestsOK != 10 || res.Resumed != 0 || res.TLSVersion != "TLS1.2" {
		t.Fatalf("code %d, result %+v", code, res)
	}
}

func TestHandshakeFailures(t *testing.T) {
	srv, ca := tlsServer(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusServiceUnavailable) })
	code, res, _ := runCmd[handshakeResult](t, "handshake", "-url", srv.URL+"/", "-n", "4", "-cacert", ca)
	if code != 0 || res.Handshakes != 4 || res.RequestsOK != 0 || res.Errors != 4 || len(res.ErrorSamples) != 1 || res.ErrorSamples[0] != "status 503" {
		t.Fatalf("code %d, result %+v", code, res)
	}
	// No handshake completes: the target counts as unreachable.
	code, res, stderr := runCmd[handshakeResult](t, "handshake", "-url", srv.URL+"/", "-n", "3", "-cacert", ca, "-server-name", "wrong.invalid")
	if code != 1 || res.Handshakes != 0 || res.Errors != 3 || !strings.HasPrefix(res.ErrorSamples[0], "handshake: ") || !strings.Contains(stderr, "not reached") {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
}

func TestHandshakeResumeTickets(t *testing.T) {
	srv, ca := tlsServer(t, hello)
	for _, mode := range []string{"tickets", "tickets-tls12"} {
		code, res, stderr := runCmd[handshakeResult](t, "handshake", "-url", srv.URL+"/", "-c", "1", "-n", "10", "-cacert", ca, "-resume", mode)
		want := map[string]string{"tickets": "TLS1.3", "tickets-tls12": "TLS1.2"}[mode]
		// The first handshake finds no ticket and is full; every later one resumes.
		if code != 0 || res.Handshakes != 10 || res.Resumed != 9 || res.TLSVersion != want {
			t.Fatalf("%s: code %d, stderr %q, result %+v", mode, code, stderr, res)
		}
	}
}

func TestHandshakePlainHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(hello))
	defer srv.Close()
	code, res, _ := runCmd[handshakeResult](t, "handshake", "-url", srv.URL+"/", "-n", "5", "-expect-body", "hello world")
	if code != 0 || res.Handshakes != 5 || res.RequestsOK != 5 || res.TLSVersion != "" {
		t.Fatalf("code %d, result %+v", code, res)
	}
}

func TestHandshakeBadFlags(t *testing.T) {
	badFlags(t, "handshake",
		[]string{"-url", "ftp://127.0.0.1/"},
		[]string{"-url", "https://127.0.0.1:1/", "-c", "0"},
		[]string{"-url", "https://127.0.0.1:1/", "-d", "0s"},
		[]string{"-url", "https://127.0.0.1:1/", "-n", "-1"},
		[]string{"-url", "https://127.0.0.1:1/", "-cacert", "/nonexistent"},
		[]string{"-url", "https://127.0.0.1:1/", "-d", "ten"},
		[]string{"-url", "https://127.0.0.1:1/", "-resume", "ids"},
	)
}
