package main

import (
	"syscall"
	"time"
)

// sleepUntil wakes close to t. Go's own timers can wake up to a millisecond
// late here (the runtime's poller waits in whole milliseconds), which at
// thousands of arrivals per second would pass for server latency; nanosleep
// blocks just this thread and wakes within tens of microseconds.
func sleepUntil(t time.Time) {
	if d := time.Until(t) - 2*time.Millisecond; d > 0 {
		time.Sleep(d) // long waits: the coarse timer, then the precise rest
	}
	d := time.Until(t)
	if d <= 0 {
		return
	}
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR { // the runtime's signals interrupt it
	}
}

// raiseNofile lifts the soft open-files limit to the hard one (thousands of
// held connections need a descriptor each) and returns the limit in force.
func raiseNofile() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	if lim.Cur < lim.Max {
		raised := syscall.Rlimit{Cur: lim.Max, Max: lim.Max}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim = raised
		}
	}
	return lim.Cur
}
