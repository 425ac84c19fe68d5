package main

import (
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestRunEndRecordsUntilTheEarlierOfWindowAndInterruption(t *testing.T) {
	now := time.Now()
	e := &runEnd{deadline: now.Add(time.Hour), signalled: make(chan struct{})}
	if e.over(now) || !e.recordUntil(time.Time{}).IsZero() || !e.recordUntil(now.Add(time.Second)).Equal(now.Add(time.Second)) {
		t.Fatal("before an interruption the window and deadline hold")
	}
	e.interrupt(now.Add(2 * time.Second))
	e.interrupt(now.Add(5 * time.Second)) // the first wins
	<-e.signalled
	if !e.over(now) || !e.recordUntil(time.Time{}).Equal(now.Add(2*time.Second)) || !e.recordUntil(now.Add(time.Second)).Equal(now.Add(time.Second)) {
		t.Fatalf("after: until %v", e.recordUntil(time.Time{}).Sub(now))
	}
}

// A SIGINT ends a run given an hour: it reports what it did, its window closed at the signal.
func TestH3EndsAndReportsOnInterrupt(t *testing.T) {
	var served atomic.Int64
	url, ca, _ := h3Server(t, func(w http.ResponseWriter, r *http.Request) {
		// The run listens for SIGINT before its first request: one is served, it is safe to send.
		if served.Add(1) == 200 {
			_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		}
		hello(w, r)
	}, false)
	start := time.Now()
	code, res, stderr := runCmd[h3Result](t, "h3", "-url", url, "-c", "2", "-m", "2", "-d", "1h", "-cacert", ca)
	if took := time.Since(start); code != 0 || took > 30*time.Second {
		t.Fatalf("code %d after %v, stderr %q", code, took, stderr)
	}
	// The window closed at the signal: only the 4 requests in flight then (2 connections × 2 streams) may end after it.
	if res.OK < 200 || res.Errors != 0 || res.OK != served.Load() || res.WindowOK < res.OK-4 || res.WindowOK > res.OK || res.DurationS > 30 {
		t.Fatalf("result %+v (served %d)", res, served.Load())
	}
	if res.WindowUDP <= 0 || res.WindowUDP > res.UDPSent+res.UDPReceived {
		t.Fatalf("window datagrams %d of %d+%d", res.WindowUDP, res.UDPSent, res.UDPReceived)
	}
}

// interruptAt returns a server-side hook: its nth call sends this process a SIGINT, and every
// call after it waits a little, so the answers in flight at the signal come after it. The
// run listens for SIGINT before its first request, so the signal is safe to send.
func interruptAt(n int64) (hook func(), calls *atomic.Int64) {
	calls = new(atomic.Int64)
	return func() {
		k := calls.Add(1)
		if k == n {
			_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		}
		if k >= n {
			time.Sleep(20 * time.Millisecond)
		}
	}, calls
}

// interrupted runs a subcommand given a long -d (the last args) that the server interrupts:
// it must end well before, exit 0, and print its JSON.
func interrupted[T any](t *testing.T, name string, args ...string) T {
	t.Helper()
	start := time.Now()
	code, res, stderr := runCmd[T](t, name, args...)
	if took := time.Since(start); code != 0 || took > 30*time.Second {
		t.Fatalf("%s: code %d after %v, stderr %q", name, code, took, stderr)
	}
	return res
}

func TestOpenEndsAndReportsOnInterrupt(t *testing.T) {
	hook, served := interruptAt(300)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hook(); hello(w, r) }))
	defer srv.Close()
	res := interrupted[openResult](t, "open", "-url", srv.URL+"/", "-rate", "1000", "-prealloc", "10", "-max-vus", "300", "-expect-body", "hello world", "-d", "60s")
	// Every iteration handed out finished (those in flight at the signal included); none was scheduled after it.
	if res.OK < 300 || res.OK != served.Load() || res.Errors != 0 || res.OK+res.Dropped != res.Iterations || res.DurationS > 30 {
		t.Fatalf("result %+v (served %d)", res, served.Load())
	}
	if due := 1000 * res.DurationS; math.Abs(float64(res.Iterations)-due) > 2+0.02*due {
		t.Fatalf("%d iterations in a scheduling window of %v s", res.Iterations, res.DurationS)
	}
	if len(res.Series) != int(math.Ceil(res.DurationS)) || math.Abs(res.AchievedRate-float64(res.OK)/res.DurationS) > 0.001*res.AchievedRate {
		t.Fatalf("the series and rate end with the window: %+v", res)
	}
}

