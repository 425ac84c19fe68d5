package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

// WebSocket dialing shared by ws-echo and ws-hold, and the error labels
// they count failures by.

// newWSDialer makes a dialer that never detours through an environment
// proxy. Buffers are small and writes borrow from a pool, so thousands of
// idle connections cost little memory.
func newWSDialer(tlsConf *tls.Config, timeout time.Duration, bufSize int) *websocket.Dialer {
	var d net.Dialer
	return &websocket.Dialer{
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, dialError{err}
			}
			return c, nil
		},
		TLSClientConfig:  tlsConf, // no session cache: every connection is a full handshake
		HandshakeTimeout: timeout,
		ReadBufferSize:   bufSize,
		WriteBufferSize:  bufSize,
		WriteBufferPool:  &sync.Pool{},
	}
}

// dialError marks a failure to connect at all, before TLS or the upgrade.
type dialError struct{ error }

func (e dialError) Unwrap() error { return e.error }

// upgradeFailure is why a WebSocket dial failed: the HTTP status when the
// server answered the upgrade with something other than 101 (0 when there
// was no answer) and a short label, e.g. "status 503" or "dial: connection
// refused".
func upgradeFailure(resp *http.Response, err error) (status int, label string) {
	if errors.Is(err, websocket.ErrBadHandshake) && resp != nil {
		return resp.StatusCode, fmt.Sprintf("status %d", resp.StatusCode)
	}
	var de dialError
	if errors.As(err, &de) {
		return 0, "dial: " + reason(err)
	}
	if r := reason(err); strings.Contains(r, "tls: ") {
		return 0, r
	}
	return 0, "upgrade: " + reason(err)
}

// reason condenses an error into a short stable label, so that thousands of
// failures count into a few map keys instead of one key per port number.
func reason(err error) string {
	var closeErr *websocket.CloseError
	var opErr *net.OpError
	var alert tls.AlertError
	var recordErr tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	switch {
	case errors.As(err, &closeErr):
		return fmt.Sprintf("close %d", closeErr.Code)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EPIPE):
		return "broken pipe"
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return "too many open files"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "no free local port"
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "eof"
	case errors.Is(err, net.ErrClosed):
		return "closed"
	case errors.As(err, &alert):
		return alert.Error() // already "tls: ..."
	case errors.As(err, &recordErr):
		return "tls: not a TLS server"
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr):
		return "tls: bad certificate"
	case errors.As(err, &opErr) && opErr.Err != nil:
		return opErr.Op + ": " + opErr.Err.Error() // without the addresses
	}
	return err.Error()
}

// tally counts reasons, folding new ones into "other" past a cap so that an
// unexpected error with varying text cannot grow the JSON without bound.
func tally(m map[string]int, key string) {
	if _, seen := m[key]; !seen && len(m) >= 16 {
		key = "other"
	}
	m[key]++
}

// keys lists a tally's labels, for the stderr line of an unreachable target.
func keys(m map[string]int) []string { return slices.Sorted(maps.Keys(m)) }
