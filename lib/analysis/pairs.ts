import { median, medianCI } from '../core/stats.ts'
import { chiSquareQuantile, LEVEL, sideOfOne, studentQuantile, sumSquares, UNSTABLE_P } from '../core/intervals.ts'
import { type CellKey, groupBy, projectKey } from '../data/grouping.ts'
import { pairCellId, pairColumns } from '../data/then.ts'
import type { RunData, RunTables } from '../data/run-data.ts'
import { SERIES_ROWS } from '../data/series.ts'

/**
 * Then and now, read as pairs (docs/method/pairs.md). A --like run measured each cell of
 * today's build (now) beside the baseline's build (then) in the same rounds; per cell the
 * *proxy change* is now / then from the paired rounds, and the *machine change* is then as
 * measured today / then as the baseline recorded it. Nothing here compares absolute costs
 * of two runs as if they were one machine.
 */

/** The tables whose cells are paired, and each one's cost column. */
export const PAIRED_COST = { measurements: 'proxy_cpu_us_per_req', handshakes: 'proxy_cpu_us_per_handshake', websocket: 'proxy_cpu_us_per_msg' } as const
type PairedTable = keyof typeof PAIRED_COST

/**
 * What a paired cell's change reads: `work`, the instructions counted per request or handshake
 * (the work series, docs/method/work.md), machine-independent and read first; `time`, the
 * proxy CPU µs of the timed series, this machine's price of that work.
 */
export type PairBasis = 'work' | 'time'
const WORK_SERIES: ReadonlySet<string> = new Set([...SERIES_ROWS.work.measurements, ...SERIES_ROWS.work.handshakes])
const WORK_COST = 'instructions_per_req'
const basisOf = (r: Row): PairBasis => (WORK_SERIES.has(r.series) ? 'work' : 'time')

/**
 * Counts per request by what fixes them: the code path (connections opened to the backend,
 * system calls at a fixed load) crosses machines; timing (context switches follow how
 * requests batch per wake-up) does not, so it is compared within the run only.
 */
export const CODE_PATH_COUNTS = ['backend_conns_per_1k_req', 'proxy_syscalls_per_req'] as const
export const TIMING_COUNTS = ['proxy_ctxsw_per_req', 'proxy_user_us_per_req', 'proxy_sys_us_per_req'] as const

type Row = { repeat: number; status: string; proxy: string; version: string; series: string; variant: string } & Record<string, unknown>

export interface Change {
  /** now / then (or today / baseline). */
  value: number
  lo: number
  hi: number
}

export type PairVerdict = 'cheaper' | 'dearer' | 'no change' | 'too few repeats'

export interface PairedCell {
  table: PairedTable
  basis: PairBasis
  proxy: string
  series: string
  variant: string
  /** The cell's identity without its version (both sides share it), as one string and by column. */
  id: string
  key: CellKey
  thenVersion: string
  nowVersion: string
  /** Rounds where both sides have a valid row. */
  pairs: number
  change: Change | null
  verdict: PairVerdict
  /** The change this run finds with probability POWER at its interval's level (relative, 0.08 = 8%: detectableChange); null without pairs. */
  detectable: number | null
  /** Standard error of ln(change) and its degrees of freedom: the pooled paired noise's, or the cell's own where its own SD is larger. */
  logSe: number | null
  df: number
  /**
   * Then measured today / the baseline's median of the same cell; null where the baseline lacks it.
   * Of a work cell, then counted today / the baseline's count: the counting set-up's change
   * (the binary is the same), which must be 1 within its interval; never the proxy's.
   */
  machine: number | null
  /** Its sides were measured in one window at once (--pair-at instant, docs/method/pairs.md#at-one-instant): the ratio is the product, and no machine change is read from it. */
  sharedWindow: boolean
  /** Of a work cell whose baseline counted it: the baseline's counting set-up where it differs from today's, else null. */
  setupChanged: string | null
  /** Median counts per request: now, then today, and then in the baseline (code-path counts only). */
  counts: Record<string, { now: number | null; thenToday: number | null; baseline: number | null }>
}

