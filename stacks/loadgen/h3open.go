package main

import (
	"flag"
	"io"
	"net/url"
	"sync/atomic"
	"time"
)

// The open model over HTTP/3 (loadgen h3 -rate R; docs/series/h3.md#open-model): requests at a
// constant arrival rate as `open` schedules them, each on a virtual user that is one QUIC
// connection with one request in flight, opened on its first iteration (a new user is a new
// handshake); an iteration due while every user is busy at the cap is dropped.

type h3OpenFlags struct {
	rate          *float64
	prealloc, max *int
}

func addH3OpenFlags(fs *flag.FlagSet) h3OpenFlags {
	return h3OpenFlags{
		rate:     fs.Float64("rate", 0, "open model: requests started per second (not given: the closed model of -c and -m)"),
		prealloc: fs.Int("prealloc", 50, "open model: virtual users created at the start (each opens its QUIC connection on its first request)"),
		max:      fs.Int("max-vus", 500, "open model: cap on virtual users; a request due while all are busy is dropped"),
	}
}

// onlyOpen names an open-model flag given without -rate, or "".
func (h3OpenFlags) onlyOpen(fs *flag.FlagSet) string {
	for _, name := range []string{"prealloc", "max-vus"} {
		if flagGiven(fs, name) {
			return name
		}
	}
	return ""
}

// h3OpenCommon: the flags both models share, as parsed.
type h3OpenCommon struct {
	d, timeout                time.Duration
	expectStatus, expectBytes int
	expectBody                string
}

// h3OpenResult is the summary of `open` plus what the closed h3 model verifies and counts.
type h3OpenResult struct {
	openResult
	Proto       string `json:"proto"`
	TLSVersion  string `json:"tls_version"`
	ALPN        string `json:"alpn"`
	QUICVersion string `json:"quic_version"`
	// Requests sent again on a new connection after the server closed the user's unprocessed.
	Retried     int64 `json:"retried"`
	UDPSent     int64 `json:"udp_datagrams_sent"`
	UDPReceived int64 `json:"udp_datagrams_received"`
}

// h3VU is a virtual user: its connection, dialed on its first iteration.
type h3VU struct{ conn *h3Conn }

func runH3Open(fs *flag.FlagSet, u *url.URL, tf *tlsFlags, of h3OpenFlags, o h3OpenCommon, stdout, stderr io.Writer) int {
	for _, name := range []string{"c", "m", "n", "warmup", "window"} {
		if flagGiven(fs, name) {
			return flagError(stderr, fs, name, "belongs to the closed model; the open model (-rate) has -prealloc and -max-vus, and its window is all of -d")
		}
	}
	d, timeout := o.d, o.timeout
	switch {
	case !(*of.rate > 0) || *of.rate > 1e7:
		return flagError(stderr, fs, "rate", "must be positive (and at most 1e7)")
	case d <= 0:
		return flagError(stderr, fs, "d", "must be positive")
	case *of.prealloc < 0:
		return flagError(stderr, fs, "prealloc", "must not be negative")
	case *of.max < 1 || *of.max < *of.prealloc:
		return flagError(stderr, fs, "max-vus", "must be at least 1 and at least -prealloc")
	case timeout <= 0:
		return flagError(stderr, fs, "timeout", "must be positive")
	}
	tlsConf, code, ok := h3TLS(fs, tf, u, stderr)
	if !ok {
		return code
	}
	addr, err := resolveUDP(h3Addr(u))
	if err != nil {
		return flagError(stderr, fs, "url", "%v", err)
	}
	rate := *of.rate
	check := h3Check{expectStatus: o.expectStatus, expectBytes: o.expectBytes, checkBody: flagGiven(fs, "expect-body"), expectBody: o.expectBody}
	var udp udpCounter
	var dials, retried atomic.Int64
	// Protocols seen (connections and answers); its counts are not this model's.
	seen := newH3Stats()
	dial := func() (*h3Link, error) {
		l, err := dialH3(addr, tlsConf, timeout, &udp)
		if err != nil {
			return nil, err
		}
		dials.Add(1)
		seen.conn(l.qc.ConnectionState())
		return l, nil
	}
	pool := newVUPool(*of.prealloc, *of.max, func() *h3VU { return &h3VU{} })
	st := newOpenStats(rate, d)
	sched := newSchedule(rate, d)

	iterate := func(v *h3VU, i int64, scheduled time.Time) {
		defer pool.release(v)
		began := time.Now()
		if v.conn == nil {
			l, err := dial()
			if err != nil {
				st.fail(i, false, "dial: "+err.Error())
				return
			}
			v.conn = &h3Conn{link: l}
		}
		var n int64
		resp, body, err := v.conn.get(u, timeout, dial, &n)
		retried.Add(n)
		end := time.Now()
		if err != nil {
			st.fail(i, resp != nil, err.Error())
			return
		}
		seen.mu.Lock()
		seen.protos[resp.Proto] = true
		seen.mu.Unlock()
		if p := check.problem(resp, body); p != "" {
			st.fail(i, true, p)
			return
		}
		st.succeed(i, end.Sub(scheduled), end.Sub(began))
	}

	end := endAtInterrupt(time.Time{}) // the schedule ends itself at -d
	defer end.release()
	window := driveOpen(rate, d, sched, pool, st, end, iterate)
	for _, v := range pool.all() {
		if v.conn != nil {
			v.conn.close()
		}
	}

	res := h3OpenResult{openResult: st.result(rate, window), Retried: retried.Load(), UDPSent: udp.sent.Load(), UDPReceived: udp.received.Load()}
	_, res.MaxVUs, res.VUsStarted = pool.stats()
	res.Iterations = sched.total
	res.NewConnections = dials.Load()
	p := seen.result()
	res.Proto, res.TLSVersion, res.ALPN, res.QUICVersion = p.Proto, p.TLSVersion, p.ALPN, p.QUICVersion
	emit(stdout, res)
	if st.responses == 0 {
		return unreachable(stderr, "h3", res.ErrorSamples)
	}
	return 0
}