func TestH3OpenEndsAndReportsOnInterrupt(t *testing.T) {
	hook, served := interruptAt(200)
	url, ca, _ := h3Server(t, func(w http.ResponseWriter, r *http.Request) { hook(); hello(w, r) }, false)
	res := interrupted[h3OpenResult](t, "h3", "-url", url, "-rate", "500", "-prealloc", "10", "-max-vus", "100", "-cacert", ca, "-d", "60s")
	if res.OK < 200 || res.OK != served.Load() || res.Errors != 0 || res.OK+res.Dropped != res.Iterations || res.DurationS > 30 {
		t.Fatalf("result %+v (served %d)", res, served.Load())
	}
}

func TestHandshakeEndsAndReportsOnInterrupt(t *testing.T) {
	hook, served := interruptAt(60)
	srv, ca := tlsServer(t, func(w http.ResponseWriter, r *http.Request) { hook(); hello(w, r) })
	res := interrupted[handshakeResult](t, "handshake", "-url", srv.URL+"/", "-c", "4", "-cacert", ca, "-expect-body", "hello world", "-d", "1h")
	// The 4 workers' attempts in flight at the signal complete: every request served is an ok one.
	if res.Handshakes < 60 || res.RequestsOK != served.Load() || res.Handshakes != res.RequestsOK || res.Errors != 0 || res.DurationS > 30 {
		t.Fatalf("result %+v (served %d)", res, served.Load())
	}
}

func TestH3HandshakeEndsAndReportsOnInterrupt(t *testing.T) {
	hook, served := interruptAt(40)
	url, ca, _ := h3Server(t, func(w http.ResponseWriter, r *http.Request) { hook(); hello(w, r) }, false)
	res := interrupted[h3HandshakeResult](t, "h3-handshake", "-url", url, "-c", "2", "-cacert", ca, "-d", "1h")
	if res.Handshakes < 40 || res.RequestsOK != served.Load() || res.Errors != 0 || res.DurationS > 30 {
		t.Fatalf("result %+v (served %d)", res, served.Load())
	}
}

func TestWSEchoEndsAndReportsOnInterrupt(t *testing.T) {
	hook, echoed := interruptAt(500)
	srv := httptest.NewServer(echoEach(hook))
	defer srv.Close()
	res := interrupted[wsEchoResult](t, "ws-echo", "-url", wsURL(srv, "/"), "-c", "4", "-d", "1h")
	// The echo each connection waited for at the signal came back and counts.
	if res.ConnsEstablished != 4 || res.Messages < 500 || res.Messages != echoed.Load() || res.Errors != 0 || res.DurationS > 30 {
		t.Fatalf("result %+v (echoed %d)", res, echoed.Load())
	}
}

func TestTCPEndsAndReportsOnInterrupt(t *testing.T) {
	hook, accepted := interruptAt(100)
	url := echoServerEach(t, hook)
	res := interrupted[tcpResult](t, "tcp", "-url", url, "-c", "4", "-d", "1h")
	// Each worker's connection in flight at the signal is echoed whole.
	if res.ConnsOK < 100 || res.ConnsOK != accepted.Load() || res.Errors != 0 || res.Mismatches != 0 || res.DurationS > 30 {
		t.Fatalf("result %+v (accepted %d)", res, accepted.Load())
	}
}
