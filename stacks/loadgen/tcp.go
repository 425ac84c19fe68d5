package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"sync/atomic"
	"time"
)

func init() {
	register("tcp", "L4: connections to a TCP echo (tcp:// plain, tls:// TLS to whoever answers); short (one message each) or stream (N bytes each)", runTCP)
}

type tcpResult struct {
	Mode         string   `json:"mode"`
	Conns        int64    `json:"conns"`
	ConnsOK      int64    `json:"conns_ok"`
	Errors       int64    `json:"errors"`
	Mismatches   int64    `json:"mismatches"`
	SlowConnects int64    `json:"slow_connects"` // TCP connects that took a second or more: a SYN was retransmitted
	ErrorSamples []string `json:"error_samples"`
	BytesSent    int64    `json:"bytes_sent"`
	BytesEchoed  int64    `json:"bytes_echoed"`
	TLSVersion   string   `json:"tls_version"`
	DurationS    float64  `json:"duration_s"`
	ConnRate     float64  `json:"conn_rate"`
	MiBPerS      float64  `json:"mib_per_s"`
	latencies             // of a whole successful connection: dial, handshake, exchange, close
}

// tcpPattern repeats with a prime period, so a byte that is lost, doubled or
// reordered by the path shows as a mismatch at any chunk size.
const tcpPeriod = 251

var tcpPattern = func() []byte {
	b := make([]byte, 64<<10+tcpPeriod)
	for i := range b {
		b[i] = byte(i % tcpPeriod)
	}
	return b
}()

type tcpClient struct {
	addr        string
	tlsConf     *tls.Config // nil: plain TCP
	timeout     time.Duration
	stream      bool
	msgBytes    int
	streamBytes int64
}

// slowConnect is the shortest initial SYN retransmission timeout (RFC 6298: 1 s): a
// connect this slow waited for a retransmit, i.e. a SYN was dropped on the way (a full
// conntrack table or listen queue), and the window measured a trickle, not the load.
const slowConnect = time.Second

type tcpAttempt struct {
	connected bool
	slow      bool
	ok        bool
	mismatch  bool
	err       string
	sent      int64
	echoed    int64
	tlsVer    string
	took      time.Duration
}

func runTCP(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tcp", flag.ContinueOnError)
	rawURL := fs.String("url", "", "tcp://host:port (plain) or tls://host:port (TLS from the client: the proxy terminates it or passes it through)")
	c := fs.Int("c", 8, "concurrent workers, each opening connections back to back")
	d := fs.Duration("d", 10*time.Second, "how long to run, or until a SIGINT (connections in flight at the end complete)")
	n := fs.Int64("n", 0, "stop after this many connections in all (0: no cap; with -n, -d only limits when given)")
	mode := fs.String("mode", "short", "short: connect, send -msg-bytes, read them back, close; stream: send and read back -stream-bytes, then close")
	msgBytes := fs.Int("msg-bytes", 64, "bytes of the one message of a short connection")
	streamBytes := fs.Int64("stream-bytes", 16<<20, "bytes each stream connection sends (and reads back)")
	timeout := fs.Duration("timeout", 10*time.Second, "limit for one connection, all of it")
	tf := addTLSFlags(fs)
	u, code, ok := parseCommand(fs, args, stdout, stderr, rawURL, "tcp", "tls")
	if !ok {
		return code
	}
	switch {
	case u.Port() == "":
		return flagError(stderr, fs, "url", "needs a port, got %q", *rawURL)
	case *c < 1:
		return flagError(stderr, fs, "c", "must be at least 1")
	case *d <= 0:
		return flagError(stderr, fs, "d", "must be positive")
	case *n < 0:
		return flagError(stderr, fs, "n", "must not be negative")
	case *mode != "short" && *mode != "stream":
		return flagError(stderr, fs, "mode", "must be short or stream, got %q", *mode)
	case *msgBytes < 1:
		return flagError(stderr, fs, "msg-bytes", "must be at least 1")
	case *streamBytes < 1:
		return flagError(stderr, fs, "stream-bytes", "must be at least 1")
	case *timeout <= 0:
		return flagError(stderr, fs, "timeout", "must be positive")
	}
	cl := &tcpClient{addr: u.Host, timeout: *timeout, stream: *mode == "stream", msgBytes: *msgBytes, streamBytes: *streamBytes}
	if u.Scheme == "tls" {
		conf, code, ok := tf.config(fs, stderr)
		if !ok {
			return code
		}
		// Every connection a full handshake, as in `handshake`: resumption would hide the cost per connection.
		conf.ClientSessionCache = nil
		conf.SessionTicketsDisabled = true
		if conf.ServerName == "" {
			conf.ServerName = u.Hostname()
		}
		cl.tlsConf = conf
	}

	var deadline time.Time
	if *n == 0 || flagGiven(fs, "d") {
		deadline = time.Now().Add(*d)
	}
	st := &tcpStats{accumulator: newAccumulator()}
	end := endAtInterrupt(deadline)
	defer end.release()
	elapsed := backToBack(*c, *n, end, func() { st.record(cl.attempt()) })
	res := st.result()
	res.Mode = *mode
	res.DurationS = seconds(elapsed)
	res.ConnRate = perSecond(res.ConnsOK, elapsed)
	res.MiBPerS = math.Round(float64(res.BytesEchoed)/(1<<20)/elapsed.Seconds()*1000) / 1000
	emit(stdout, res)
	if res.ConnsOK == 0 {
		return unreachable(stderr, "tcp", res.ErrorSamples)
	}
	return 0
}

