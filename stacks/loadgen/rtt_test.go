package main

import (
	"testing"
	"time"
)

// A paced reference makes its rate's round trips over the window, no burst beyond it.
func TestPacedKeepsItsRate(t *testing.T) {
	var calls int64
	n, err := paced(1000, time.Now().Add(300*time.Millisecond), func() error { calls++; return nil })
	if err != nil || n != calls {
		t.Fatalf("n %d calls %d err %v", n, calls, err)
	}
	if n < 250 || n > 310 {
		t.Fatalf("%d round trips in 300 ms at 1000/s", n)
	}
}
