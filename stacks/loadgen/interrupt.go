package main

import (
	"os"
	"os/signal"
	"sync/atomic"
	"time"
)

// runEnd is when a run stops starting requests: its -d deadline, or the first SIGINT before
// it, as wrk does. Requests in flight then complete and the report covers what ran, its
// recording window closed at the signal; so the harness can start a load for the longest
// window it may need and end it when the window it took is over
// (docs/method/disturbance.md#extension).
type runEnd struct {
	deadline    time.Time // zero: none (-n alone)
	interrupted atomic.Int64
	signalled   chan struct{}
	release     func()
}

// endAtInterrupt starts listening for SIGINT; call release when the run is over.
func endAtInterrupt(deadline time.Time) *runEnd {
	e := &runEnd{deadline: deadline, signalled: make(chan struct{})}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			e.interrupt(time.Now())
		case <-done:
		}
	}()
	e.release = func() {
		signal.Stop(ch)
		close(done)
	}
	return e
}

// interrupt ends the run at `at` (the first call wins).
func (e *runEnd) interrupt(at time.Time) {
	if e.interrupted.CompareAndSwap(0, at.UnixNano()) {
		close(e.signalled)
	}
}

// over: no request may start at `now`.
func (e *runEnd) over(now time.Time) bool {
	return (!e.deadline.IsZero() && !now.Before(e.deadline)) || e.interrupted.Load() != 0
}

// recordUntil is the recording window's end: `to` (zero: until the end), or the interruption when earlier.
func (e *runEnd) recordUntil(to time.Time) time.Time {
	at := e.interrupted.Load()
	if at == 0 {
		return to
	}
	if stop := time.Unix(0, at); to.IsZero() || stop.Before(to) {
		return stop
	}
	return to
}
