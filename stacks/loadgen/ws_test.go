package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gorilla/websocket"
)

// echoHandler is a WebSocket echo like the backend's /ws. The default ping
// handler answers pings with pongs.
func echoHandler(w http.ResponseWriter, r *http.Request) { echoEach(nil)(w, r) }

// echoEach is echoHandler calling before (when not nil) ahead of each echo.
func echoEach(before func()) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		up := websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 1024}
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		for {
			mt, msg, err := conn.ReadMessage()
			if err != nil {
				return
			}
			if before != nil {
				before()
			}
			if err := conn.WriteMessage(mt, msg); err != nil {
				return
			}
		}
	}
}

// wsURL turns an httptest URL into its WebSocket form.
func wsURL(srv *httptest.Server, path string) string {
	return "ws" + strings.TrimPrefix(srv.URL, "http") + path
}

func TestWSEchoTLS(t *testing.T) {
	srv, ca := tlsServer(t, echoHandler)
	code, res, stderr := runCmd[wsEchoResult](t, "ws-echo", "-url", wsURL(srv, "/ws"), "-c", "5", "-d", "300ms", "-size", "100", "-cacert", ca)
	if code != 0 || res.ConnsTarget != 5 || res.ConnsEstablished != 5 || res.FailedUpgrades != 0 || res.Errors != 0 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	if res.Messages < 5 || res.MsgRate <= 0 || res.P50 <= 0 || res.P99 > res.Max || len(res.UpgradeStatus) != 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestWSEchoFailedUpgrades(t *testing.T) {
	// Every other upgrade is refused by a plain 400 handler.
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 0 {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		echoHandler(w, r)
	}))
	defer srv.Close()
	code, res, _ := runCmd[wsEchoResult](t, "ws-echo", "-url", wsURL(srv, "/"), "-c", "6", "-d", "200ms")
	if code != 0 || res.ConnsEstablished != 3 || res.FailedUpgrades != 3 || res.UpgradeStatus["400"] != 3 || res.Messages < 3 {
		t.Fatalf("code %d, result %+v", code, res)
	}
	if len(res.ErrorSamples) != 1 || res.ErrorSamples[0] != "status 400" {
		t.Fatalf("samples %q", res.ErrorSamples)
	}
	// Nothing listening: network errors under "0", and exit 1.
	addr := srv.Listener.Addr().String()
	srv.Close()
	code, res, stderr := runCmd[wsEchoResult](t, "ws-echo", "-url", "ws://"+addr+"/", "-c", "2", "-d", "100ms")
	if code != 1 || res.UpgradeStatus["0"] != 2 || res.ErrorSamples[0] != "dial: connection refused" || !strings.Contains(stderr, "not reached") {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
}

func TestWSHoldWithPings(t *testing.T) {
	srv, ca := tlsServer(t, echoHandler)
	code, res, stderr := runCmd[wsHoldResult](t, "ws-hold", "-url", wsURL(srv, "/ws"), "-n", "50", "-open-rate", "200",
		"-hold", "1s", "-ping", "200ms", "-cacert", ca)
	if code != 0 || res.ConnsTarget != 50 || res.ConnsEstablished != 50 || res.Survived != 50 || res.Refused != 0 || res.ClosedEarly != 0 {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
	// Each connection pings about every 200 ms for over a second.
	if res.PingsSent < 100 || res.Pings < 100 || res.Pings > res.PingsSent || res.pingLatencies.P50 <= 0 || res.pingLatencies.Max < res.pingLatencies.P99 {
		t.Fatalf("pings %+v", res)
	}
	if res.Nofile == 0 || len(res.Series) == 0 || res.Series[len(res.Series)-1].Open != 50 {
		t.Fatalf("result %+v", res)
	}
}

func TestWSHoldRefusalsAndEarlyCloses(t *testing.T) {
	// 1 in 3 refused with 503; of the rest every other one is dropped by the
	// server shortly after the upgrade.
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 3 {
		case 0:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case 1:
			echoHandler(w, r)
		case 2:
			up := websocket.Upgrader{}
			if conn, err := up.Upgrade(w, r, nil); err == nil {
				conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "bye"))
				conn.Close()
			}
		}
	}))
	defer srv.Close()
	code, res, _ := runCmd[wsHoldResult](t, "ws-hold", "-url", wsURL(srv, "/"), "-n", "30", "-open-rate", "1000", "-hold", "300ms", "-ping", "1s")
	if code != 0 || res.Refused != 10 || res.RefusalReasons["status 503"] != 10 || res.ConnsEstablished != 20 {
		t.Fatalf("code %d, result %+v", code, res)
	}
	if res.ClosedEarly != 10 || res.CloseReasons["close 1001"] != 10 || res.Survived != 10 {
		t.Fatalf("result %+v", res)
	}
	addr := srv.Listener.Addr().String()
	srv.Close()
	code, res, stderr := runCmd[wsHoldResult](t, "ws-hold", "-url", "ws://"+addr+"/", "-n", "3", "-hold", "0s")
	if code != 1 || res.Refused != 3 || res.RefusalReasons["dial: connection refused"] != 3 || !strings.Contains(stderr, "not reached") {
		t.Fatalf("code %d, stderr %q, result %+v", code, stderr, res)
	}
}

func TestWSBadFlags(t *testing.T) {
	badFlags(t, "ws-echo",
		[]string{"-url", "http://127.0.0.1:1/ws"},
		[]string{"-url", "ws://127.0.0.1:1/ws", "-c", "0"},
		[]string{"-url", "ws://127.0.0.1:1/ws", "-size", "0"},
		[]string{"-url", "wss://127.0.0.1:1/ws", "-cacert", "/nonexistent"},
	)
	badFlags(t, "ws-hold",
		[]string{"-url", "https://127.0.0.1:1/ws"},
		[]string{"-url", "ws://127.0.0.1:1/ws", "-n", "0"},
		[]string{"-url", "ws://127.0.0.1:1/ws", "-open-rate", "0"},
		[]string{"-url", "ws://127.0.0.1:1/ws", "-ping", "0s"},
		[]string{"-url", "ws://127.0.0.1:1/ws", "-hold", "-1s"},
	)
}