// attempt is one connection: dial, (handshake), the exchange, close.
func (cl *tcpClient) attempt() (r tcpAttempt) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), cl.timeout)
	defer cancel()
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", cl.addr)
	r.slow = time.Since(start) >= slowConnect
	if err != nil {
		r.err = "dial: " + err.Error()
		return r
	}
	var conn net.Conn = raw
	defer func() { conn.Close() }()
	conn.SetDeadline(start.Add(cl.timeout))
	if cl.tlsConf != nil {
		tc := tls.Client(raw, cl.tlsConf)
		if err := tc.HandshakeContext(ctx); err != nil {
			r.err = "handshake: " + err.Error()
			return r
		}
		r.tlsVer = strings.ReplaceAll(tls.VersionName(tc.ConnectionState().Version), " ", "")
		conn = tc
	}
	r.connected = true
	size := int64(cl.msgBytes)
	if cl.stream {
		size = cl.streamBytes
	}
	// Writer and reader run together: a stream larger than the socket buffers would otherwise deadlock.
	werr := make(chan error, 1)
	go func() {
		var sent int64
		for sent < size {
			chunk := min(size-sent, 64<<10)
			off := sent % tcpPeriod
			k, err := conn.Write(tcpPattern[off : off+chunk])
			sent += int64(k)
			if err != nil {
				atomic.StoreInt64(&r.sent, sent)
				werr <- err
				return
			}
		}
		atomic.StoreInt64(&r.sent, sent)
		werr <- nil
	}()
	buf := make([]byte, 64<<10)
	var got int64
	for got < size {
		k, err := conn.Read(buf[:min(int64(len(buf)), size-got)])
		if k > 0 {
			off := got % tcpPeriod
			if !bytes.Equal(buf[:k], tcpPattern[off:off+int64(k)]) {
				r.mismatch = true
			}
			got += int64(k)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("closed after %d of %d bytes", got, size)
			}
			r.err = "read: " + err.Error()
			break
		}
	}
	r.echoed = got
	if err := <-werr; err != nil && r.err == "" {
		r.err = "write: " + err.Error()
	}
	r.sent = atomic.LoadInt64(&r.sent)
	switch {
	case r.err != "":
	case r.mismatch:
		r.err = "echo differs from what was sent"
	default:
		r.ok = true
		r.took = time.Since(start)
	}
	return r
}

type tcpStats struct {
	accumulator
	res tcpResult
}

func (s *tcpStats) record(r tcpAttempt) {
	if r.err != "" {
		s.samples.add(r.err)
	}
	s.do(func() {
		if r.connected {
			s.res.Conns++
		}
		if r.tlsVer != "" {
			s.saw("version", r.tlsVer)
		}
		s.res.BytesSent += r.sent
		s.res.BytesEchoed += r.echoed
		if r.mismatch {
			s.res.Mismatches++
		}
		if r.slow {
			s.res.SlowConnects++
		}
		if r.ok {
			s.res.ConnsOK++
			recordDur(s.hist, r.took)
		} else {
			s.res.Errors++
		}
	})
}

func (s *tcpStats) result() tcpResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.res
	res.ErrorSamples = s.samples.get()
	res.TLSVersion = s.distinct("version")
	res.latencies = summarize(s.hist)
	return res
}
