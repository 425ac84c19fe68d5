package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// echoOnce sends msg, half-closes, and returns everything that came back.
func echoOnce(t *testing.T, c net.Conn, msg []byte) []byte {
	t.Helper()
	go func() {
		c.Write(msg)
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestTCPEchoCountsConnsAndBytes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var st tcpStats
	go serveEcho(ln, &st)
	msg := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if got := echoOnce(t, c, msg); !bytes.Equal(got, msg) {
			t.Fatalf("echo returned %d bytes, want %d", len(got), len(msg))
		}
		c.Close()
	}
	for deadline := time.Now().Add(5 * time.Second); st.bytes.Load() < 3*int64(len(msg)) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	if st.accepted.Load() != 3 || st.bytes.Load() != 3*int64(len(msg)) {
		t.Fatalf("accepted %d bytes %d", st.accepted.Load(), st.bytes.Load())
	}
}

// selfSigned writes an EC P-256 certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestTLSEchoAnswersThroughTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tlsEchoListener(raw, certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var st tcpStats
	go serveEcho(ln, &st)
	c, err := tls.Dial("tcp", raw.Addr().String(), &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := echoOnce(t, c, []byte("through TLS")); string(got) != "through TLS" {
		t.Fatalf("TLS echo returned %q", got)
	}
	if _, err := tlsEchoListener(raw, keyFile, keyFile); err == nil {
		t.Fatal("a key in place of the certificate was accepted")
	}
}
