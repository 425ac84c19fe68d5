package main

import (
	"sync"
	"time"
)

// The open-model pieces of `open` (and the paced opener of ws-hold), kept
// free of I/O so they can be tested without a clock or a network.

// arrivalTime is when iteration i is due: i/rate after the start, as k6's
// constant-arrival-rate spaces iterations.
func arrivalTime(i int64, rate float64) time.Duration {
	return time.Duration(float64(i) * float64(time.Second) / rate)
}

// iterationsIn counts the iterations due within a window of length d, those
// with i/rate < d.
func iterationsIn(d time.Duration, rate float64) int64 {
	n := int64(d.Seconds() * rate) // an estimate; float rounding is fixed below
	for n > 0 && arrivalTime(n-1, rate) >= d {
		n--
	}
	for arrivalTime(n, rate) < d {
		n++
	}
	return n
}

// schedule hands out iteration indices as they fall due. A caller that wakes
// late gets every overdue index at once, each still carrying its own
// scheduled time: lateness shows up as latency, never as fewer iterations.
type schedule struct {
	rate        float64
	total, next int64
}

func newSchedule(rate float64, d time.Duration) *schedule {
	return &schedule{rate: rate, total: iterationsIn(d, rate)}
}

// due returns the indices [from, to) scheduled at or before elapsed and not
// handed out yet.
func (s *schedule) due(elapsed time.Duration) (from, to int64) {
	from = s.next
	for s.next < s.total && arrivalTime(s.next, s.rate) <= elapsed {
		s.next++
	}
	return from, s.next
}

// stop ends the schedule: the iterations handed out are all there are.
func (s *schedule) stop() { s.total = s.next }

// nextAt is when the next iteration is due; ok is false once all are out.
func (s *schedule) nextAt() (at time.Duration, ok bool) {
	if s.next >= s.total {
		return 0, false
	}
	return arrivalTime(s.next, s.rate), true
}

// vuPool holds the virtual users. Free VUs are reused last-in first-out, so
// at a low rate the same few VUs (and their warm connections) do all the
// work and idle ones never open a connection. A new VU is created only when
// an iteration is due and none is free, up to max; past that acquire fails
// and the caller drops the iteration.
type vuPool[V any] struct {
	mu                   sync.Mutex
	free                 []V
	inUse, started, peak int
	max                  int
	newVU                func() V
}

// newVUPool creates prealloc VUs up front (cheap: a VU opens its connection
// on its first iteration).
func newVUPool[V any](prealloc, max int, newVU func() V) *vuPool[V] {
	p := &vuPool[V]{max: max, newVU: newVU}
	for range prealloc {
		p.free = append(p.free, newVU())
	}
	p.started = prealloc
	return p
}

func (p *vuPool[V]) acquire() (v V, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case len(p.free) > 0:
		v = p.free[len(p.free)-1]
		p.free = p.free[:len(p.free)-1]
	case p.started < p.max:
		v = p.newVU()
		p.started++
	default:
		return v, false
	}
	p.inUse++
	p.peak = max(p.peak, p.inUse)
	return v, true
}

func (p *vuPool[V]) release(v V) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, v)
	p.inUse--
}

// stats returns VUs in use now, the most ever in use at once, and how many
// were created.
func (p *vuPool[V]) stats() (inUse, peak, started int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inUse, p.peak, p.started
}

// all lists every VU created (all free once the run has drained).
func (p *vuPool[V]) all() []V {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]V{}, p.free...)
}
