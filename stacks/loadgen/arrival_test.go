package main

import (
	"testing"
	"time"
)

func TestArrivalTimes(t *testing.T) {
	for _, c := range []struct {
		i    int64
		rate float64
		want time.Duration
	}{
		{0, 5000, 0},
		{1, 5000, 200 * time.Microsecond},
		{5000, 5000, time.Second},
		{3, 0.5, 6 * time.Second},
		{7, 3, 2333333333},
	} {
		if got := arrivalTime(c.i, c.rate); got != c.want {
			t.Errorf("arrivalTime(%d, %g) = %v, want %v", c.i, c.rate, got, c.want)
		}
	}
	for _, c := range []struct {
		d    time.Duration
		rate float64
		want int64
	}{
		{time.Second, 5000, 5000},                  // 0 .. 4999: i/rate < d
		{time.Second + 1, 5000, 5001},              // iteration 5000 is due at exactly 1 s
		{10 * time.Second, 3, 30},                  //
		{time.Second, 0.5, 1},                      // only iteration 0
		{1500 * time.Millisecond, 2, 3},            // 0, 0.5 and 1 s
		{2500 * time.Millisecond, 1000.0 / 3, 834}, // 0 .. 833 (the last at 2.499 s)
		{60 * time.Second, 123.456, 7408},          // ceil(7407.36)
		{100 * time.Millisecond, 1e7, 1_000_000},
		{time.Nanosecond, 1, 1}, // the first is due at once
		{333333333, 3, 1},       // iteration 1 is due at 333333333 ns, not before
		{333333334, 3, 2},
	} {
		if got := iterationsIn(c.d, c.rate); got != c.want {
			t.Errorf("iterationsIn(%v, %g) = %d, want %d", c.d, c.rate, got, c.want)
		}
	}
}

func TestScheduleHandsOutOverdueIterations(t *testing.T) {
	s := newSchedule(1000, 10*time.Millisecond) // iterations at 0, 1, .., 9 ms
	if s.total != 10 {
		t.Fatalf("total %d", s.total)
	}
	step := func(elapsed time.Duration, wantFrom, wantTo int64) {
		t.Helper()
		if from, to := s.due(elapsed); from != wantFrom || to != wantTo {
			t.Fatalf("due(%v) = [%d, %d), want [%d, %d)", elapsed, from, to, wantFrom, wantTo)
		}
	}
	step(0, 0, 1)
	step(500*time.Microsecond, 1, 1) // nothing new
	if at, ok := s.nextAt(); !ok || at != time.Millisecond {
		t.Fatalf("nextAt = %v, %v", at, ok)
	}
	step(time.Millisecond, 1, 2)      // exactly on time
	step(4500*time.Microsecond, 2, 5) // a late wake-up gets 2, 3, 4 at once
	step(time.Hour, 5, 10)            // never more than the total
	if _, ok := s.nextAt(); ok {
		t.Fatal("nextAt after the last iteration")
	}
	step(2*time.Hour, 10, 10)
}

func TestVUPoolDropsAtCap(t *testing.T) {
	made := 0
	p := newVUPool(2, 3, func() int { made++; return made })
	if _, _, started := p.stats(); started != 2 || made != 2 {
		t.Fatalf("prealloc: started %d, made %d", started, made)
	}
	var held []int
	for range 3 {
		v, ok := p.acquire()
		if !ok {
			t.Fatal("acquire under the cap failed")
		}
		held = append(held, v)
	}
	if inUse, peak, started := p.stats(); inUse != 3 || peak != 3 || started != 3 {
		t.Fatalf("stats %d %d %d", inUse, peak, started)
	}
	// All busy and at the cap: the iteration would be dropped.
	dropped := 0
	for range 5 {
		if _, ok := p.acquire(); !ok {
			dropped++
		}
	}
	if dropped != 5 || made != 3 {
		t.Fatalf("dropped %d, made %d", dropped, made)
	}
	p.release(held[1])
	if v, ok := p.acquire(); !ok || v != held[1] {
		t.Fatalf("reacquire = %d, %v; want the released VU %d", v, ok, held[1])
	}
	if _, peak, started := p.stats(); peak != 3 || started != 3 || len(p.all()) != 0 {
		t.Fatalf("peak %d, started %d", peak, started)
	}
}

func TestVUPoolGrowsOnlyWhenNeeded(t *testing.T) {
	made := 0
	p := newVUPool(5, 100, func() int { made++; return made })
	// A fast server at a low rate: each iteration ends before the next is due.
	seen := map[int]bool{}
	for range 1000 {
		v, ok := p.acquire()
		if !ok {
			t.Fatal("dropped")
		}
		seen[v] = true
		p.release(v)
	}
	if _, peak, started := p.stats(); peak != 1 || started != 5 || made != 5 || len(seen) != 1 {
		t.Fatalf("peak %d, started %d, made %d, VUs used %d", peak, started, made, len(seen))
	}
	// Bursts of 8 overlapping iterations need 8 VUs, not more.
	for range 50 {
		var held []int
		for range 8 {
			v, _ := p.acquire()
			held = append(held, v)
		}
		for _, v := range held {
			p.release(v)
		}
	}
	if _, peak, started := p.stats(); peak != 8 || started != 8 || len(p.all()) != 8 {
		t.Fatalf("peak %d, started %d", peak, started)
	}
}
