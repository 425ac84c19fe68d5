package main

import (
	"bytes"
	"strings"
	"testing"
)

// A tax is split into filters the kernel accepts, and every filter reads an argument first.
func TestFiltersLoadAnArgumentAndStayWithinTheKernelsLimits(t *testing.T) {
	for n, want := range map[int][]int{1: {1}, 4000: {4000}, 4001: {4000, 1}, maxInsns: {4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000}} {
		got := chunks(n)
		if len(got) != len(want) {
			t.Fatalf("chunks(%d) = %v, want %v", n, got, want)
		}
		path := 0
		for i, c := range got {
			if c != want[i] {
				t.Fatalf("chunks(%d) = %v, want %v", n, got, want)
			}
			p := program(c)
			if len(p) != c+2 || len(p) > 4096 || p[0].code != bpfLdWAbs || p[0].k != argsLow || p[len(p)-1].code != bpfRetK || p[len(p)-1].k != seccompRetAllow {
				t.Fatalf("program(%d): %d instructions, first %+v, last %+v", c, len(p), p[0], p[len(p)-1])
			}
			path += len(p) + 4
		}
		if path > 32768 {
			t.Fatalf("tax of %d: a system call would pass %d instructions, over the kernel's 32768", n, path)
		}
	}
}

func TestBadInputIsOneLine(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-insns", "99999", "--", "true"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-insns 99999") {
		t.Fatalf("code %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"-insns", "10"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "no program to run") {
		t.Fatalf("code %d, stderr %q", code, errb.String())
	}
}
