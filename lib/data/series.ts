import type { TableName } from './tables.ts'

/** The series run-all can run, in this order. */
export const SERIES = ['pooling', 'work', 'tls', 'ws', 'versions', 'scenarios', 'l4', 'h2', 'h3', 'resumption', 'capacity', 'bisect'] as const
export type SeriesName = (typeof SERIES)[number]

/** What run-all runs without --series: a search (capacity, bisect) runs only when asked for, so quick keeps its time. */
export const DEFAULT_SERIES: readonly SeriesName[] = ['pooling', 'work', 'tls', 'ws', 'versions', 'scenarios', 'l4', 'h2', 'resumption']

/**
 * Left out of smoke's default (no claim reads them; smoke is the integration tests' profile;
 * work has a test of its own: test/integration/work.test.ts).
 * quick keeps h2 with one h2 cell per proxy beside its HTTP/1.1 reference (lib/series/h2.ts
 * QUICK_H2_STREAMS): docs/lab-notes/2026-12-01-h2-quick.md measured what it adds to npm run bench.
 */
const SMOKE_LEAVES_OUT: readonly SeriesName[] = ['h2', 'work']

/**
 * Added to the default of standard and full only: quick's default already takes its ~20
 * minutes on 2 cores, and h3 alone would add several (docs/series/h3.md#quick-or-standard).
 */
const STANDARD_ADDS: readonly SeriesName[] = ['h3']

/** The series a profile runs without --series, in SERIES order. */
export function defaultSeries(profile: string): readonly SeriesName[] {
  if (profile === 'smoke') return DEFAULT_SERIES.filter((s) => !SMOKE_LEAVES_OUT.includes(s))
  if (profile === 'standard' || profile === 'full') return SERIES.filter((s) => DEFAULT_SERIES.includes(s) || STANDARD_ADDS.includes(s))
  return DEFAULT_SERIES
}

export const isSeriesName = (s: string): s is SeriesName => (SERIES as readonly string[]).includes(s)

/** The `series` column values each series writes, per table: how rows are told apart. */
export const SERIES_ROWS = {
  // same-own-rate: each proxy's article config in the open model at half its own closed ceiling.
  pooling: { measurements: ['same', 'pool-added', 'pool-removed', 'haproxy-reuse', 'nginx-keepalive', 'direct', 'custom', 'same-own-rate'] },
  // work: instructions counted under callgrind, per request and per full handshake (docs/series/work.md).
  work: { measurements: ['work'], handshakes: ['work'] },
  versions: { measurements: ['versions'] },
  bisect: { measurements: ['bisect'] },
  tls: { measurements: ['tls-ceiling', 'tls-open', 'tls-open-half', 'tls-calibration'], handshakes: ['tls-handshake'] },
  ws: { websocket: ['ws-echo', 'ws-hold'] },
  scenarios: { measurements: ['scenarios'] },
  l4: { tcp: ['l4-short', 'l4-stream'] },
  // h2: h2load rows; h2-h1: wrk (HTTP/1.1) through the same h2-capable config, the ratio's reference.
  h2: { measurements: ['h2', 'h2-h1'] },
  // h3: loadgen h3 rows (and the direct row over the backend's HTTP/3); h3-h1: wrk through the same h3 config;
  // h3-open, h3-open-h1: the open model over h3 (loadgen h3 -rate) and over HTTP/1.1 (loadgen open) at one rate;
  // h3-handshake: loadgen h3-handshake (QUIC); h3-handshake-tcp: loadgen handshake (TCP+TLS) through the same h3 config.
  h3: { measurements: ['h3', 'h3-h1', 'h3-open', 'h3-open-h1'], handshakes: ['h3-handshake', 'h3-handshake-tcp'] },
  resumption: { handshakes: ['resumption'] },
  capacity: { measurements: ['capacity'] },
} as const satisfies Record<SeriesName, Partial<Record<TableName, readonly string[]>>>

type Elements<T> = T extends readonly (infer N)[] ? N : never
type RowTable = typeof SERIES_ROWS

/** A `series` column value some series writes (`'pool-added'`, `'tls-open'`, …): the type of SERIES_ROWS' names. */
export type RowSeries = { [S in keyof RowTable]: Elements<RowTable[S][keyof RowTable[S]]> }[keyof RowTable]

/** The pooling series' open-model rows of each article config at a fraction of its own closed ceiling (lib/series/pooling.ts). */
export const OWN_RATE_SERIES = 'same-own-rate'

/** The `series` values of the pooling rows in measurements.csv. */
export const POOLING_ROWS: readonly string[] = SERIES_ROWS.pooling.measurements

/** Every `series` value a table can hold, pooling first. */
export const ROW_SERIES: Record<TableName, readonly string[]> = Object.fromEntries(
  (['measurements', 'handshakes', 'websocket', 'tcp'] as const).map((t) => [
    t,
    Object.values(SERIES_ROWS).flatMap((s) => (s as Partial<Record<TableName, readonly string[]>>)[t] ?? []),
  ]),
) as unknown as Record<TableName, readonly string[]>
