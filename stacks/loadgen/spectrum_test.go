package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func TestSpectrumRoundTrip(t *testing.T) {
	h := newHist()
	for v := int64(1); v <= 10000; v++ {
		recordDur(h, time.Duration(v)*time.Microsecond)
	}
	recordDur(h, 2*time.Second) // one outlier: the 100% row
	s := newSpectrum(h)
	if s.TotalCount != 10001 || s.MaxUS != h.Max() {
		t.Fatalf("totals %+v", s)
	}
	// The log decodes to the same histogram: lossless.
	back, err := hdrhistogram.Decode([]byte(s.HDR))
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equals(h) {
		t.Fatalf("decoded histogram differs: %d values, max %d", back.TotalCount(), back.Max())
	}
	first, last := s.Points[0], s.Points[len(s.Points)-1]
	if first.Percentile != 0 || last.Percentile != 100 || last.Count != 10001 || last.ValueUS != h.Max() {
		t.Fatalf("ends %+v %+v", first, last)
	}
	reached := false
	for i, p := range s.Points {
		reached = reached || (p.Percentile >= 99.99 && p.Percentile < 100)
		if i == 0 {
			continue
		}
		q := s.Points[i-1]
		if p.Percentile <= q.Percentile || p.ValueUS < q.ValueUS || p.Count < q.Count {
			t.Fatalf("not monotonic at %d: %+v after %+v", i, p, q)
		}
	}
	if !reached {
		t.Fatal("no point between 99.99% and 100%: the tail has no ticks")
	}
	// The median row: about half the samples at or below about 5 ms.
	for _, p := range s.Points {
		if p.Percentile == 50 && (p.ValueUS < 4990 || p.ValueUS > 5010 || p.Count < 4995 || p.Count > 5010) {
			t.Fatalf("p50 row %+v", p)
		}
	}
}

func TestSpectrumEmpty(t *testing.T) {
	s := newSpectrum(newHist())
	if s.TotalCount != 0 || len(s.Points) != 0 || s.HDR == "" {
		t.Fatalf("empty %+v", s)
	}
}

func TestOpenSpectrum(t *testing.T) {
	// One VU and a server that takes 50 ms at 40/s: every other iteration finds the VU
	// busy and is dropped (counted, not a latency sample); the spectrum holds the ok ones.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond)
		hello(w, r)
	}))
	defer srv.Close()
	code, res, stderr := runCmd[openResult](t, "open", "-url", srv.URL+"/", "-rate", "40", "-d", "500ms",
		"-prealloc", "1", "-max-vus", "1", "-expect-body", "hello world")
	if code != 0 || res.OK == 0 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	s := res.Spectrum
	if s.TotalCount != res.OK || len(s.Points) == 0 || s.HDR == "" {
		t.Fatalf("spectrum %+v of %d ok", s, res.OK)
	}
	if float64(s.MaxUS)/1000 != res.Max || res.Dropped == 0 || s.Points[0].ValueUS < 50000 {
		t.Fatalf("max %d µs vs max_ms %v, dropped %d, first row %+v", s.MaxUS, res.Max, res.Dropped, s.Points[0])
	}
}
