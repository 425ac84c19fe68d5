package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestOpenSlowServerGrowsVUsThenDrops(t *testing.T) {
	srv, ca := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond)
		hello(w, r)
	})
	// 200/s at 100 ms each needs ~20 VUs; with 8 at most most iterations drop.
	code, res, stderr := runCmd[openResult](t, "open", "-url", srv.URL+"/", "-rate", "200", "-d", "1s",
		"-prealloc", "2", "-max-vus", "8", "-cacert", ca, "-expect-body", "hello world")
	if code != 0 || res.Iterations != 200 || res.OK+res.Errors+res.Dropped != res.Iterations {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	if res.VUsStarted != 8 || res.MaxVUs != 8 || res.Dropped < 50 || res.OK < 8 || res.Errors != 0 {
		t.Fatalf("want growth to the cap and drops: %+v", res)
	}
	// One connection per VU, opened by the VUs that ran; more than prealloc.
	if res.NewConnections < 3 || res.NewConnections > 8 {
		t.Fatalf("new_connections %d: %+v", res.NewConnections, res)
	}
	if len(res.Series) != 1 || res.Series[0].T != 1 || res.Series[0].Dropped != res.Dropped || res.Series[0].Rate != float64(res.OK) {
		t.Fatalf("series %+v", res.Series)
	}
	if res.P50 < 100 || res.ServiceP99 < 100 || res.AchievedRate >= res.TargetRate {
		t.Fatalf("latencies %+v", res)
	}
}

func TestOpenFastServerKeepsUp(t *testing.T) {
	// Plain HTTP: with TLS the first handshakes can take long enough on a
	// loaded (or -race) machine that iterations pile up, each new VU adds a
	// handshake, and the run drops for reasons that are not the server's.
	srv := httptest.NewServer(http.HandlerFunc(hello))
	defer srv.Close()
	code, res, stderr := runCmd[openResult](t, "open", "-url", srv.URL+"/", "-rate", "1000", "-d", "1500ms",
		"-prealloc", "10", "-max-vus", "300", "-expect-body", "hello world")
	if code != 0 || res.Iterations != 1500 || res.Dropped > 15 || res.Errors != 0 || res.OK+res.Dropped != 1500 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	if res.AchievedRate < 950 || res.AchievedRate > 1000 || res.TargetRate != 1000 || res.DurationS != 1.5 {
		t.Fatalf("achieved %v: %+v", res.AchievedRate, res)
	}
	// VUs are only added when none is free.
	if res.VUsStarted != max(10, res.MaxVUs) || res.NewConnections > int64(res.VUsStarted) {
		t.Fatalf("VUs %+v", res)
	}
	// The second bucket is half a second long: its rate is per second.
	if len(res.Series) != 2 || res.Series[1].T != 2 || res.Series[0].Rate+res.Series[1].Rate/2 != float64(res.OK) {
		t.Fatalf("series %+v", res.Series)
	}
	if res.P50 <= 0 || res.P50 > res.P99 || res.P99 > res.Max || res.ServiceP99 > res.Max {
		t.Fatalf("latencies %+v", res)
	}
}

func TestOpenLowRateStaysWithinPrealloc(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(hello))
	defer srv.Close()
	// 100/s with sub-millisecond answers: one VU at a time would do.
	code, res, _ := runCmd[openResult](t, "open", "-url", srv.URL+"/", "-rate", "100", "-d", "1s", "-prealloc", "10", "-max-vus", "50")
	if code != 0 || res.OK != 100 || res.Dropped != 0 || res.VUsStarted != 10 || res.MaxVUs > 10 || res.NewConnections > int64(res.MaxVUs) {
		t.Fatalf("code %d, result %+v", code, res)
	}
	if res.Series[0].VUs > res.MaxVUs {
		t.Fatalf("series %+v", res.Series)
	}
}

func TestOpenErrorsAndUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(hello))
	defer srv.Close()
	code, res, _ := runCmd[openResult](t, "open", "-url", srv.URL+"/", "-rate", "100", "-d", "200ms", "-expect-body", "bye")
	if code != 0 || res.OK != 0 || res.Errors != 20 || len(res.ErrorSamples) != 1 || !strings.HasPrefix(res.ErrorSamples[0], "body mismatch") {
		t.Fatalf("code %d, result %+v", code, res)
	}
	addr := srv.Listener.Addr().String()
	srv.Close()
	code, res, stderr := runCmd[openResult](t, "open", "-url", "http://"+addr+"/", "-rate", "100", "-d", "200ms")
	if code != 1 || res.OK != 0 || res.Errors != 20 || !strings.Contains(stderr, "not reached") {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
}

func TestOpenBadFlags(t *testing.T) {
	badFlags(t, "open",
		[]string{"-url", "ws://127.0.0.1:1/"},
		[]string{"-url", "http://127.0.0.1:1/", "-rate", "0"},
		[]string{"-url", "http://127.0.0.1:1/", "-rate", "NaN"},
		[]string{"-url", "http://127.0.0.1:1/", "-prealloc", "10", "-max-vus", "5"},
		[]string{"-url", "http://127.0.0.1:1/", "-max-vus", "0", "-prealloc", "0"},
		[]string{"-url", "http://127.0.0.1:1/", "-d", "-1s"},
		[]string{"-url", "https://127.0.0.1:1/", "-insecure", "-cacert", "x.pem"},
	)
}
