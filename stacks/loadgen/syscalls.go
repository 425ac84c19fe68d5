package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"syscall"
	"time"
)

// A known load for the kernel counters' tests and their overhead bench
// (docs/method/counts.md): exactly -n getppid system calls, with the CPU µs per
// call on the core it is pinned to.
func init() {
	register("syscalls", "N getppid system calls in a loop: CPU µs per call", runSyscalls)
}

type cpuTimes struct{ userUs, sysUs float64 }

func rusageNow() cpuTimes {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec)*1e6 + float64(t.Usec) }
	return cpuTimes{tv(ru.Utime), tv(ru.Stime)}
}

type loopResult struct {
	Kind     string  `json:"kind"`
	N        int64   `json:"n"`
	CPUUs    float64 `json:"cpu_us"`
	UserUs   float64 `json:"user_us"`
	SysUs    float64 `json:"sys_us"`
	WallUs   float64 `json:"wall_us"`
	UsPerOp  float64 `json:"us_per_op"`
	Checksum uint64  `json:"checksum"`
}

// loopFlags: -n, and -delay / -linger around the loop so that a counter
// attached from outside sees the whole loop inside its window.
func loopFlags(name string, defN int64, args []string, stdout, stderr io.Writer) (n int64, delay, linger time.Duration, code int, ok bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	np := fs.Int64("n", defN, "iterations")
	dp := fs.Duration("delay", 0, "sleep before the loop")
	lp := fs.Duration("linger", 0, "sleep after printing the result")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return 0, 0, 0, code, false
	}
	if *np < 1 {
		return 0, 0, 0, flagError(stderr, fs, "n", "must be at least 1, got %d", *np), false
	}
	return *np, *dp, *lp, 0, true
}

func report(stdout io.Writer, kind string, n int64, per float64, t0, t1 cpuTimes, wall time.Duration, sum uint64) int {
	cpu := (t1.userUs - t0.userUs) + (t1.sysUs - t0.sysUs)
	r := loopResult{Kind: kind, N: n, CPUUs: cpu, UserUs: t1.userUs - t0.userUs, SysUs: t1.sysUs - t0.sysUs, WallUs: float64(wall.Microseconds()), UsPerOp: cpu / per, Checksum: sum}
	if err := json.NewEncoder(stdout).Encode(r); err != nil {
		return 1
	}
	return 0
}

// timedLoop runs body between -delay and -linger, timing it by getrusage, and
// prints the result: us_per_op = CPU µs / per.
func timedLoop(kind string, defN int64, perOf func(n int64) float64, body func(n int64) uint64, args []string, stdout, stderr io.Writer) int {
	n, delay, linger, code, ok := loopFlags(kind, defN, args, stdout, stderr)
	if !ok {
		return code
	}
	time.Sleep(delay)
	start, t0 := time.Now(), rusageNow()
	sum := body(n)
	t1, wall := rusageNow(), time.Since(start)
	if sum == 0 {
		fmt.Fprintf(stderr, "loadgen %s: checksum 0 (the loop did not run)\n", kind)
	}
	rc := report(stdout, kind, n, perOf(n), t0, t1, wall, sum)
	time.Sleep(linger)
	return rc
}

func syscallLoop(n int64) uint64 {
	var sum uint64
	for i := int64(0); i < n; i++ {
		// RawSyscall: no scheduler hand-off around the call, only the kernel's entry and exit.
		ppid, _, _ := syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
		sum += uint64(ppid)
	}
	return sum
}

func runSyscalls(args []string, stdout, stderr io.Writer) int {
	return timedLoop("syscalls", 1000000, func(n int64) float64 { return float64(n) }, syscallLoop, args, stdout, stderr)
}
