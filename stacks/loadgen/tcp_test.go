package main

import (
	"crypto/tls"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
)

// echoServer echoes each connection; with corrupt it flips the 100th byte
// of what it sends back, with short it closes after that many bytes.
func echoServer(t *testing.T, useTLS bool, corrupt bool, short int64) string {
	t.Helper()
	return echoServerWith(t, useTLS, corrupt, short, nil)
}

// echoServerEach is a plain echoServer calling accepted (when not nil) for each connection before its echo.
func echoServerEach(t *testing.T, accepted func()) string {
	t.Helper()
	return echoServerWith(t, false, false, 0, accepted)
}

func echoServerWith(t *testing.T, useTLS bool, corrupt bool, short int64, accepted func()) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if useTLS {
		// httptest's certificate for 127.0.0.1; the client runs with -insecure.
		srv := httptest.NewTLSServer(nil)
		certs := srv.TLS.Certificates
		srv.Close()
		ln = tls.NewListener(ln, &tls.Config{Certificates: certs})
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if accepted != nil {
					accepted()
				}
				var src io.Reader = c
				if short > 0 {
					src = io.LimitReader(c, short)
				}
				if !corrupt {
					io.Copy(c, src)
					return
				}
				buf := make([]byte, 4096)
				var seen int64
				for {
					k, err := src.Read(buf)
					for i := 0; i < k; i++ {
						if seen+int64(i) == 99 {
							buf[i] ^= 0xff
						}
					}
					seen += int64(k)
					if _, werr := c.Write(buf[:k]); werr != nil || err != nil {
						return
					}
				}
			}()
		}
	}()
	scheme := "tcp"
	if useTLS {
		scheme = "tls"
	}
	return scheme + "://" + ln.Addr().String()
}

func TestTCPShortConnections(t *testing.T) {
	url := echoServer(t, false, false, 0)
	code, res, stderr := runCmd[tcpResult](t, "tcp", "-url", url, "-c", "3", "-n", "30", "-msg-bytes", "300")
	if code != 0 || res.Mode != "short" || res.Conns != 30 || res.ConnsOK != 30 || res.Errors != 0 || res.Mismatches != 0 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	if res.BytesSent != 30*300 || res.BytesEchoed != 30*300 || res.TLSVersion != "" || res.P50 <= 0 || res.ConnRate <= 0 || res.SlowConnects != 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestTCPStreamThroughTLS(t *testing.T) {
	url := echoServer(t, true, false, 0)
	code, res, stderr := runCmd[tcpResult](t, "tcp", "-url", url, "-c", "2", "-n", "4", "-mode", "stream", "-stream-bytes", "3000000", "-insecure")
	if code != 0 || res.ConnsOK != 4 || res.BytesEchoed != 4*3000000 || res.BytesSent != 4*3000000 || res.Mismatches != 0 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	if res.TLSVersion != "TLS1.3" || res.MiBPerS <= 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestTCPCorruptedOrCutEchoIsAnError(t *testing.T) {
	_, res, _ := runCmd[tcpResult](t, "tcp", "-url", echoServer(t, false, true, 0), "-n", "3", "-c", "1", "-msg-bytes", "200")
	if res.ConnsOK != 0 || res.Mismatches != 3 || res.Errors != 3 || !strings.Contains(res.ErrorSamples[0], "differs") {
		t.Fatalf("corrupted: %+v", res)
	}
	code, res, _ := runCmd[tcpResult](t, "tcp", "-url", echoServer(t, false, false, 1000), "-n", "2", "-c", "1", "-mode", "stream", "-stream-bytes", "5000")
	if code != 1 || res.ConnsOK != 0 || res.BytesEchoed != 2000 || !strings.HasPrefix(res.ErrorSamples[0], "read:") {
		t.Fatalf("cut: code %d %+v", code, res)
	}
	code, res, _ = runCmd[tcpResult](t, "tcp", "-url", "tcp://127.0.0.1:1", "-n", "1")
	if code != 1 || res.Conns != 0 || !strings.HasPrefix(res.ErrorSamples[0], "dial:") {
		t.Fatalf("refused: code %d %+v", code, res)
	}
}

func TestTCPBadFlags(t *testing.T) {
	badFlags(t, "tcp",
		[]string{"-url", "http://127.0.0.1:1"},
		[]string{"-url", "tcp://127.0.0.1"},
		[]string{"-url", "tcp://127.0.0.1:1", "-mode", "long"},
		[]string{"-url", "tcp://127.0.0.1:1", "-c", "0"},
		[]string{"-url", "tcp://127.0.0.1:1", "-stream-bytes", "0"},
		[]string{"-url", "tcp://127.0.0.1:1", "-msg-bytes", "0"},
	)
}
