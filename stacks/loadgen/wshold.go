package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

func init() {
	register("ws-hold", "open N WebSocket connections at a bounded rate, hold them idle with pings, report survivors", runWSHold)
}

type wsHoldResult struct {
	ConnsTarget      int            `json:"conns_target"`
	ConnsEstablished int            `json:"conns_established"`
	Refused          int            `json:"refused"`
	RefusalReasons   map[string]int `json:"refusal_reasons"`
	ClosedEarly      int            `json:"closed_early"` // established, gone before the hold ended
	CloseReasons     map[string]int `json:"close_reasons"`
	Survived         int            `json:"survived"`
	PingsSent        int64          `json:"pings_sent"`
	Pings            int64          `json:"pings"` // pongs received
	pingLatencies
	DurationS float64     `json:"duration_s"`
	Nofile    uint64      `json:"nofile"`
	Series    []holdPoint `json:"series"`
}

// pingLatencies is latencies under ping_ names (convertible: same fields).
type pingLatencies struct {
	P50  float64 `json:"ping_p50_ms"`
	P90  float64 `json:"ping_p90_ms"`
	P99  float64 `json:"ping_p99_ms"`
	P999 float64 `json:"ping_p999_ms"`
	Max  float64 `json:"ping_max_ms"`
}

type holdPoint struct {
	T    int `json:"t"`    // seconds since the first connection attempt
	Open int `json:"open"` // connections alive then
}

func runWSHold(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ws-hold", flag.ContinueOnError)
	rawURL := fs.String("url", "", "WebSocket URL (ws:// or wss://)")
	n := fs.Int("n", 1000, "connections to open")
	openRate := fs.Float64("open-rate", 500, "connection attempts started per second")
	hold := fs.Duration("hold", 60*time.Second, "how long to hold, counted once every connection attempt is done")
	ping := fs.Duration("ping", 5*time.Second, "interval between pings on each connection")
	timeout := fs.Duration("timeout", 10*time.Second, "limit for connecting (TLS and upgrade included)")
	tf := addTLSFlags(fs)
	u, code, ok := parseCommand(fs, args, stdout, stderr, rawURL, "ws", "wss")
	if !ok {
		return code
	}
	switch {
	case *n < 1:
		return flagError(stderr, fs, "n", "must be at least 1")
	case !(*openRate > 0) || *openRate > 1e6:
		return flagError(stderr, fs, "open-rate", "must be positive (and at most 1e6)")
	case *hold < 0:
		return flagError(stderr, fs, "hold", "must not be negative")
	case *ping <= 0:
		return flagError(stderr, fs, "ping", "must be positive")
	case *timeout <= 0:
		return flagError(stderr, fs, "timeout", "must be positive")
	}
	tlsConf, code, ok := tf.config(fs, stderr)
	if !ok {
		return code
	}
	nofile := raiseNofile()
	if nofile > 0 && uint64(*n)+64 > nofile {
		fmt.Fprintf(stderr, "loadgen ws-hold: %d connections near the open-files limit %d; expect \"too many open files\"\n", *n, nofile)
	}

	h := &holder{
		dialer:   newWSDialer(tlsConf, *timeout, 1024),
		url:      u.String(),
		ping:     *ping,
		hist:     newHist(),
		conns:    map[*heldConn]bool{},
		refusals: map[string]int{},
		closes:   map[string]int{},
	}
	h.start = time.Now()
	stopSeries := h.sample()

	// Pace the attempts like open's arrivals; each dials on its own, so a
	// slow handshake does not hold back the next attempt.
	sched := &schedule{rate: *openRate, total: int64(*n)}
	var dials sync.WaitGroup
	for {
		next, more := sched.nextAt()
		if !more {
			break
		}
		sleepUntil(h.start.Add(next))
		from, to := sched.due(time.Since(h.start))
		for range to - from {
			dials.Go(h.open)
		}
	}
	dials.Wait()

	time.Sleep(*hold)
	stopSeries() // before the closing, which would show as a last drop to 0
	res := h.finish()
	res.ConnsTarget = *n
	res.Nofile = nofile
	res.DurationS = seconds(time.Since(h.start))
	emit(stdout, res)
	if !h.answered {
		return unreachable(stderr, "ws-hold", keys(res.RefusalReasons))
	}
	return 0
}

// holder tracks the held connections; its mutex guards everything below it.
type holder struct {
	dialer    *websocket.Dialer
	url       string
	ping      time.Duration
	start     time.Time
	alive     atomic.Int64
	over      atomic.Bool // set (under mu) when the hold ends: closes after that are ours
	readers   sync.WaitGroup
	pingsSent atomic.Int64

	mu       sync.Mutex
	conns    map[*heldConn]bool
	hist     histogram
	pongs    int64
	refusals map[string]int
	closes   map[string]int
	est      int
	refused  int
	early    int
	answered bool // any HTTP answer to an upgrade
	series   []holdPoint
}

