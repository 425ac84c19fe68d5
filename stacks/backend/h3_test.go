package main

import (
	"crypto/tls"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"
)

func TestH3ListenerAnswersAndCounts(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	b := newBackend()
	errc := make(chan error, 1)
	addr, err := b.listenH3("127.0.0.1:0", certFile, keyFile, errc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.h3.Close() })
	tr := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer tr.Close()
	c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	get := func(path string) (*http.Response, string) {
		resp, err := c.Get("https://" + addr.String() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	resp, body := get("/")
	if resp.StatusCode != 200 || body != "hello world" || resp.Proto != "HTTP/3.0" {
		t.Fatalf("/: %d %s %q", resp.StatusCode, resp.Proto, body)
	}
	if resp, body = get("/json?size=300"); resp.StatusCode != 200 || len(body) != 300 {
		t.Fatalf("/json: %d, %d bytes", resp.StatusCode, len(body))
	}
	if resp, _ = get("/json?size=1"); resp.StatusCode != 400 {
		t.Fatalf("/json?size=1: %d", resp.StatusCode)
	}
	if resp, _ = get("/nope"); resp.StatusCode != 404 {
		t.Fatalf("/nope: %d", resp.StatusCode)
	}
	// One QUIC connection carried all four requests.
	if b.st.requests.Load() != 4 || b.st.h3Accepted.Load() != 1 || b.st.accepted.Load() != 1 {
		t.Fatalf("requests %d, h3 accepted %d, accepted %d", b.st.requests.Load(), b.st.h3Accepted.Load(), b.st.accepted.Load())
	}
	if _, err := b.listenH3("127.0.0.1:0", "", keyFile, errc); err == nil {
		t.Fatal("no certificate was accepted")
	}
}
