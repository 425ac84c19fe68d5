package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"time"
)

// The calibration's system-call reference: a ping-pong of small messages over a
// TCP loopback connection between this process and a child echo process. A
// proxy's work is mostly read/write/epoll and wake-ups between processes; this
// loop costs the same kinds of kernel work, so it moves with the kernel build
// and its mitigations the way proxies do. Run it pinned (taskset) to the
// proxy's cpuset: the child inherits the affinity.
func init() {
	register("rtt", "loopback TCP ping-pong with a child echo process: µs per round trip (wall and CPU)", runRTT)
	register("rtt-echo", "the echo side of rtt (started by rtt itself)", runRTTEcho)
}

type rttResult struct {
	RoundTrips   int64   `json:"round_trips"`
	Size         int     `json:"size"`
	DurationS    float64 `json:"duration_s"`
	WallUsPerRT  float64 `json:"wall_us_per_rt"`
	CPUUsPerRT   float64 `json:"cpu_us_per_rt"` // both processes, user + system
	ParentCPUUs  float64 `json:"parent_cpu_us"`
	ChildCPUUs   float64 `json:"child_cpu_us"`
	WarmupRounds int64   `json:"warmup_round_trips"`
}

// Message bytes: the first byte says whether the echo side is in the window.
const (
	rttWarm    = 'w'
	rttMeasure = 'm'
)

func cpuNowUs() float64 {
	t := rusageNow()
	return t.userUs + t.sysUs
}

func runRTT(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rtt", flag.ContinueOnError)
	d := fs.Duration("d", 5*time.Second, "measured window")
	warm := fs.Duration("warmup", time.Second, "round trips before the window")
	size := fs.Int("size", 1, "message size in bytes")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if *size < 1 || *size > 65536 {
		return flagError(stderr, fs, "size", "must be 1..65536, got %d", *size)
	}
	if *d <= 0 {
		return flagError(stderr, fs, "d", "must be positive")
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "loadgen rtt: "+format+"\n", a...)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail("listen: %v", err)
	}
	defer ln.Close()
	self, err := os.Executable()
	if err != nil {
		return fail("own path: %v", err)
	}
	child := exec.Command(self, "rtt-echo", "-addr", ln.Addr().String(), "-size", fmt.Sprint(*size))
	child.Stderr = stderr
	childOut, err := child.StdoutPipe()
	if err != nil {
		return fail("%v", err)
	}
	if err := child.Start(); err != nil {
		return fail("start echo process: %v", err)
	}
	reaped := false
	defer func() {
		if !reaped {
			_ = child.Process.Kill()
			_ = child.Wait()
		}
	}()
	// A child that dies before connecting must not leave Accept waiting forever.
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	conn, err := ln.Accept()
	if err != nil {
		return fail("accept: %v", err)
	}
	buf := make([]byte, *size)
	in := make([]byte, *size)
	roundTrip := func(mark byte) error {
		buf[0] = mark
		if _, err := conn.Write(buf); err != nil {
			return err
		}
		_, err := io.ReadFull(conn, in)
		return err
	}
	// Loops check the clock every 256 round trips: a clock read per round trip would be part of the figure.
	run := func(mark byte, until time.Time) (int64, error) {
		var n int64
		for {
			for i := 0; i < 256; i++ {
				if err := roundTrip(mark); err != nil {
					return n, err
				}
				n++
			}
			if !time.Now().Before(until) {
				return n, nil
			}
		}
	}
	warmN, err := run(rttWarm, time.Now().Add(*warm))
	if err != nil {
		return fail("warm-up: %v", err)
	}
	cpu0, t0 := cpuNowUs(), time.Now()
	n, err := run(rttMeasure, t0.Add(*d))
	elapsed := time.Since(t0)
	cpu1 := cpuNowUs()
	if err != nil {
		return fail("ping-pong: %v", err)
	}
	conn.Close() // EOF: the echo side prints its CPU in the window and exits
	var echo struct {
		CPUUs float64 `json:"cpu_us"`
	}
	if err := json.NewDecoder(childOut).Decode(&echo); err != nil {
		return fail("echo process result: %v", err)
	}
	reaped = true
	if err := child.Wait(); err != nil {
		return fail("echo process: %v", err)
	}
	parent := cpu1 - cpu0
	res := rttResult{
		RoundTrips: n, Size: *size, DurationS: elapsed.Seconds(), WarmupRounds: warmN,
		WallUsPerRT: float64(elapsed.Microseconds()) / float64(n),
		CPUUsPerRT:  (parent + echo.CPUUs) / float64(n),
		ParentCPUUs: parent, ChildCPUUs: echo.CPUUs,
	}
	return writeJSON(stdout, stderr, res)
}

func runRTTEcho(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rtt-echo", flag.ContinueOnError)
	addr := fs.String("addr", "", "address of the rtt process")
	size := fs.Int("size", 1, "message size in bytes")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	conn, err := net.Dial("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen rtt-echo: %v\n", err)
		return 1
	}
	buf := make([]byte, *size)
	var start float64
	inWindow := false
	for {
		if _, err := io.ReadFull(conn, buf); err != nil {
			break // EOF: the window is over
		}
		if !inWindow && buf[0] == rttMeasure {
			inWindow, start = true, cpuNowUs()
		}
		if _, err := conn.Write(buf); err != nil {
			break
		}
	}
	cpu := 0.0
	if inWindow {
		cpu = cpuNowUs() - start
	}
	return writeJSON(stdout, stderr, struct {
		CPUUs float64 `json:"cpu_us"`
	}{cpu})
}

func writeJSON(stdout, stderr io.Writer, v any) int {
	if err := json.NewEncoder(stdout).Encode(v); err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 1
	}
	return 0
}
