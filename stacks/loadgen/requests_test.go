package main

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func hello(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello world") }

func tlsServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // expected handshake failures are noise
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, ca
}

func runJSON(t *testing.T, args ...string) (int, requestsResult, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := dispatch(append([]string{"requests"}, args...), &stdout, &stderr)
	var res requestsResult
	if stdout.Len() > 0 {
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("stdout %q: %v", stdout.String(), err)
		}
	}
	return code, res, stderr.String()
}

func TestRequestsKeepAlive(t *testing.T) {
	srv, ca := tlsServer(t, hello)
	code, res, stderr := runJSON(t, "-url", srv.URL+"/", "-n", "40", "-c", "4", "-cacert", ca, "-expect-body", "hello world")
	if code != 0 || res.OK != 40 || res.Errors != 0 || res.ConnsOpened != 4 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	if res.Proto != "HTTP/1.1" || res.TLSVersion != "TLS1.3" || res.ALPN != "" || res.Status["200"] != 40 {
		t.Fatalf("result %+v", res)
	}
}

func TestRequestsConnectionClose(t *testing.T) {
	srv, _ := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		hello(w, r)
	})
	code, res, _ := runJSON(t, "-url", srv.URL+"/", "-n", "10", "-c", "2", "-insecure")
	if code != 0 || res.OK != 10 || res.ConnsOpened != 10 {
		t.Fatalf("code %d, result %+v", code, res)
	}
}

func TestRequestsMismatchAndErrors(t *testing.T) {
	srv, ca := tlsServer(t, hello)
	code, res, _ := runJSON(t, "-url", srv.URL+"/", "-n", "5", "-cacert", ca, "-expect-body", "bye")
	if code != 1 || res.OK != 0 || res.BodyMismatch != 5 {
		t.Fatalf("code %d, result %+v", code, res)
	}
	// The test certificate is not valid for this name.
	code, res, _ = runJSON(t, "-url", srv.URL+"/", "-n", "3", "-cacert", ca, "-server-name", "wrong.invalid")
	if code != 1 || res.Errors != 3 || len(res.ErrorSamples) != 1 || res.ConnsOpened != 3 {
		t.Fatalf("code %d, result %+v", code, res)
	}
}

func TestRequestsPlainHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(hello))
	defer srv.Close()
	code, res, _ := runJSON(t, "-url", srv.URL+"/", "-n", "6", "-c", "3")
	if code != 0 || res.OK != 6 || res.ConnsOpened != 3 || res.TLSVersion != "" {
		t.Fatalf("code %d, result %+v", code, res)
	}
}

func TestRequestsExpectBytes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(hello))
	defer srv.Close()
	code, res, _ := runJSON(t, "-url", srv.URL+"/", "-n", "4", "-expect-bytes", "11")
	if code != 0 || res.OK != 4 || res.BodyMismatch != 0 {
		t.Fatalf("11 bytes: code %d, result %+v", code, res)
	}
	code, res, _ = runJSON(t, "-url", srv.URL+"/", "-n", "4", "-expect-bytes", "12")
	if code != 1 || res.OK != 0 || res.BodyMismatch != 4 {
		t.Fatalf("12 bytes: code %d, result %+v", code, res)
	}
}

func TestRequestsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "x", "-url", "http://127.0.0.1:1/"},
		{"-url", "127.0.0.1:1"},
		{"-url", "http://127.0.0.1:1/", "-c", "0"},
		{"-url", "https://127.0.0.1:1/", "-cacert", "/nonexistent"},
		{"-bogus"},
	} {
		code, _, stderr := runJSON(t, args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "-") {
			t.Errorf("%v: code %d, stderr %q", args, code, stderr)
		}
	}
}

func TestDispatch(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"nosuch"}, &stdout, &stderr); code != 2 {
		t.Fatalf("code %d", code)
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, `"nosuch"`) || stdout.Len() != 0 {
		t.Fatalf("stderr %q stdout %q", got, stdout.String())
	}
	stdout.Reset()
	if code := dispatch([]string{"help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("help: code %d, %q", code, stdout.String())
	}
	for _, name := range []string{"requests", "handshake", "open", "ws-echo", "ws-hold"} {
		if !strings.Contains(stdout.String(), "\n  "+name+" ") {
			t.Errorf("help lacks %s: %q", name, stdout.String())
		}
	}
	if code := dispatch(nil, io.Discard, io.Discard); code != 2 {
		t.Fatalf("no args: code %d", code)
	}
}