/** A cost: finite and positive (its log is taken). */
const num = (r: Row, column: string): number | null => {
  const v = r[column]
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null
}

/** A count: zero is a value (a pooled proxy opens no backend connection per 1000 requests). */
const countOf = (r: Row, column: string): number | null => {
  const v = r[column]
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null
}

const validRows = (rows: readonly Row[]) => rows.filter((r) => r.status === 'valid')

const medianOf = (rows: readonly Row[], column: string, read = num): number | null => {
  const xs = rows.map((r) => read(r, column)).filter((x): x is number => x !== null)
  return xs.length ? median(xs) : null
}

interface RawPair {
  table: PairedTable
  basis: PairBasis
  id: string
  /** A then row of the cell, valid or not: its identity. */
  first: Row
  /** The valid rows of each side. */
  now: Row[]
  thenRows: Row[]
  /** ln(now / then) per round where both are valid. */
  logs: number[]
}

function rawPairs(now: RunTables, then: RunTables): RawPair[] {
  const out: RawPair[] = []
  for (const table of Object.keys(PAIRED_COST) as PairedTable[]) {
    const cost = PAIRED_COST[table]
    // Every then cell is a paired cell, valid rows or not (none valid: too few repeats).
    const thenRows = groupBy(then[table] as unknown as Row[], (r) => [pairCellId(table, r)])
    const nowRows = groupBy(validRows(now[table] as unknown as Row[]), (r) => [pairCellId(table, r)])
    for (const [id, all] of thenRows) {
      const t = validRows(all)
      const n = nowRows.get(id) ?? []
      const byRound = new Map(n.map((r) => [r.repeat, num(r, cost)]))
      const logs = t.flatMap((r) => {
        const a = byRound.get(r.repeat)
        const b = num(r, cost)
        return a && b ? [Math.log(a / b)] : []
      })
      out.push({ table, basis: basisOf(all[0]!), id, first: all[0]!, now: n, thenRows: t, logs })
    }
  }
  return out
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length

/** The power a detectable change is stated at: a change that large is found 4 times in 5. */
export const POWER = 0.8

/** The two-sided α of an interval at the family-wise LEVEL over `family` figures (Bonferroni). */
export const familyAlpha = (family: number) => (1 - LEVEL) / Math.max(1, family)

/**
 * The smallest change a two-sided test at `alpha` finds with probability POWER, from a log-scale
 * standard error with `df` degrees of freedom: (t(1 − α/2) + t(POWER)) · SE, as a relative
 * change (0.08 = 8%). A change of the interval's half-width alone (t(1 − α/2) · SE) is found
 * about half the time.
 */
export function detectableChange(logSe: number, df: number, alpha: number): number {
  return Math.exp((studentQuantile(1 - alpha / 2, df) + studentQuantile(POWER, df)) * logSe) - 1
}

/** A cell's change as judged: its interval, verdict, detectable change and log-scale standard error. */
type Judged = Pick<PairedCell, 'change' | 'verdict' | 'detectable' | 'logSe' | 'df'>

/** A change with its two-sided interval at `alpha` from a log-scale standard error, its verdict (decided only when the whole interval is on one side of 1) and its detectable change. */
function judged(logMean: number, se: number, df: number, alpha: number): Pick<PairedCell, 'change' | 'verdict' | 'detectable'> {
  const q = studentQuantile(1 - alpha / 2, df)
  const change = { value: Math.exp(logMean), lo: Math.exp(logMean - q * se), hi: Math.exp(logMean + q * se) }
  const s = sideOfOne(change)
  return { change, verdict: s === 'above' ? 'dearer' : s === 'below' ? 'cheaper' : 'no change', detectable: detectableChange(se, df, alpha) }
}

/**
 * The paired noise of a family of cells: the pooled SD of the log ratios around each cell's
 * mean, and its degrees of freedom.
 */
export function pooledNoise(cells: readonly (readonly number[])[]): { sd: number; df: number } {
  const used = cells.filter((c) => c.length >= 2)
  const df = used.reduce((a, c) => a + c.length - 1, 0)
  return { sd: df > 0 ? Math.sqrt(used.reduce((a, c) => a + sumSquares(c), 0) / df) : NaN, df }
}

/**
 * A cell's paired change with its interval at the family-wise level over `family` cells
 * (Bonferroni: a run of 40 cells with no change flags none 95% of the time), from the
 * pooled noise, or from the cell's own SD where the pool makes its spread improbable
 * (p < UNSTABLE_P, the rule withPooledNoise judges a cell by: one noisy cell is never narrowed
 * by quiet ones), with its own pairs − 1 degrees of freedom: the pool's would claim a
 * precision its spread does not have. Not plain max(): about half the cells of a family draw
 * an own SD above the pool's by chance, and a few-df SD of their own costs them their power.
 * Fewer than 2 pairs, or no pooled noise: too few repeats.
 */
export function pairedChange(logs: readonly number[], noise: { sd: number; df: number }, family: number): Judged {
  if (logs.length < 2 || !(noise.df > 0)) return { change: null, verdict: 'too few repeats', detectable: null, logSe: null, df: noise.df }
  const ss = sumSquares(logs)
  const own = ss / noise.sd ** 2 > chiSquareQuantile(1 - UNSTABLE_P, logs.length - 1)
  const { sd, df } = own ? { sd: Math.sqrt(ss / (logs.length - 1)), df: logs.length - 1 } : noise
  const se = sd / Math.sqrt(logs.length)
  return { ...judged(mean(logs), se, df, familyAlpha(family)), logSe: se, df }
}

/** The counts of one cell: now, then today, and (code-path counts) then in the baseline. */
function countsOf(p: RawPair, baseline: Row[]): PairedCell['counts'] {
  const out: PairedCell['counts'] = {}
  for (const c of [...CODE_PATH_COUNTS, ...TIMING_COUNTS]) {
    const acrossMachines = (CODE_PATH_COUNTS as readonly string[]).includes(c)
    const countMedian = (rows: Row[]) => medianOf(rows, c, countOf)
    out[c] = { now: countMedian(p.now), thenToday: countMedian(p.thenRows), baseline: acrossMachines ? countMedian(baseline) : null }
  }
  return out
}

/**
 * One side of a work cell: the mean log of its repeats' counts and that mean's standard
 * error, each row's from its own interval (a t-interval over its counted rounds,
 * lib/measure/work-fit.ts), or the repeats' own spread where larger. Null: no counted row.
 */
export function countedSide(rows: readonly Row[]): { log: number; se: number; df: number } | null {
  const own = rows.flatMap((r) => {
    const [v, lo, hi] = [num(r, WORK_COST), num(r, `${WORK_COST}_low`), num(r, `${WORK_COST}_high`)]
    const rounds = Math.floor(Number(r.counted_batches) / 2)
    if (!v || !lo || !hi || !(rounds >= 2)) return []
    const df = rounds - 1
    return [{ log: Math.log(v), se: Math.log(hi / lo) / 2 / studentQuantile(1 - (1 - LEVEL) / 2, df), df }]
  })
  if (own.length === 0) return null
  const logs = own.map((x) => x.log)
  const within = Math.sqrt(own.reduce((a, x) => a + x.se ** 2, 0)) / own.length
  const between = logs.length >= 2 ? Math.sqrt(sumSquares(logs) / (logs.length - 1) / logs.length) : 0
  return between > within ? { log: mean(logs), se: between, df: logs.length - 1 } : { log: mean(logs), se: within, df: own.reduce((a, x) => a + x.df, 0) }
}

/**
 * A work cell's change, now / then of the counted instructions, its interval from the two
 * sides' own intervals (Welch's degrees of freedom) at the family-wise level over `family`
 * work cells. No counted row on a side: too few repeats.
 */
export function countedChange(now: readonly Row[], then: readonly Row[], family: number): Judged {
  const [a, b] = [countedSide(now), countedSide(then)]
  if (!a || !b) return { change: null, verdict: 'too few repeats', detectable: null, logSe: null, df: 0 }
  const se = Math.sqrt(a.se ** 2 + b.se ** 2)
  const df = se > 0 ? se ** 4 / (a.se ** 4 / a.df + b.se ** 4 / b.df) : a.df + b.df
  return { ...judged(a.log - b.log, se, df, familyAlpha(family)), logSe: se, df }
}

/** A counting set-up without the corrections of its row (lib/measure/work.ts workSetup): what must match for two counts to compare. */
const countingSetup = (setup: unknown): string =>
  String(setup ?? '')
    .split('; ')
    .filter((p) => !/^(idle|GC) /.test(p))
    .join('; ')

/** The setup of the baseline's rows where it differs from the then rows' counted today. */
function setupChange(today: readonly Row[], base: readonly Row[]): string | null {
  const was = base.map((r) => countingSetup(r.work_setup)).find(Boolean)
  const now = today.map((r) => countingSetup(r.work_setup)).find(Boolean)
  return was && now && was !== now ? was : null
}

/** Whether the pair's windows were one, both proxies on the proxy's core (--pair-at instant). */
const sharedWindow = (p: RawPair) => p.thenRows.some((r) => r.pair_window === 'instant')

/** One paired cell from its raw pair, its change as judged, and the baseline's rows of its then side. */
function pairedCell(p: RawPair, baseline: RunTables | undefined, judged: Judged): PairedCell {
  const { first, table } = p
  const cost = p.basis === 'work' ? WORK_COST : PAIRED_COST[table]
  const base = validRows((baseline?.[table] ?? []) as unknown as Row[]).filter((r) => r.version === first.version && pairCellId(table, r) === p.id)
  const todayThen = medianOf(p.thenRows, cost)
  const recorded = medianOf(base, cost)
  return {
    table,
    basis: p.basis,
    proxy: first.proxy,
    series: first.series,
    variant: first.variant,
    id: p.id,
    key: projectKey(first, pairColumns(table)),
    thenVersion: first.version,
    nowVersion: p.now[0]?.version ?? '',
    pairs: p.basis === 'work' ? Math.min(p.now.length, p.thenRows.length) : p.logs.length,
    ...judged,
    // At one instant then shared the proxy's core with now: not the baseline's conditions, so no machine change.
    machine: todayThen && recorded && !sharedWindow(p) ? todayThen / recorded : null,
    sharedWindow: sharedWindow(p),
    setupChanged: p.basis === 'work' ? setupChange(p.thenRows, base) : null,
    counts: countsOf(p, base),
  }
}

/** What the pairs are read from: a run's own tables and its then side. */
export type PairedRun = Pick<RunData, 'paired' | keyof RunTables>

/** Every paired cell of a run made --like a baseline (`baseline`: its tables, for the machine change). */
export function pairedCells(run: PairedRun, baseline?: RunTables): PairedCell[] {
  if (!run.paired) return []
  // In table order (rawPairs').
  const raw = rawPairs(run, run.paired.tables)
  // The family is every cell the run judges, whatever its table: "no cell flagged" is said of the run.
  // Counted cells are their own family: their intervals are the counts', not the rounds' noise.
  const timed = raw.filter((p) => p.basis === 'time')
  const judgedCells = timed.filter((p) => p.logs.length >= 2).length
  const countedCells = raw.filter((p) => p.basis === 'work' && p.now.length > 0 && p.thenRows.length > 0).length
  // Noise is pooled per table and load model, as the run's other intervals pool it (claims/cells.ts):
  // an open-model window's spread is not a closed one's.
  // Pairs measured at one instant are a family apart: their spread is a fraction of adjacent windows'.
  // And per proxy: a proxy's pairs spread as its runtime does (Caddy's Go runtime 2-10× HAProxy's,
  // lab note 2026-12-07-alternating.md); pooled with quieter proxies its intervals were too narrow.
  const noiseFamily = (p: RawPair) => `${p.table} ${String(p.first.model ?? '')} ${String(p.first.pair_window ?? '')} ${p.first.proxy}`
  const noises = new Map([...new Set(timed.map(noiseFamily))].map((f) => [f, pooledNoise(timed.filter((p) => noiseFamily(p) === f).map((p) => p.logs))]))
  return raw.map((p) =>
    pairedCell(
      p,
      baseline,
      p.basis === 'work' ? countedChange(p.now, p.thenRows, countedCells) : pairedChange(p.logs, noises.get(noiseFamily(p))!, judgedCells),
    ),
  )
}

/**
 * One proxy's change over its paired cells (each cell weighing the same), with its interval at
 * 95% over the proxies. It reads the proxy's work cells where it has any (counted, so a change
 * of a percent shows), else its timed ones; `time` is then the timed change beside it.
 */
export interface ProxyChange {
  proxy: string
  thenVersion: string
  nowVersion: string
  basis: PairBasis
  cells: number
  change: Change | null
  verdict: PairVerdict
  detectable: number | null
  /** Of a proxy read by its work: the timed change of its timed cells (this machine's price), null without them. */
  time: Change | null
}

/** The mean of cells' log changes; their errors independent (each cell's own rounds or counts). */
function pooledChange(own: readonly PairedCell[], family: number): Pick<ProxyChange, 'change' | 'verdict' | 'detectable'> {
  if (own.length === 0) return { change: null, verdict: 'too few repeats', detectable: null }
  const m = mean(own.map((c) => Math.log(c.change!.value)))
  const se = Math.sqrt(own.reduce((a, c) => a + c.logSe! ** 2, 0)) / own.length
  return judged(m, se, Math.min(...own.map((c) => c.df)), familyAlpha(family))
}

export function proxyChanges(cells: readonly PairedCell[], proxies = new Set(cells.map((c) => c.proxy))): ProxyChange[] {
  return [...proxies].map((proxy) => {
    const own = cells.filter((c) => c.proxy === proxy && c.change && c.logSe !== null)
    const [work, timed] = [own.filter((c) => c.basis === 'work'), own.filter((c) => c.basis === 'time')]
    const basis: PairBasis = work.length ? 'work' : 'time'
    const first = cells.find((c) => c.proxy === proxy)
    const read = basis === 'work' ? work : timed
    return {
      proxy,
      thenVersion: first?.thenVersion ?? '',
      nowVersion: first?.nowVersion ?? '',
      basis,
      cells: read.length,
      ...pooledChange(read, proxies.size),
      time: basis === 'work' ? pooledChange(timed, proxies.size).change : null,
    }
  })
}

/** The machine change over the timed cells that have one: their median, its order-statistics interval and the cells' range. */
export function machineChange(cells: readonly PairedCell[]): { value: number; lo: number; hi: number; min: number; max: number; cells: number } | null {
  const xs = cells
    .filter((c) => c.basis === 'time')
    .map((c) => c.machine)
    .filter((x): x is number => x !== null)
  if (xs.length === 0) return null
  const m = median(xs)
  const ci = xs.length >= 2 ? medianCI(xs, LEVEL).ci : [m, m]
  return { value: m, lo: ci[0]!, hi: ci[1]!, min: Math.min(...xs), max: Math.max(...xs), cells: xs.length }
}

/** A detectable change as `±9%`; tenths below 2%, as counted cells see a fraction of a percent. */
export const detectablePct = (detectable: number) => `±${detectable < 0.02 ? Math.ceil(detectable * 1000) / 10 : Math.ceil(detectable * 100)}%`

/** A detectable change in words: `±9% detectable at 80% power`. */
export const detectableText = (detectable: number) => `${detectablePct(detectable)} detectable at ${POWER * 100}% power`

/** The verdict in words: `no change (±9% detectable at 80% power)` says the change the run would have found. */
export function verdictText(v: PairVerdict, detectable: number | null): string {
  return v === 'no change' ? `no change (${detectableText(detectable ?? 0)})` : v
}
