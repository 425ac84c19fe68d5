package main

// HTTP/3 listener (docs/series/h3.md): the same / and /json answers as the TCP
// listener over QUIC on UDP, so the h3 series has a `direct` row. Its
// connections and requests go into the same counters the harness reads from
// /__stats (on the TCP listener), plus h3_accepted apart.

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// h3Handler answers like handle does for / and /json.
func (b *backend) h3Handler(w http.ResponseWriter, r *http.Request) {
	b.st.requests.Add(1)
	switch {
	case r.URL.Path == "/" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("hello world"))
	case r.URL.Path == "/json" && r.Method == http.MethodGet:
		size, err := strconv.Atoi(r.URL.Query().Get("size"))
		if err != nil || size < jsonMinSize || size > jsonMaxSize {
			http.Error(w, fmt.Sprintf("size must be an integer from %d to %d", jsonMinSize, jsonMaxSize), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(jsonBody(size, b.st.requests.Load()))
	default:
		http.Error(w, "not found", http.StatusNotFound)
	}
}

// listenH3 serves HTTP/3 on a UDP addr with the given certificate; a listener
// that stops sends its error to errc. It returns the bound address.
func (b *backend) listenH3(addr, certFile, keyFile string, errc chan<- error) (net.Addr, error) {
	if certFile == "" || keyFile == "" {
		return nil, fmt.Errorf("-h3-listen needs -tls-cert and -tls-key")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	udpAddr, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	conn, err := net.ListenUDP("udp", udpAddr)
	if err != nil {
		return nil, err
	}
	srv := &http3.Server{
		Handler:   http.HandlerFunc(b.h3Handler),
		TLSConfig: http3.ConfigureTLSConfig(&tls.Config{Certificates: []tls.Certificate{cert}}),
		ConnContext: func(ctx context.Context, c *quic.Conn) context.Context {
			b.st.accepted.Add(1)
			b.st.h3Accepted.Add(1)
			return ctx
		},
	}
	b.h3 = srv
	fmt.Fprintln(os.Stderr, "backend HTTP/3 on udp", conn.LocalAddr())
	go func() { errc <- srv.Serve(conn) }()
	return conn.LocalAddr(), nil
}
