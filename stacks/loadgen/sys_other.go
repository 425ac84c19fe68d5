//go:build !linux

package main

import "time"

func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

// raiseNofile reports 0: unknown (the harness runs on Linux).
func raiseNofile() uint64 { return 0 }
