// syscall-tax makes every system call of a program dearer, then runs it: it installs a
// seccomp-BPF filter (inherited by every thread, child and exec'd program) and execs the
// program in its place. The filter loads a system-call argument first, so the kernel
// cannot prove its verdict constant and cache it per system call; then it runs a chain
// of -insns ALU instructions, whose length sets the tax, and allows the call.
// A machine whose kernel makes system calls dearer (other mitigations) is reproduced on
// this one: docs/benchmarks.md#the-system-call-tax.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"syscall"
	"unsafe"
)

const (
	// One classic BPF program holds at most 4096 instructions (BPF_MAXINSNS); every filter
	// a system call passes counts with its length + 4 against 32768 (MAX_INSNS_PER_PATH).
	chunkInsns = 4000
	maxInsns   = 8 * chunkInsns

	// SYS_SECCOMP is not in package syscall; its number on linux/amd64 (sys_amd64.go has others).
	sysSeccomp             = 317
	seccompSetModeFilter   = 1
	seccompFilterFlagTsync = 1
	seccompRetAllow        = 0x7fff0000
	prSetNoNewPrivs        = 38
	clockThreadCPUTimeID   = 3

	bpfLdWAbs = 0x20 // BPF_LD | BPF_W | BPF_ABS
	bpfAddK   = 0x04 // BPF_ALU | BPF_ADD | BPF_K
	bpfRetK   = 0x06 // BPF_RET | BPF_K
	argsLow   = 16   // offsetof(struct seccomp_data, args[0])
)

type sockFilter struct {
	code uint16
	jt   uint8
	jf   uint8
	k    uint32
}

type sockFprog struct {
	len    uint16
	filter *sockFilter
}

// program is one filter of n chained instructions after the argument load.
func program(n int) []sockFilter {
	p := make([]sockFilter, 0, n+2)
	p = append(p, sockFilter{code: bpfLdWAbs, k: argsLow})
	for i := 0; i < n; i++ {
		p = append(p, sockFilter{code: bpfAddK, k: 1})
	}
	return append(p, sockFilter{code: bpfRetK, k: seccompRetAllow})
}

// chunks splits a tax of n instructions into filters of at most chunkInsns each.
func chunks(n int) []int {
	var out []int
	for n > 0 {
		c := min(n, chunkInsns)
		out = append(out, c)
		n -= c
	}
	return out
}

func installOne(p []sockFilter) error {
	prog := sockFprog{len: uint16(len(p)), filter: &p[0]}
	_, _, e := syscall.RawSyscall(sysSeccomp, seccompSetModeFilter, seccompFilterFlagTsync, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(p)
	if e == syscall.EACCES {
		// Without CAP_SYS_ADMIN the kernel asks for no_new_privs first (a container has it set already).
		if _, _, e2 := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); e2 != 0 {
			return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", e2)
		}
		_, _, e = syscall.RawSyscall(sysSeccomp, seccompSetModeFilter, seccompFilterFlagTsync, uintptr(unsafe.Pointer(&prog)))
		runtime.KeepAlive(p)
	}
	if e != 0 {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %v", e)
	}
	return nil
}

// install puts the filters of a tax of n instructions on every thread of this process.
func install(n int) error {
	for _, c := range chunks(n) {
		if err := installOne(program(c)); err != nil {
			return err
		}
	}
	return nil
}

// threadCPUNs is this thread's CPU time: a batch timed by it does not count the time the
// thread waited for the core (a busy machine preempts it often).
func threadCPUNs() int64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// nsPerCall is the median CPU time per getppid over a few batches.
func nsPerCall(calls int) float64 {
	per := make([]float64, 5)
	for b := range per {
		t0 := threadCPUNs()
		for i := 0; i < calls; i++ {
			syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
		}
		per[b] = float64(threadCPUNs()-t0) / float64(calls)
	}
	sort.Float64s(per)
	return per[len(per)/2]
}

type measured struct {
	Insns   int     `json:"insns"`
	Filters int     `json:"filters"`
	Calls   int     `json:"calls_per_batch"`
	BaseNs  float64 `json:"base_ns_per_syscall"`
	TaxedNs float64 `json:"taxed_ns_per_syscall"`
	TaxNs   float64 `json:"tax_ns_per_syscall"`
}

func measure(n, calls int, stdout io.Writer) error {
	base := nsPerCall(calls)
	if err := install(n); err != nil {
		return err
	}
	taxed := nsPerCall(calls)
	return json.NewEncoder(stdout).Encode(measured{Insns: n, Filters: len(chunks(n)), Calls: calls, BaseNs: round(base), TaxedNs: round(taxed), TaxNs: round(taxed - base)})
}

func round(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `Usage: syscall-tax -insns N -- PROGRAM [ARG...]   run PROGRAM with every system call taxed
       syscall-tax -measure -insns N [-calls M]       JSON: ns per system call before and after the filter

The tax of N instructions is measured, not assumed: -measure reads it on the CPU it runs on
(run it under taskset on the proxy's core).
`

func run(args []string, stdout, stderr io.Writer) int {
	runtime.LockOSThread()
	fs := flag.NewFlagSet("syscall-tax", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	insns := fs.Int("insns", 0, "instructions in the filters (the tax's length)")
	doMeasure := fs.Bool("measure", false, "measure the tax instead of running a program")
	calls := fs.Int("calls", 20000, "system calls per timed batch (-measure)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "syscall-tax: %v\n%s", err, usage)
		return 2
	}
	if *insns < 0 || *insns > maxInsns {
		fmt.Fprintf(stderr, "syscall-tax: -insns %d: must be 0..%d (the kernel's limit on a system call's filter path)\n", *insns, maxInsns)
		return 2
	}
	if *doMeasure {
		if *calls < 1000 {
			fmt.Fprintf(stderr, "syscall-tax: -calls %d: must be at least 1000\n", *calls)
			return 2
		}
		if err := measure(*insns, *calls, stdout); err != nil {
			fmt.Fprintf(stderr, "syscall-tax: %v\n", err)
			return 1
		}
		return 0
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fmt.Fprintf(stderr, "syscall-tax: no program to run\n%s", usage)
		return 2
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(stderr, "syscall-tax: %v\n", err)
		return 127
	}
	if err := install(*insns); err != nil {
		fmt.Fprintf(stderr, "syscall-tax: %v\n", err)
		return 1
	}
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(stderr, "syscall-tax: exec %s: %v\n", path, err)
	return 126
}
