import { quantile } from '../core/stats.ts'

/**
 * h2load (Debian nghttp2-client): the closed-model generator for HTTP/2 over TLS. Each of
 * -c clients opens one connection and keeps -m streams in flight on it; -D runs it for a
 * time (the cell window sits inside, read from cumulative counters like wrk's).
 */
export interface H2loadReport {
  /** The ALPN result h2load printed ("Application protocol: h2"); null when it printed none (no TLS connection). */
  protocol: string | null
  tls_protocol: string | null
  cipher: string | null
  requests: { total: number; started: number; done: number; succeeded: number; failed: number; errored: number; timeout: number }
  status: { '2xx': number; '3xx': number; '4xx': number; '5xx': number }
  rps: number
  /** "time for request" (min, max, mean): h2load prints no percentiles; those come from --log-file. */
  request_us: { min: number; max: number; mean: number } | null
}

export function h2loadArgv(o: { url: string; threads: number; connections: number; streams: number; seconds: number; logFile?: string }): string[] {
  // -c must be a multiple of -t; keep the cell's connection count and lower the threads instead.
  const threads = Math.max(1, Math.min(o.threads, o.connections))
  const t = o.connections % threads === 0 ? threads : 1
  // -N 5: a connection silent for 5 s is given up, as wrk's --timeout 5s (-T would close every connection after 5 s, busy or not).
  return [
    'h2load',
    '-t',
    String(t),
    '-c',
    String(o.connections),
    '-m',
    String(o.streams),
    '-D',
    String(Math.ceil(o.seconds)),
    '-N',
    '5',
    ...(o.logFile ? ['--log-file', o.logFile] : []),
    o.url,
  ]
}

/** h2load's durations: `192us`, `4.22ms`, `1.5s`, in microseconds. */
export function durationUs(s: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(s.trim())
  if (!m) throw new Error(`not an h2load duration: ${s}`)
  return Number(m[1]) * (m[2] === 'us' ? 1 : m[2] === 'ms' ? 1e3 : 1e6)
}

const num = (text: string, re: RegExp) => {
  const m = re.exec(text)
  return m ? Number(m[1]) : null
}

/** The report h2load printed at its end; null when it ended before printing one (refused, killed). */
export function parseH2loadOutput(text: string): H2loadReport | null {
  const req = /^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/m.exec(text)
  const codes = /^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/m.exec(text)
  const rps = num(text, /^finished in [\d.]+\w+, ([\d.]+) req\/s/m)
  if (!req || !codes || rps === null) return null
  const [total, started, done, succeeded, failed, errored, timeout] = req.slice(1).map(Number) as [number, number, number, number, number, number, number]
  const t = /^time for request:\s+(\S+)\s+(\S+)\s+(\S+)/m.exec(text)
  return {
    protocol: /^Application protocol: (\S+)/m.exec(text)?.[1] ?? null,
    tls_protocol: /^TLS Protocol: (\S+)/m.exec(text)?.[1] ?? null,
    cipher: /^Cipher: (\S+)/m.exec(text)?.[1] ?? null,
    requests: { total, started, done, succeeded, failed, errored, timeout },
    status: { '2xx': Number(codes[1]), '3xx': Number(codes[2]), '4xx': Number(codes[3]), '5xx': Number(codes[4]) },
    rps,
    request_us: t ? { min: durationUs(t[1]!), max: durationUs(t[2]!), mean: durationUs(t[3]!) } : null,
  }
}

/**
 * The ALPN protocol h2load printed ("Application protocol: h2"). It prints it when its first
 * connection is made, before the run, so an interrupted run has it too; null without one.
 */
export const h2loadProtocol = (text: string): string | null => /^Application protocol: (\S+)/m.exec(text)?.[1] ?? null

/** What an h2load run did, from its --log-file. */
export interface H2loadLog {
  /** Requests answered 2xx, over the whole run. */
  ok: number
  /** Requests that did not end in a 2xx answer: streams that failed (status -1) and non-2xx answers. */
  errors: number
  /** Latency percentiles (µs) of the requests that started inside the window; null with none. */
  latency: { p50: number; p90: number; p99: number; p999: number; max: number; count: number } | null
}

/**
 * Reads h2load's --log-file: one line per request of the main duration, "start µs since the
 * epoch, status (-1: the stream failed), duration µs", each written as the request ends. So
 * it holds every request of a run interrupted by SIGINT, which prints no summary
 * (docs/method/disturbance.md#extension). The latencies are those of [fromUs, toUs].
 */
export function h2loadLog(text: string, fromUs: number, toUs: number): H2loadLog {
  let ok = 0
  let errors = 0
  const d: number[] = []
  for (const line of text.split('\n')) {
    const [start, status, took] = line.split('\t')
    // A line cut short by the kill has no duration: not a request.
    if (!start || !status || !took) continue
    const code = Number(status)
    if (code >= 200 && code <= 299) ok++
    else errors++
    const s = Number(start)
    if (s >= fromUs && s <= toUs) d.push(Number(took))
  }
  if (d.length === 0) return { ok, errors, latency: null }
  // Sorted once: quantile's own sort of a sorted copy is then linear.
  d.sort((a, b) => a - b)
  const latency = { p50: quantile(d, 0.5), p90: quantile(d, 0.9), p99: quantile(d, 0.99), p999: quantile(d, 0.999), max: d.at(-1)!, count: d.length }
  return { ok, errors, latency }
}
