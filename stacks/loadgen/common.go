package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Helpers shared by the load subcommands (handshake, open, ws-echo, ws-hold).

// Latencies are recorded in whole microseconds; an hour is far beyond any
// timeout, so nothing real is clamped.
const histMaxUS = int64(time.Hour / time.Microsecond)

// histogram is short for the HDR type (not safe for concurrent use).
type histogram = *hdrhistogram.Histogram

// newHist keeps 3 significant digits: values are exact up to 2 ms and
// within 0.1% above.
func newHist() histogram { return hdrhistogram.New(1, histMaxUS, 3) }

// recordDur clamps instead of failing so that an outlier still shows as the
// maximum rather than vanishing.
func recordDur(h histogram, d time.Duration) {
	_ = h.RecordValue(min(max(d.Microseconds(), 0), histMaxUS))
}

// latencies is embedded in results, so its fields appear at the top level.
type latencies struct {
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
}

// usToMS turns whole microseconds into milliseconds with 3 decimals.
func usToMS(us int64) float64 { return float64(us) / 1000 }

func summarize(h histogram) latencies {
	return latencies{
		P50:  usToMS(h.ValueAtQuantile(50)),
		P90:  usToMS(h.ValueAtQuantile(90)),
		P99:  usToMS(h.ValueAtQuantile(99)),
		P999: usToMS(h.ValueAtQuantile(99.9)),
		Max:  usToMS(h.Max()),
	}
}

// seconds rounds a duration for the JSON (microsecond precision).
func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*1e6) / 1e6 }

// perSecond is a rate rounded to 3 decimals; 0 for an empty window.
func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return math.Round(float64(n)/d.Seconds()*1000) / 1000
}

// samples keeps the first few distinct error messages: enough to diagnose a
// run without flooding the JSON. Safe for concurrent use.
type samples struct {
	mu   sync.Mutex
	list []string
}

func (s *samples) add(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.list) < 3 && !slices.Contains(s.list, msg) {
		s.list = append(s.list, msg)
	}
}

// get never returns nil, so the JSON has [] rather than null.
func (s *samples) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.list...)
}

// accumulator is what the concurrent workers of a subcommand add to: the latencies of the
// successes, the first distinct error messages, and the distinct values each negotiated
// property took (protocol, TLS version, cipher, curve). One mutex: cheap next to a round
// trip, and the HDR histogram is not safe for concurrent use.
type accumulator struct {
	mu      sync.Mutex
	hist    histogram
	samples samples
	seen    map[string]map[string]bool
}

func newAccumulator() accumulator {
	return accumulator{hist: newHist(), seen: map[string]map[string]bool{}}
}

// do runs f under the accumulator's lock.
func (t *accumulator) do(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f()
}

// saw records one value of a negotiated property; call it inside do.
func (t *accumulator) saw(property, value string) {
	if t.seen[property] == nil {
		t.seen[property] = map[string]bool{}
	}
	t.seen[property][value] = true
}

// distinct lists the values a property took (normally exactly one); call it inside do.
func (t *accumulator) distinct(property string) string { return joinKeys(t.seen[property]) }

// emit writes the one JSON line a subcommand prints on stdout.
func emit(stdout io.Writer, v any) {
	out, _ := json.Marshal(v)
	stdout.Write(append(out, '\n'))
}

// unreachable reports on stderr that nothing came back from the target; the
// subcommand then exits 1 (after printing its JSON).
func unreachable(stderr io.Writer, name string, samples []string) int {
	fmt.Fprintf(stderr, "loadgen %s: target not reached: %v\n", name, samples)
	return 1
}

// parseTarget accepts an absolute URL with one of the given schemes.
// parseCommand parses a subcommand's flags and its -url; on a problem it has printed
// the one-line error and returns ok false with the exit code.
func parseCommand(fs *flag.FlagSet, args []string, stdout, stderr io.Writer, rawURL *string, schemes ...string) (u *url.URL, code int, ok bool) {
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return nil, code, false
	}
	if u, ok = parseTarget(*rawURL, schemes...); !ok {
		want := make([]string, len(schemes))
		for i, s := range schemes {
			want[i] = s + "://"
		}
		return nil, flagError(stderr, fs, "url", "need an absolute %s URL, got %q", strings.Join(want, " or "), *rawURL), false
	}
	return u, 0, true
}

