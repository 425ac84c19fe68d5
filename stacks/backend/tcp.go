package main

// Raw TCP echo for the L4 cells (lib/measure/tcp.ts): whatever a connection
// sends comes back unchanged until the client closes its side. A plain
// listener serves proxies that forward plain TCP or terminate TLS; a TLS
// listener serves TLS passthrough (the proxy forwards the encrypted bytes).

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
)

// tcpStats counts what reached the echo listeners: the harness compares it
// with the generator's counts to prove the bytes went through the proxy.
type tcpStats struct {
	accepted, bytes atomic.Int64
}

// serveEcho accepts until the listener is closed.
func serveEcho(ln net.Listener, st *tcpStats) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		st.accepted.Add(1)
		go echoConn(c, st)
	}
}

// echoConn copies the connection onto itself; io.Copy uses splice where the
// kernel allows, so the backend's cost per MiB stays small beside the proxy's.
func echoConn(c net.Conn, st *tcpStats) {
	defer c.Close()
	n, _ := io.Copy(c, c)
	st.bytes.Add(n)
}

// tlsEchoListener wraps a listener with the certificate the proxies use.
func tlsEchoListener(ln net.Listener, certFile, keyFile string) (net.Listener, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}}), nil
}

// listenEcho starts the echo listeners that were asked for; a listener that
// stops sends its error to errc.
func (b *backend) listenEcho(tcpAddr, tlsAddr, certFile, keyFile string, errc chan<- error) error {
	if tcpAddr != "" {
		ln, err := net.Listen("tcp", tcpAddr)
		if err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "backend TCP echo on", ln.Addr())
		go func() { errc <- serveEcho(ln, &b.tcp) }()
	}
	if tlsAddr != "" {
		if certFile == "" || keyFile == "" {
			return fmt.Errorf("-tls-listen needs -tls-cert and -tls-key")
		}
		raw, err := net.Listen("tcp", tlsAddr)
		if err != nil {
			return err
		}
		ln, err := tlsEchoListener(raw, certFile, keyFile)
		if err != nil {
			raw.Close()
			return err
		}
		fmt.Fprintln(os.Stderr, "backend TLS echo on", ln.Addr())
		go func() { errc <- serveEcho(ln, &b.tcp) }()
	}
	return nil
}
