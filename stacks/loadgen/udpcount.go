package main

import (
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// UDP datagrams the h3 subcommands send and receive (docs/series/h3.md#udp-datagrams), counted
// on the sockets quic-go is given.

// udpCounter sums the datagrams of every socket it wraps.
type udpCounter struct{ sent, received atomic.Int64 }

func (c *udpCounter) total() int64 { return c.sent.Load() + c.received.Load() }

// countedUDP is a UDP socket whose datagrams are counted one by one. It offers quic-go the
// buffer and socket-option calls of a *net.UDPConn but not ReadMsgUDP/WriteMsgUDP, so quic-go
// reads and writes one datagram per ReadFrom/WriteTo (no batching, no GSO): each is counted.
type countedUDP struct {
	net.PacketConn
	udp *net.UDPConn
	n   *udpCounter
}

// listenCountedUDP opens a socket on an ephemeral port whose datagrams count in n.
func listenCountedUDP(n *udpCounter) (*countedUDP, error) {
	conn, err := net.ListenUDP("udp", nil)
	if err != nil {
		return nil, err
	}
	return &countedUDP{PacketConn: conn, udp: conn, n: n}, nil
}

func (c *countedUDP) ReadFrom(p []byte) (int, net.Addr, error) {
	n, addr, err := c.PacketConn.ReadFrom(p)
	if err == nil {
		c.n.received.Add(1)
	}
	return n, addr, err
}

func (c *countedUDP) WriteTo(p []byte, addr net.Addr) (int, error) {
	n, err := c.PacketConn.WriteTo(p, addr)
	if err == nil {
		c.n.sent.Add(1)
	}
	return n, err
}

func (c *countedUDP) SetReadBuffer(bytes int) error         { return c.udp.SetReadBuffer(bytes) }
func (c *countedUDP) SetWriteBuffer(bytes int) error        { return c.udp.SetWriteBuffer(bytes) }
func (c *countedUDP) SyscallConn() (syscall.RawConn, error) { return c.udp.SyscallConn() }

// udpWindow counts the datagrams between two moments: from `from` to `to` (zero: until read),
// or to `closed` when that channel closes first (the run interrupted).
type udpWindow struct {
	mu       sync.Mutex
	n        *udpCounter
	at, till int64 // the counter's total at from and at to; -1 until reached
	timers   []*time.Timer
}

func newUDPWindow(n *udpCounter, from, to time.Time, closed <-chan struct{}) *udpWindow {
	w := &udpWindow{n: n, at: -1, till: -1}
	// The first mark of each end holds: an interruption before `to` ends the window then.
	mark := func(p *int64) func() {
		return func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			if *p < 0 {
				*p = n.total()
			}
		}
	}
	w.timers = append(w.timers, time.AfterFunc(time.Until(from), mark(&w.at)))
	if !to.IsZero() {
		w.timers = append(w.timers, time.AfterFunc(time.Until(to), mark(&w.till)))
	}
	if closed != nil {
		go func() {
			<-closed
			// An interruption before the window began leaves it empty.
			w.mu.Lock()
			started := w.at >= 0
			w.mu.Unlock()
			if started {
				mark(&w.till)()
			}
		}()
	}
	return w
}

// datagrams in the window; none when the run ended before it began.
func (w *udpWindow) datagrams() int64 {
	for _, t := range w.timers {
		t.Stop()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at < 0 {
		return 0
	}
	end := w.till
	if end < 0 {
		end = w.n.total()
	}
	return end - w.at
}