type heldConn struct {
	ws     *websocket.Conn
	timer  *time.Timer
	mu     sync.Mutex
	reason string // first cause of an early end
}

// open makes one connection and, on success, leaves a goroutine reading it.
func (h *holder) open() {
	ws, resp, err := h.dialer.DialContext(context.Background(), h.url, nil)
	if err != nil {
		status, label := upgradeFailure(resp, err)
		h.mu.Lock()
		h.refused++
		h.answered = h.answered || status != 0
		tally(h.refusals, label)
		h.mu.Unlock()
		return
	}
	c := &heldConn{ws: ws}
	ws.SetPongHandler(func(data string) error {
		if len(data) == 8 {
			sent := time.Duration(binary.BigEndian.Uint64([]byte(data)))
			h.mu.Lock()
			recordDur(h.hist, time.Since(h.start)-sent)
			h.pongs++
			h.mu.Unlock()
		}
		return nil
	})
	h.mu.Lock()
	h.est++
	h.answered = true
	h.conns[c] = true
	h.alive.Add(1)
	h.readers.Add(1)
	h.mu.Unlock()
	c.mu.Lock() // the first ping may fire before the assignment would be seen
	c.timer = time.AfterFunc(h.ping, func() { h.sendPing(c) })
	c.mu.Unlock()
	go h.read(c)
}

// read runs until the connection ends; reading is also how gorilla handles
// the pongs.
func (h *holder) read(c *heldConn) {
	var readErr error
	for readErr == nil {
		_, _, readErr = c.ws.NextReader() // data messages are not expected; skip them
	}
	c.mu.Lock()
	c.timer.Stop()
	why := c.reason
	c.mu.Unlock()
	c.ws.Close()
	h.alive.Add(-1)
	if why == "" {
		why = reason(readErr)
	}
	// Under mu, so that finish counts each connection either as a survivor
	// or as closed early, never both.
	h.mu.Lock()
	if !h.over.Load() {
		h.early++
		tally(h.closes, why)
		delete(h.conns, c)
	}
	h.mu.Unlock()
	h.readers.Done()
}

// sendPing carries the send time in the payload, which the pong echoes: the
// round trip needs no per-connection bookkeeping.
func (h *holder) sendPing(c *heldConn) {
	if h.over.Load() {
		return
	}
	var payload [8]byte
	binary.BigEndian.PutUint64(payload[:], uint64(time.Since(h.start)))
	h.pingsSent.Add(1)
	if err := c.ws.WriteControl(websocket.PingMessage, payload[:], time.Now().Add(h.ping)); err != nil {
		c.mu.Lock()
		if c.reason == "" {
			c.reason = "ping: " + reason(err)
		}
		c.mu.Unlock()
		c.ws.Close() // ends the reader, which counts the loss
		return
	}
	c.mu.Lock()
	c.timer.Reset(h.ping)
	c.mu.Unlock()
}

// sample records the open count every second until stopped.
func (h *holder) sample() (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for t := 1; ; t++ {
			select {
			case <-done:
				return
			case <-time.After(time.Until(h.start.Add(time.Duration(t) * time.Second))):
			}
			h.mu.Lock()
			h.series = append(h.series, holdPoint{T: t, Open: int(h.alive.Load())})
			h.mu.Unlock()
		}
	}()
	return func() { close(done); <-finished }
}

// finish ends the hold: whatever is alive now survived. It closes every
// connection politely and waits for the readers.
func (h *holder) finish() wsHoldResult {
	h.mu.Lock()
	h.over.Store(true)
	survivors := make([]*heldConn, 0, len(h.conns))
	for c := range h.conns {
		survivors = append(survivors, c)
	}
	h.mu.Unlock()
	bye := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	deadline := time.Now().Add(2 * time.Second) // one shared bound, not one per connection
	for _, c := range survivors {
		c.mu.Lock()
		c.timer.Stop()
		c.mu.Unlock()
		c.ws.WriteControl(websocket.CloseMessage, bye, deadline)
		c.ws.Close()
	}
	h.readers.Wait()

	h.mu.Lock()
	defer h.mu.Unlock()
	return wsHoldResult{
		ConnsEstablished: h.est,
		Refused:          h.refused,
		RefusalReasons:   h.refusals,
		ClosedEarly:      h.early,
		CloseReasons:     h.closes,
		Survived:         len(survivors),
		PingsSent:        h.pingsSent.Load(),
		Pings:            h.pongs,
		pingLatencies:    pingLatencies(summarize(h.hist)),
		Series:           append([]holdPoint{}, h.series...),
	}
}
