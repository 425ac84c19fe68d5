package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

func init() {
	register("ws-echo", "C WebSocket connections each echoing a message back to back", runWSEcho)
}

type wsEchoResult struct {
	ConnsTarget      int             `json:"conns_target"`
	ConnsEstablished int             `json:"conns_established"`
	FailedUpgrades   int             `json:"failed_upgrades"`
	UpgradeStatus    map[string]int  `json:"upgrade_status"` // "0": no HTTP answer
	Errors           int             `json:"errors"`         // established connections that failed mid-run
	ErrorSamples     []string        `json:"error_samples"`
	Messages         int64           `json:"messages"`
	MsgRate          float64         `json:"msg_rate"`
	DurationS        float64         `json:"duration_s"`
	latencies                        // echo round trip
	Spectrum         latencySpectrum `json:"latency_spectrum"`
}

func runWSEcho(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ws-echo", flag.ContinueOnError)
	rawURL := fs.String("url", "", "WebSocket URL (ws:// or wss://)")
	c := fs.Int("c", 10, "connections")
	d := fs.Duration("d", 10*time.Second, "how long to echo, counted once every connection attempt is done; a SIGINT ends it sooner (echoes in flight complete)")
	size := fs.Int("size", 64, "message size in bytes")
	timeout := fs.Duration("timeout", 5*time.Second, "limit for connecting (TLS and upgrade included) and for each echo")
	tf := addTLSFlags(fs)
	u, code, ok := parseCommand(fs, args, stdout, stderr, rawURL, "ws", "wss")
	if !ok {
		return code
	}
	switch {
	case *c < 1:
		return flagError(stderr, fs, "c", "must be at least 1")
	case *d <= 0:
		return flagError(stderr, fs, "d", "must be positive")
	case *size < 1 || *size > 16<<20:
		return flagError(stderr, fs, "size", "must be between 1 and 16777216")
	case *timeout <= 0:
		return flagError(stderr, fs, "timeout", "must be positive")
	}
	tlsConf, code, ok := tf.config(fs, stderr)
	if !ok {
		return code
	}
	dialer := newWSDialer(tlsConf, *timeout, 4096)
	payload := bytes.Repeat([]byte("x"), *size)

	res := wsEchoResult{ConnsTarget: *c, UpgradeStatus: map[string]int{}}
	acc := newAccumulator()
	answered := false // any HTTP answer to an upgrade, 101 or not

	// Listening from the start: a SIGINT while connecting leaves no echo phase, the JSON still printed.
	end := endAtInterrupt(time.Time{})
	defer end.release()
	// Connect everything first, so the echo phase measures steady state.
	conns := make([]*websocket.Conn, *c)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() {
			conn, resp, err := dialer.DialContext(context.Background(), u.String(), nil)
			acc.do(func() {
				if err != nil {
					status, label := upgradeFailure(resp, err)
					res.FailedUpgrades++
					res.UpgradeStatus[strconv.Itoa(status)]++
					answered = answered || status != 0
					acc.samples.add(label)
					return
				}
				res.ConnsEstablished++
				answered = true
				conns[i] = conn
			})
		})
	}
	wg.Wait()

	start := time.Now()
	end.deadline = start.Add(*d) // no echo has started yet: nothing reads it concurrently
	for _, conn := range conns {
		if conn == nil {
			continue
		}
		wg.Go(func() {
			defer conn.Close()
			local := newHist() // merged once at the end: no lock per message
			n, err := echoLoop(conn, payload, end, *timeout, local)
			acc.do(func() {
				acc.hist.Merge(local)
				res.Messages += n
				if err != nil {
					res.Errors++
					acc.samples.add("echo: " + reason(err))
				}
			})
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	res.ErrorSamples = acc.samples.get()
	res.DurationS = seconds(elapsed)
	res.MsgRate = perSecond(res.Messages, elapsed)
	res.latencies = summarize(acc.hist)
	res.Spectrum = newSpectrum(acc.hist)
	emit(stdout, res)
	if !answered {
		return unreachable(stderr, "ws-echo", res.ErrorSamples)
	}
	return 0
}

var errEchoMismatch = errors.New("echo differs from the message sent")

// echoLoop sends payload and waits for its echo until the run ends (its deadline or a
// SIGINT), then closes politely. It returns the number of echoes received.
func echoLoop(conn *websocket.Conn, payload []byte, end *runEnd, timeout time.Duration, hist histogram) (int64, error) {
	var n int64
	for !end.over(time.Now()) {
		sent := time.Now()
		conn.SetWriteDeadline(sent.Add(timeout))
		if err := conn.WriteMessage(websocket.TextMessage, payload); err != nil {
			return n, err
		}
		conn.SetReadDeadline(sent.Add(timeout))
		_, msg, err := conn.ReadMessage()
		if err != nil {
			return n, err
		}
		if !bytes.Equal(msg, payload) {
			return n, errEchoMismatch
		}
		recordDur(hist, time.Since(sent))
		n++
	}
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
	return n, nil
}
