package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func init() {
	register("open", "open-model load: GETs at a constant arrival rate (k6 constant-arrival-rate)", runOpen)
}

type openResult struct {
	TargetRate     float64      `json:"target_rate"`
	AchievedRate   float64      `json:"achieved_rate"`
	Iterations     int64        `json:"iterations"`
	OK             int64        `json:"ok"`
	Errors         int64        `json:"errors"`
	ErrorSamples   []string     `json:"error_samples"`
	Dropped        int64        `json:"dropped"`
	MaxVUs         int          `json:"max_vus"`
	VUsStarted     int          `json:"vus_started"`
	NewConnections int64        `json:"new_connections"`
	DurationS      float64      `json:"duration_s"` // the scheduling window: late answers still count
	latencies                   // from the scheduled start, successful iterations only
	ServiceP99     float64      `json:"service_p99_ms"` // from the actual start
	Series         []openSecond `json:"series"`
	// From the scheduled start too: a late send shows as latency (no coordinated omission).
	Spectrum latencySpectrum `json:"latency_spectrum"`
}

// openSecond covers the iterations scheduled in second T (1-based), so every
// iteration lands in exactly one bucket whenever it completes.
type openSecond struct {
	T       int     `json:"t"`
	Rate    float64 `json:"rate"` // ok iterations per second
	VUs     int     `json:"vus"`  // in use at the end of the second
	P99     float64 `json:"p99_ms"`
	Dropped int64   `json:"dropped"`
}

// vu is a virtual user: one keep-alive HTTP/1.1 connection of its own.
type vu struct{ client *http.Client }

func runOpen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("open", flag.ContinueOnError)
	rawURL := fs.String("url", "", "URL to GET (http:// or https://)")
	rate := fs.Float64("rate", 1000, "iterations (GETs) started per second")
	d := fs.Duration("d", 10*time.Second, "how long iterations are scheduled for; a SIGINT ends the schedule sooner (iterations in flight complete)")
	prealloc := fs.Int("prealloc", 50, "VUs created at the start (each connects on its first iteration)")
	maxVUs := fs.Int("max-vus", 500, "cap on VUs; an iteration due while all are busy is dropped")
	timeout := fs.Duration("timeout", 5*time.Second, "per-iteration timeout, connect and TLS handshake included")
	expectBody := fs.String("expect-body", "", "exact body an answer needs to count as ok (unchecked when not given)")
	tf := addTLSFlags(fs)
	u, code, ok := parseCommand(fs, args, stdout, stderr, rawURL, "http", "https")
	if !ok {
		return code
	}
	switch {
	case !(*rate > 0) || *rate > 1e7:
		return flagError(stderr, fs, "rate", "must be positive (and at most 1e7)")
	case *d <= 0:
		return flagError(stderr, fs, "d", "must be positive")
	case *prealloc < 0:
		return flagError(stderr, fs, "prealloc", "must not be negative")
	case *maxVUs < 1 || *maxVUs < *prealloc:
		return flagError(stderr, fs, "max-vus", "must be at least 1 and at least -prealloc")
	case *timeout <= 0:
		return flagError(stderr, fs, "timeout", "must be positive")
	}
	tlsConf, code, ok := tf.config(fs, stderr)
	if !ok {
		return code
	}
	checkBody := flagGiven(fs, "expect-body")

	var dials atomic.Int64
	dialer := &net.Dialer{Timeout: *timeout}
	countingDial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		if err == nil {
			dials.Add(1)
		}
		return conn, err
	}
	newVU := func() *vu {
		return &vu{client: &http.Client{CheckRedirect: noRedirect, Transport: &http.Transport{
			Proxy:           nil,
			DialContext:     countingDial,
			TLSClientConfig: tlsConf, // no session cache: a new VU is a full handshake
			// HTTP/1.1 only, one connection per VU, kept alive between iterations.
			TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
			MaxConnsPerHost:     1,
			MaxIdleConnsPerHost: 1,
			TLSHandshakeTimeout: *timeout,
			DisableCompression:  true,
		}}}
	}
	pool := newVUPool(*prealloc, *maxVUs, newVU)
	st := newOpenStats(*rate, *d)
	sched := newSchedule(*rate, *d)
	target := u.String()

	iterate := func(v *vu, i int64, scheduled time.Time) {
		defer pool.release(v)
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		began := time.Now()
		resp, err := v.client.Do(req)
		if err != nil {
			st.fail(i, false, err.Error())
			return
		}
		body, err := io.ReadAll(resp.Body) // to EOF, so the connection is reused
		resp.Body.Close()
		end := time.Now()
		switch {
		case err != nil:
			st.fail(i, true, "body: "+err.Error())
		case resp.StatusCode != http.StatusOK:
			st.fail(i, true, fmt.Sprintf("status %d", resp.StatusCode))
		case checkBody && string(body) != *expectBody:
			st.fail(i, true, fmt.Sprintf("body mismatch: %.40q", body))
		default:
			st.succeed(i, end.Sub(scheduled), end.Sub(began))
		}
	}

	end := endAtInterrupt(time.Time{}) // the schedule ends itself at -d
	defer end.release()
	window := driveOpen(*rate, *d, sched, pool, st, end, iterate)
	for _, v := range pool.all() {
		v.client.CloseIdleConnections()
	}

	res := st.result(*rate, window)
	_, res.MaxVUs, res.VUsStarted = pool.stats()
	res.Iterations = sched.total
	res.NewConnections = dials.Load()
	emit(stdout, res)
	if st.responses == 0 {
		return unreachable(stderr, "open", res.ErrorSamples)
	}
	return 0
}

