// Command backend is the origin server behind every proxy under test:
// GET / answers "hello world", GET /json?size=N a JSON body of exactly N bytes
// generated per request, /ws echoes WebSocket messages and /__stats reports
// connection and request counters for the harness.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/quic-go/quic-go/http3"
	"github.com/valyala/fasthttp"
)

type stats struct {
	accepted, active, requests, wsActive, wsMessages, h3Accepted atomic.Int64
}

type backend struct {
	st       stats
	tcp      tcpStats
	srv      *fasthttp.Server
	upgrader websocket.FastHTTPUpgrader
	h3       *http3.Server // with -h3-listen
}

func newBackend() *backend {
	b := &backend{}
	b.upgrader = websocket.FastHTTPUpgrader{
		// Load generators send no browser Origin; accept any.
		CheckOrigin: func(*fasthttp.RequestCtx) bool { return true },
		// Held-but-idle connections then keep no write buffer.
		WriteBufferPool: &sync.Pool{},
	}
	b.srv = &fasthttp.Server{
		Handler:               b.handle,
		NoDefaultServerHeader: true,
		// Thousands of held WebSocket connections must not hit the default 256k cap.
		Concurrency: 1 << 20,
		// No read deadline, and idle keep-alive connections survive a 5-minute hold.
		ReadTimeout: 0,
		IdleTimeout: 10 * time.Minute,
	}
	return b
}

// serve blocks until the listener is closed or the server shut down.
func (b *backend) serve(ln net.Listener) error {
	return b.srv.Serve(&countingListener{Listener: ln, st: &b.st})
}

func (b *backend) handle(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	if path == "/__stats" {
		ctx.SetContentType("application/json")
		fmt.Fprintf(ctx, `{"accepted": %d, "active": %d, "requests": %d, "ws_active": %d, "ws_messages": %d, "tcp_accepted": %d, "tcp_bytes": %d, "h3_accepted": %d}`,
			b.st.accepted.Load(), b.st.active.Load(), b.st.requests.Load(), b.st.wsActive.Load(), b.st.wsMessages.Load(), b.tcp.accepted.Load(), b.tcp.bytes.Load(), b.st.h3Accepted.Load())
		return
	}
	b.st.requests.Add(1)
	switch {
	case path == "/" && ctx.IsGet():
		ctx.SetContentType("text/plain")
		ctx.SetBodyString("hello world")
	case path == "/json" && ctx.IsGet():
		size, err := strconv.Atoi(string(ctx.QueryArgs().Peek("size")))
		if err != nil || size < jsonMinSize || size > jsonMaxSize {
			ctx.Error(fmt.Sprintf("size must be an integer from %d to %d", jsonMinSize, jsonMaxSize), fasthttp.StatusBadRequest)
			return
		}
		ctx.SetContentType("application/json")
		ctx.SetBody(jsonBody(size, b.st.requests.Load()))
	case path == "/ws":
		if !websocket.FastHTTPIsWebSocketUpgrade(ctx) {
			ctx.Error("websocket upgrade required", fasthttp.StatusBadRequest)
			return
		}
		// On failure Upgrade has already written the error response.
		_ = b.upgrader.Upgrade(ctx, b.echo)
	default:
		ctx.Error("not found", fasthttp.StatusNotFound)
	}
}

// Bounds of /json?size=N: the smallest document jsonBody can make exactly, and 16 MiB.
const (
	jsonMinSize = 64
	jsonMaxSize = 16 << 20
)

// jsonBody builds, for every request (no cache, no disk), a JSON document of exactly
// size bytes: a sequence number, records with computed fields while they fit, then a
// padding string that makes up the rest. Both the records and the byte count are work
// a dynamic endpoint does, unlike the constant "hello world".
func jsonBody(size int, seq int64) []byte {
	buf := make([]byte, 0, size)
	buf = append(buf, `{"seq":`...)
	buf = strconv.AppendInt(buf, seq, 10)
	buf = append(buf, `,"items":[`...)
	// Room kept for the closing `],"pad":""}` (11 bytes).
	const tail = 11
	for i := 0; ; i++ {
		item := make([]byte, 0, 64)
		if i > 0 {
			item = append(item, ',')
		}
		item = append(item, `{"id":`...)
		item = strconv.AppendInt(item, int64(i), 10)
		item = append(item, `,"score":`...)
		item = strconv.AppendInt(item, (seq*31+int64(i)*17)%1000, 10)
		item = append(item, `,"name":"item-`...)
		item = strconv.AppendInt(item, int64(i), 10)
		item = append(item, `"}`...)
		if len(buf)+len(item)+tail > size {
			break
		}
		buf = append(buf, item...)
	}
	buf = append(buf, `],"pad":"`...)
	for len(buf) < size-2 {
		buf = append(buf, 'x')
	}
	return append(buf, `"}`...)
}

func (b *backend) echo(ws *websocket.Conn) {
	b.st.wsActive.Add(1)
	defer b.st.wsActive.Add(-1)
	for {
		mt, msg, err := ws.ReadMessage()
		if err != nil {
			return
		}
		if err := ws.WriteMessage(mt, msg); err != nil {
			return
		}
		b.st.wsMessages.Add(1)
	}
}

// countingListener counts accepted connections and those still open.
type countingListener struct {
	net.Listener
	st *stats
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.st.accepted.Add(1)
	l.st.active.Add(1)
	return &countingConn{Conn: c, st: l.st}, nil
}

type countingConn struct {
	net.Conn
	st   *stats
	once sync.Once
}

// Close may be called more than once (e.g. after a hijack); count it once.
func (c *countingConn) Close() error {
	c.once.Do(func() { c.st.active.Add(-1) })
	return c.Conn.Close()
}

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "TCP host:port to listen on")
	tcpListen := flag.String("tcp-listen", "", "also a raw TCP echo on this host:port (L4 cells)")
	tlsListen := flag.String("tls-listen", "", "also a TLS echo on this host:port (L4 passthrough; needs -tls-cert and -tls-key)")
	h3Listen := flag.String("h3-listen", "", "also HTTP/3 (QUIC) on this UDP host:port, answering / and /json (needs -tls-cert and -tls-key)")
	tlsCert := flag.String("tls-cert", "", "PEM certificate of the TLS echo and the HTTP/3 listener")
	tlsKey := flag.String("tls-key", "", "PEM private key of the TLS echo and the HTTP/3 listener")
	flag.Parse()

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "backend:", err)
		os.Exit(1)
	}
	b := newBackend()
	fmt.Fprintln(os.Stderr, "backend listening on", ln.Addr())

	errc := make(chan error, 4)
	go func() { errc <- b.serve(ln) }()
	if err := b.listenEcho(*tcpListen, *tlsListen, *tlsCert, *tlsKey, errc); err != nil {
		fmt.Fprintln(os.Stderr, "backend:", err)
		os.Exit(1)
	}
	if *h3Listen != "" {
		if _, err := b.listenH3(*h3Listen, *tlsCert, *tlsKey, errc); err != nil {
			fmt.Fprintln(os.Stderr, "backend:", err)
			os.Exit(1)
		}
	}

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "backend:", err)
		os.Exit(1)
	case <-sig:
	}
	// Hijacked WebSocket connections are not waited for; a deadline miss is fine too.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = b.srv.ShutdownWithContext(ctx)
	if b.h3 != nil {
		_ = b.h3.Close()
	}
}
