package main

import (
	"net/http"
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