// driveOpen hands out the iterations of sched as they fall due, each to a VU of pool (one
// due while every VU is busy at the cap is dropped), records the VUs in use at the end of
// each second, and returns when every iteration has finished. An interruption of end (the
// first SIGINT) ends the schedule: nothing is handed out after it, and the scheduling window
// it returns (d otherwise) closes at it, or at the first iteration due and not handed out.
func driveOpen[V any](rate float64, d time.Duration, sched *schedule, pool *vuPool[V], st *openStats, end *runEnd, iterate func(v V, i int64, scheduled time.Time)) time.Duration {
	var wg sync.WaitGroup
	t0 := time.Now()
	window := d
	sampled := make(chan struct{})
	go func() { // VUs in use at the end of each second, and at the interruption
		defer close(sampled)
		for k := range st.series {
			timer := time.NewTimer(time.Until(t0.Add(min(time.Duration(k+1)*time.Second, d))))
			select {
			case <-timer.C:
			case <-end.signalled:
				timer.Stop()
			}
			inUse, _, _ := pool.stats()
			st.setVUs(k, inUse)
			if end.over(time.Now()) {
				return
			}
		}
	}()
	for {
		next, more := sched.nextAt()
		if !more {
			break
		}
		sleepUntil(t0.Add(next))
		if end.over(time.Now()) {
			// The window closes at the signal, or sooner at the first iteration left due (a late
			// loop), so that it holds exactly the iterations handed out.
			window = min(window, next)
			sched.stop()
			break
		}
		from, to := sched.due(time.Since(t0))
		for i := from; i < to; i++ {
			v, ok := pool.acquire()
			if !ok {
				st.drop(i)
				continue
			}
			wg.Go(func() { iterate(v, i, t0.Add(arrivalTime(i, rate))) })
		}
	}
	<-sampled
	wg.Wait()
	return min(window, end.recordUntil(t0.Add(d)).Sub(t0))
}

// openStats is shared by all iterations; a mutex is cheap next to an HTTP
// round trip, and the HDR histograms are not safe for concurrent use.
type openStats struct {
	mu                  sync.Mutex
	rate                float64
	ok, errors, dropped int64
	responses           int64 // iterations that got any HTTP answer
	hist, service       histogram
	series              []openSecond
	secHist             []histogram
	secOK               []int64
	secLen              []time.Duration
	samples             samples
}

func newOpenStats(rate float64, d time.Duration) *openStats {
	n := int((d + time.Second - 1) / time.Second)
	s := &openStats{rate: rate, hist: newHist(), service: newHist(), series: make([]openSecond, n),
		secHist: make([]histogram, n), secOK: make([]int64, n), secLen: make([]time.Duration, n)}
	for k := range n {
		s.series[k].T = k + 1
		// Two significant digits (1%) keep one histogram per second small.
		s.secHist[k] = hdrhistogram.New(1, histMaxUS, 2)
		s.secLen[k] = min(time.Second, d-time.Duration(k)*time.Second) // the last may be partial
	}
	return s
}

// second is the series bucket of iteration i: the second it was scheduled in.
func (s *openStats) second(i int64) int {
	return min(int(arrivalTime(i, s.rate)/time.Second), len(s.series)-1)
}

func (s *openStats) succeed(i int64, latency, service time.Duration) {
	k := s.second(i)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ok++
	s.responses++
	s.secOK[k]++
	recordDur(s.hist, latency)
	recordDur(s.service, service)
	recordDur(s.secHist[k], latency)
}

// fail counts a failed iteration; answered tells a bad HTTP answer from no answer.
func (s *openStats) fail(i int64, answered bool, msg string) {
	s.samples.add(msg)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errors++
	if answered {
		s.responses++
	}
}

func (s *openStats) setVUs(k, inUse int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.series[k].VUs = inUse
}

func (s *openStats) drop(i int64) {
	k := s.second(i)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropped++
	s.series[k].Dropped++
}

// result is called once every iteration has finished; d is the scheduling window as it ran
// (shorter than the one planned after a SIGINT: the series ends with it).
func (s *openStats) result(rate float64, d time.Duration) openResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cut(d)
	res := openResult{
		TargetRate:   rate,
		AchievedRate: perSecond(s.ok, d),
		OK:           s.ok,
		Errors:       s.errors,
		ErrorSamples: s.samples.get(),
		Dropped:      s.dropped,
		DurationS:    seconds(d),
		latencies:    summarize(s.hist),
		Spectrum:     newSpectrum(s.hist),
		ServiceP99:   usToMS(s.service.ValueAtQuantile(99)),
		Series:       s.series,
	}
	for k := range s.series {
		s.series[k].Rate = perSecond(s.secOK[k], s.secLen[k])
		s.series[k].P99 = usToMS(s.secHist[k].ValueAtQuantile(99))
	}
	return res
}

// cut ends the series with the scheduling window d: no iteration was scheduled after it, so
// the seconds past it are empty, and the one it ends in is partial.
func (s *openStats) cut(d time.Duration) {
	n := max(1, int((d+time.Second-1)/time.Second))
	if n >= len(s.series) {
		return
	}
	s.series = s.series[:n]
	s.secLen[n-1] = d - time.Duration(n-1)*time.Second
}
