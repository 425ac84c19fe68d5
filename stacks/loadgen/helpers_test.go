package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// runCmd runs a subcommand in-process and decodes its one line of JSON.
func runCmd[T any](t *testing.T, name string, args ...string) (code int, res T, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = dispatch(append([]string{name}, args...), &out, &errb)
	if out.Len() > 0 {
		if bytes.Count(out.Bytes(), []byte("\n")) != 1 {
			t.Fatalf("stdout is not one line: %q", out.String())
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("stdout %q: %v", out.String(), err)
		}
	}
	return code, res, errb.String()
}

// badFlags checks that each argument list fails with exit 2 and one line.
func badFlags(t *testing.T, name string, cases ...[]string) {
	t.Helper()
	for _, args := range cases {
		var out, errb bytes.Buffer
		code := dispatch(append([]string{name}, args...), &out, &errb)
		if code != 2 || bytes.Count(errb.Bytes(), []byte("\n")) != 1 || out.Len() != 0 {
			t.Errorf("%s %v: code %d, stderr %q, stdout %q", name, args, code, errb.String(), out.String())
		}
	}
}
