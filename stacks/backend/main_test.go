package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
)

type statsDoc struct {
	Accepted   int64 `json:"accepted"`
	Active     int64 `json:"active"`
	Requests   int64 `json:"requests"`
	WSActive   int64 `json:"ws_active"`
	WSMessages int64 `json:"ws_messages"`
}

func start(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := newBackend()
	go b.serve(ln)
	t.Cleanup(func() { b.srv.Shutdown() })
	return ln.Addr().String()
}

// get uses a fresh connection per request so counts are predictable.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func getStats(t *testing.T, addr string) statsDoc {
	t.Helper()
	code, body := get(t, "http://"+addr+"/__stats")
	var s statsDoc
	if code != 200 {
		t.Fatalf("stats status %d", code)
	}
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatalf("stats %q: %v", body, err)
	}
	return s
}

// waitStats polls until ok holds; connection closes are seen asynchronously.
func waitStats(t *testing.T, addr string, ok func(statsDoc) bool) statsDoc {
	t.Helper()
	var s statsDoc
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if s = getStats(t, addr); ok(s) {
			return s
		}
	}
	t.Fatalf("stats never matched: %+v", s)
	return s
}

func TestHelloAndNotFound(t *testing.T) {
	addr := start(t)
	code, body := get(t, "http://"+addr+"/")
	if code != 200 || body != "hello world" {
		t.Fatalf("GET / = %d %q", code, body)
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain" {
		t.Fatalf("Content-Type %q", ct)
	}
	if code, _ := get(t, "http://"+addr+"/nope"); code != 404 {
		t.Fatalf("GET /nope = %d", code)
	}
	resp, err = http.Post("http://"+addr+"/", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("POST / = %d", resp.StatusCode)
	}
	if code, _ := get(t, "http://"+addr+"/ws"); code != 400 {
		t.Fatalf("plain GET /ws = %d", code)
	}
}

func TestStatsKeepAlive(t *testing.T) {
	addr := start(t)
	before := getStats(t, addr)

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	for i := 0; i < 2; i++ {
		if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "hello world" {
			t.Fatalf("body %q", body)
		}
	}

	// +1 for the kept-alive conn, +1 for this stats request's own conn.
	mid := getStats(t, addr)
	if mid.Accepted != before.Accepted+2 || mid.Requests != before.Requests+2 {
		t.Fatalf("before %+v, after %+v", before, mid)
	}
	if mid.Active < 2 {
		t.Fatalf("active %d with the kept-alive conn open", mid.Active)
	}
	conn.Close()
	// Only the stats request's own connection stays open.
	waitStats(t, addr, func(s statsDoc) bool { return s.Active == 1 })
}

func TestWebSocketEcho(t *testing.T) {
	addr := start(t)
	ws, _, err := websocket.DefaultDialer.Dial("ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		typ  int
		data string
	}{{websocket.TextMessage, "hi"}, {websocket.BinaryMessage, "\x00\x01\x02"}} {
		if err := ws.WriteMessage(m.typ, []byte(m.data)); err != nil {
			t.Fatal(err)
		}
		typ, data, err := ws.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if typ != m.typ || string(data) != m.data {
			t.Fatalf("echo %d %q, want %d %q", typ, data, m.typ, m.data)
		}
	}
	// The counter moves after the echo is written, so the client may read the echo first.
	waitStats(t, addr, func(s statsDoc) bool { return s.WSActive == 1 && s.WSMessages == 2 })
	ws.Close()
	waitStats(t, addr, func(s statsDoc) bool { return s.WSActive == 0 && s.Active == 1 })
}

func TestJSONBodyHasTheAskedSize(t *testing.T) {
	addr := start(t)
	for _, size := range []int{64, 65, 100, 1024, 10240, 102400} {
		code, body := get(t, "http://"+addr+"/json?size="+strconv.Itoa(size))
		if code != 200 || len(body) != size {
			t.Fatalf("size %d: status %d, %d bytes", size, code, len(body))
		}
		var doc struct {
			Seq   int64             `json:"seq"`
			Items []json.RawMessage `json:"items"`
			Pad   string            `json:"pad"`
		}
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatalf("size %d: not JSON: %v: %.80s", size, err, body)
		}
		if size >= 1024 && len(doc.Items) == 0 {
			t.Fatalf("size %d: no records, only padding", size)
		}
	}
}

func TestJSONRejectsBadSizes(t *testing.T) {
	addr := start(t)
	for _, q := range []string{"", "?size=", "?size=abc", "?size=63", "?size=16777217", "?size=-5"} {
		if code, _ := get(t, "http://"+addr+"/json"+q); code != 400 {
			t.Fatalf("/json%s: status %d, want 400", q, code)
		}
	}
}

func TestJSONCountsAsARequest(t *testing.T) {
	addr := start(t)
	before := getStats(t, addr)
	get(t, "http://"+addr+"/json?size=100")
	if after := getStats(t, addr); after.Requests != before.Requests+1 {
		t.Fatalf("requests %d -> %d", before.Requests, after.Requests)
	}
}
