package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func init() {
	register("requests", "send N GETs over C keep-alive HTTP/1.1 connections and check the answers", runRequests)
}

type requestsResult struct {
	Requests     int            `json:"requests"`
	OK           int            `json:"ok"`
	Errors       int            `json:"errors"`
	ErrorSamples []string       `json:"error_samples"`
	Status       map[string]int `json:"status"`
	BodyMismatch int            `json:"body_mismatch"`
	ConnsOpened  int64          `json:"conns_opened"`
	Proto        string         `json:"proto"`
	TLSVersion   string         `json:"tls_version"`
	ALPN         string         `json:"alpn"`
	DurationS    float64        `json:"duration_s"`
}

func runRequests(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("requests", flag.ContinueOnError)
	rawURL := fs.String("url", "", "URL to GET (http:// or https://)")
	n := fs.Int("n", 100, "number of requests")
	c := fs.Int("c", 1, "number of concurrent keep-alive connections (n is split evenly among them)")
	caFile := fs.String("cacert", "", "PEM file of CA certificates to trust instead of the system roots")
	insecure := fs.Bool("insecure", false, "skip TLS certificate verification")
	expectStatus := fs.Int("expect-status", 200, "status a response needs to count as ok (0: any)")
	expectBody := fs.String("expect-body", "", "exact body a response needs to count as ok (unchecked when not given)")
	expectBytes := fs.Int("expect-bytes", -1, "body length in bytes a response needs to count as ok (-1: unchecked); for generated bodies such as the backend's /json?size=N")
	timeout := fs.Duration("timeout", 5*time.Second, "per-request timeout, connect and TLS handshake included")
	serverName := fs.String("server-name", "", "TLS server name for SNI and verification (default: the URL host)")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	checkBody := false
	fs.Visit(func(f *flag.Flag) { checkBody = checkBody || f.Name == "expect-body" })

	u, err := url.Parse(*rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return flagError(stderr, fs, "url", "need an absolute http:// or https:// URL, got %q", *rawURL)
	}
	if *n < 1 {
		return flagError(stderr, fs, "n", "must be at least 1")
	}
	if *c < 1 {
		return flagError(stderr, fs, "c", "must be at least 1")
	}
	if *timeout <= 0 {
		return flagError(stderr, fs, "timeout", "must be positive")
	}
	tlsConf := &tls.Config{ServerName: *serverName, InsecureSkipVerify: *insecure}
	if *caFile != "" {
		if *insecure {
			return flagError(stderr, fs, "cacert", "cannot be combined with -insecure")
		}
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			return flagError(stderr, fs, "cacert", "%v", err)
		}
		tlsConf.RootCAs = x509.NewCertPool()
		if !tlsConf.RootCAs.AppendCertsFromPEM(pem) {
			return flagError(stderr, fs, "cacert", "no PEM certificates in %s", *caFile)
		}
	}

	var opened atomic.Int64
	dialer := &net.Dialer{Timeout: *timeout}
	countingDial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		if err == nil {
			opened.Add(1)
		}
		return conn, err
	}
	// One single-connection transport per worker: with a shared pool a fast
	// worker can reuse a connection before a slow one dials, and fewer than
	// c connections get used.
	newClient := func() *http.Client {
		return &http.Client{Timeout: *timeout, CheckRedirect: noRedirect, Transport: &http.Transport{
			Proxy:           nil, // never detour through an environment proxy
			DialContext:     countingDial,
			TLSClientConfig: tlsConf,
			// Force HTTP/1.1: no h2 in ALPN, no HTTP/2 upgrade.
			ForceAttemptHTTP2:   false,
			TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
			MaxConnsPerHost:     1,
			MaxIdleConnsPerHost: 1,
			TLSHandshakeTimeout: *timeout,
			// Compare bodies byte for byte; don't invite the proxy to compress.
			DisableCompression: true,
		}}
	}

	res := requestsResult{Requests: *n, Status: map[string]int{}}
	acc := newAccumulator()
	record := func(resp *http.Response, body []byte, err error) {
		acc.do(func() {
			if resp != nil {
				res.Status[strconv.Itoa(resp.StatusCode)]++
				acc.saw("proto", resp.Proto)
				if resp.TLS != nil {
					acc.saw("version", strings.ReplaceAll(tls.VersionName(resp.TLS.Version), " ", ""))
					acc.saw("alpn", resp.TLS.NegotiatedProtocol)
				}
			}
			if err != nil {
				res.Errors++
				acc.samples.add(err.Error())
				return
			}
			bodyOK := (!checkBody || string(body) == *expectBody) && (*expectBytes < 0 || len(body) == *expectBytes)
			if !bodyOK {
				res.BodyMismatch++
			}
			if bodyOK && (*expectStatus == 0 || resp.StatusCode == *expectStatus) {
				res.OK++
			}
		})
	}

	var wg sync.WaitGroup
	startGate := make(chan struct{})
	for w := range *c {
		// Split n evenly so every worker (and so every connection) gets used.
		count := *n / *c
		if w < *n%*c {
			count++
		}
		client := newClient()
		wg.Go(func() {
			defer client.CloseIdleConnections()
			<-startGate
			for range count {
				resp, err := client.Get(u.String())
				if err != nil {
					record(nil, nil, err)
					continue
				}
				body, err := io.ReadAll(resp.Body) // read to EOF so the connection is reused
				resp.Body.Close()
				record(resp, body, err)
			}
		})
	}
	start := time.Now()
	close(startGate)
	wg.Wait()
	res.DurationS = math.Round(time.Since(start).Seconds()*1e6) / 1e6
	res.ConnsOpened = opened.Load()
	res.ErrorSamples = acc.samples.get()
	res.Proto, res.TLSVersion, res.ALPN = acc.distinct("proto"), acc.distinct("version"), acc.distinct("alpn")

	out, _ := json.Marshal(res)
	stdout.Write(append(out, '\n'))
	if res.OK != res.Requests {
		return 1
	}
	return 0
}

// noRedirect makes a redirect count as the proxy's answer, not be followed.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// joinKeys lists the distinct values seen; normally there is exactly one.
func joinKeys(m map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ",")
}
