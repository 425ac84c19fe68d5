// Command loadgen drives traffic at a proxy (or the backend directly) and
// prints one JSON result. Each subcommand lives in its own file and
// registers itself from init.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	commands[name] = command{summary, run}
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch returns the exit code: the subcommand's own, or 2 for usage errors.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "loadgen: unknown subcommand %q (run 'loadgen help')\n", args[0])
		return 2
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: loadgen SUBCOMMAND [flags]   (loadgen SUBCOMMAND -h for its flags)")
	fmt.Fprintln(w, "Each prints one JSON object on stdout (latencies in ms: p50_ms .. max_ms); progress and errors go to stderr.")
	fmt.Fprintln(w, "Exit status: 2 bad flags; requests: 1 unless every answer was ok; the others: 0 for a completed run")
	fmt.Fprintln(w, "(failed requests are data), 1 when nothing at all came back from the target.")
	fmt.Fprintln(w, "A load (h3, open, handshake, h3-handshake, ws-echo, tcp) ends at its first SIGINT: nothing starts after it,")
	fmt.Fprintln(w, "what is in flight completes, and the JSON covers what ran.")
	fmt.Fprintln(w, "subcommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
}

// parseFlags parses a subcommand's flags. When it returns false the caller
// exits with code: 0 after -h, 2 after a one-line error naming the flag.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(io.Discard) // the flag package would print the whole usage on error
	err := fs.Parse(args)
	switch {
	case err == flag.ErrHelp:
		fmt.Fprintf(stdout, "usage: loadgen %s [flags]\n", fs.Name())
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0, false
	case err != nil:
		fmt.Fprintf(stderr, "loadgen %s: %v\n", fs.Name(), err)
		return 2, false
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "loadgen %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}

// flagError reports an invalid flag value and returns the exit code.
func flagError(stderr io.Writer, fs *flag.FlagSet, flagName, format string, a ...any) int {
	fmt.Fprintf(stderr, "loadgen %s: -%s: %s\n", fs.Name(), flagName, fmt.Sprintf(format, a...))
	return 2
}