func parseTarget(raw string, schemes ...string) (*url.URL, bool) {
	u, err := url.Parse(raw)
	if err != nil || !slices.Contains(schemes, u.Scheme) || u.Host == "" {
		return nil, false
	}
	return u, true
}

// flagGiven reports whether the flag was given on the command line (to tell an
// explicit value from a default).
func flagGiven(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// tlsFlags are the TLS options every subcommand shares with requests.
type tlsFlags struct {
	caFile, serverName *string
	insecure, pq       *bool
}

func addTLSFlags(fs *flag.FlagSet) *tlsFlags {
	return &tlsFlags{
		caFile:     fs.String("cacert", "", "PEM file of CA certificates to trust instead of the system roots"),
		insecure:   fs.Bool("insecure", false, "skip TLS certificate verification"),
		serverName: fs.String("server-name", "", "TLS server name for SNI and verification (default: the URL host)"),
		pq:         fs.Bool("pq", false, "also offer the post-quantum hybrid X25519MLKEM768 (Go's default); off: classical X25519/P-256 only, the same key exchange for every proxy"),
	}
}

// config builds the client TLS config; on a bad flag it prints the one-line
// error and returns ok false with exit code 2. Session resumption stays off
// (nil ClientSessionCache): every new connection is a full handshake.
func (f *tlsFlags) config(fs *flag.FlagSet, stderr io.Writer) (cfg *tls.Config, code int, ok bool) {
	cfg = &tls.Config{ServerName: *f.serverName, InsecureSkipVerify: *f.insecure}
	if !*f.pq {
		// Proxies differ in hybrid support; a classical exchange keeps the key type the only variable.
		cfg.CurvePreferences = []tls.CurveID{tls.X25519, tls.CurveP256}
	}
	if *f.caFile == "" {
		return cfg, 0, true
	}
	if *f.insecure {
		return nil, flagError(stderr, fs, "cacert", "cannot be combined with -insecure"), false
	}
	pem, err := os.ReadFile(*f.caFile)
	if err != nil {
		return nil, flagError(stderr, fs, "cacert", "%v", err), false
	}
	cfg.RootCAs = x509.NewCertPool()
	if !cfg.RootCAs.AppendCertsFromPEM(pem) {
		return nil, flagError(stderr, fs, "cacert", "no PEM certificates in %s", *f.caFile), false
	}
	return cfg, 0, true
}

// backToBack runs c workers, each calling attempt again as soon as it returns, until n
// attempts in all were claimed (n > 0) or the run ended (its deadline or a SIGINT); it
// returns the time from the first start to the last return.
func backToBack(c int, n int64, end *runEnd, attempt func()) time.Duration {
	var claimed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Go(func() {
			for {
				if n > 0 && claimed.Add(1) > n {
					return
				}
				if end.over(time.Now()) {
					return
				}
				attempt()
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// attemptFlags are the -c, -d, -n and -timeout of the subcommands that make one new
// connection per attempt (handshake, h3-handshake).
type attemptFlags struct {
	c          *int
	d, timeout *time.Duration
	n          *int64
}

func addAttemptFlags(fs *flag.FlagSet, timeoutWhat string) *attemptFlags {
	return &attemptFlags{
		c:       fs.Int("c", 8, "concurrent workers, each handshaking back to back"),
		d:       fs.Duration("d", 10*time.Second, "how long to run, or until a SIGINT (attempts in flight at the end complete)"),
		n:       fs.Int64("n", 0, "stop after this many attempts in all (0: no cap; with -n, -d only limits when given)"),
		timeout: fs.Duration("timeout", 5*time.Second, "limit for one attempt: "+timeoutWhat),
	}
}

// check prints the one-line error of a bad value and returns its exit code and false.
func (f *attemptFlags) check(fs *flag.FlagSet, stderr io.Writer) (int, bool) {
	switch {
	case *f.c < 1:
		return flagError(stderr, fs, "c", "must be at least 1"), false
	case *f.d <= 0:
		return flagError(stderr, fs, "d", "must be positive"), false
	case *f.n < 0:
		return flagError(stderr, fs, "n", "must not be negative"), false
	case *f.timeout <= 0:
		return flagError(stderr, fs, "timeout", "must be positive"), false
	}
	return 0, true
}

// deadline is zero (no time limit) with -n alone, else -d from now.
func (f *attemptFlags) deadline(fs *flag.FlagSet) time.Time {
	if *f.n == 0 || flagGiven(fs, "d") {
		return time.Now().Add(*f.d)
	}
	return time.Time{}
}
