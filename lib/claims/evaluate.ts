/**
 * Evaluates the claims ledger against one run's rows: a verdict per claim with the
 * numbers behind it. Side-effect free. The check kinds and the verdict rule are the ones
 * documented in the header of baselines/published/claims.yaml:
 *
 * Every figure a unit computes (ratio/equal r, spread s, threshold/count v, a rank's value per
 * proxy) carries an interval from lib/core/intervals.ts: order statistics for one cell's
 * median, a 95% paired bootstrap over the repeats of every cell behind an aggregate or a ratio
 * (the same aggregate of the resampled medians). A constant (published) side has none. A
 * unit's state is three-way on its interval:
 *
 * - holds: the whole interval satisfies the check's band (min/max, above/below (strict),
 *   approx ± tolerance, equal's tolerance, threshold's op, count's tolerance, contrast's max;
 *   rank: every possible place allowed and a lead's whole interval >= its min, or both orders
 *   decided and equal; status: every decisive cell's status allowed; repeats: every cell's
 *   spread between repeats <= max, which is an observation, not an interval);
 * - fails: the whole interval lies on the wrong side (rank: a place or a pair decided
 *   wrong; status: a cell's status certainly not allowed);
 * - undecided: the interval straddles a bound, or rests on a single repeat (which shows no
 *   noise), or rank neighbours' intervals overlap, or a status cell's decisive statuses tie;
 * - missing: a needed cell is absent, has no value (e.g. no valid row) or, in a status check
 *   with `reason`, its rows failed for another reason.
 *
 * A ratio or equal check with `same: [column]` reads side a first and selects side b at a's
 * value of each column (HTTPS / HTTP at the connection count the profile gave the reference).
 *
 * A check with for_each (or a status check with several cells) is several units. The claim is
 * not reproduced if any unit fails; else not measured if any unit is missing; else
 * inconclusive if any unit is undecided; else reproduced. A missing cell never makes a claim
 * "not reproduced", noise never makes it "reproduced" or "not reproduced".
 * Not runnable here: runnable_here: false. A not-measured claim with not_measured_reason (a
 * profile that does not measure its cells) says that reason after what is missing.
 */
import { compareVersions } from '../catalog/stack.ts'
import { bootstrapFigure, fmtInterval, fmtWith, medianInterval, methodText, overlaps, placeInterval, repeatsDisagree, type Interval, type Placement, type Repeats } from '../core/intervals.ts'
import { bisectResults, BISECT_METRICS, type BisectPlan } from '../data/bisect.ts'
import { DEFAULT_KEY_SERIES, keyTypeWords, type DefaultKeyRow } from '../data/default-keys.ts'
import type { RunTables } from '../data/run-data.ts'
import type { Measurement } from '../data/schema.ts'
import {
  aggregate, aggregateMedians, buildCellGroups, cellLabel, cellValue, familyRepeats, matchSelector, requestWords, shownSeries, statusTie, type CellGroup, type CellValue,
} from './cells.ts'
import { evalNumber, type FigureValues } from './expr.ts'
import type { Agg, Check, Claim, ClaimTable, Ledger, Selector, SelectorSpec } from './ledger.ts'

export type Verdict = 'reproduced' | 'not reproduced' | 'inconclusive' | 'not measured' | 'not runnable here'

export interface Evidence {
  table: string
  cell: Record<string, string | number | null>
  /** The cell's median of the metric (null for status checks or when no row has a value). */
  value: number | null
  /** Rows behind the value (status checks: all rows of the cell). */
  n: number
  status: string
}

export interface ClaimResult {
  id: string
  source: string
  claim: string
  published: string
  finding: string | null
  verdict: Verdict
  /** The check's rule in words. */
  expect: string
  /** What this run shows, in words with numbers. */
  measured: string
  evidence: Evidence[]
  comparable_across_machines: boolean
  caveat: string | null
  notes: string | null
  /** e.g. "nginx 1.31.3 article: 1 repeat", "…: invalid rows excluded: 2". */
  warnings: string[]
  /**
   * The one number the check computed (ratio/equal: r, spread: s, threshold/count: v); null for
   * rank and status, when a cell is missing, or when the check ran several times (for_each).
   */
  value: number | null
  /** `value`'s interval (method: order statistics, (paired) bootstrap, single repeat, constant); null when `value` is. */
  interval: { lo: number; hi: number; method: string } | null
  /** What the check centres `value` on: ratio approx, equal 1, spread max, threshold/count value; else null. */
  reference: number | null
}

export function evaluateClaims(ledger: Ledger, data: RunTables): ClaimResult[] {
  const ctx: Ctx = {
    figures: ledger.figures,
    cells: {
      measurements: buildCellGroups('measurements', data.measurements),
      handshakes: buildCellGroups('handshakes', data.handshakes),
      websocket: buildCellGroups('websocket', data.websocket),
      tcp: buildCellGroups('tcp', data.tcp ?? []),
    },
    noisy: new Map(),
    measurements: data.measurements,
    bisect: data.bisect,
    defaultKeys: data.defaultKeys ?? [],
  }
  return ledger.claims.map((c) => evaluateClaim(c, ctx))
}

// ------------------------------------------------------------------ internals

interface Ctx {
  figures: FigureValues
  cells: Record<ClaimTable, CellGroup[]>
  /** familyRepeats per table, metric and rows, computed once. */
  noisy: Map<string, Map<CellGroup, Repeats>>
  /** The rows and plan a bisect check replays (lib/data/bisect.ts). */
  measurements: readonly Measurement[]
  bisect: BisectPlan | undefined
  /** default-keys.csv: what a proxy served when given no certificate. */
  defaultKeys: readonly DefaultKeyRow[]
}

function noisyRepeats(ctx: Ctx, table: ClaimTable, metric: string, rows: 'valid' | 'all'): Map<CellGroup, Repeats> {
  const key = `${table}|${metric}|${rows}`
  if (!ctx.noisy.has(key)) ctx.noisy.set(key, familyRepeats(ctx.cells[table], metric, rows))
  return ctx.noisy.get(key)!
}

type State = 'holds' | 'fails' | 'undecided' | 'missing'

interface Unit {
  state: State
  text: string
  /** The unit's one figure with its interval (not for rank and status). */
  fig?: Fig
  reference?: number
  /** Cells behind the unit, with the value each contributed. */
  used: CellValue[]
}

/** Where a side reads its cells: table, default metric and which rows. */
interface Source {
  table: ClaimTable
  metric: string | undefined
  rows: 'valid' | 'all'
}

function evaluateClaim(claim: Claim, ctx: Ctx): ClaimResult {
  const k = claim.check
  const base = {
    id: claim.id, source: claim.source, claim: claim.claim, published: claim.published, finding: claim.finding, expect: k.expect,
    comparable_across_machines: claim.comparable_across_machines, caveat: claim.caveat, notes: claim.notes,
  }
  if (!claim.runnable_here) {
    return { ...base, verdict: 'not runnable here', measured: claim.not_runnable_reason ?? 'not runnable here', evidence: [], warnings: [], value: null, interval: null, reference: null }
  }
  const items: (SelectorSpec | undefined)[] = k.for_each ?? [undefined]
  const units = items.flatMap((item) => {
    const us = checkUnits(k, item, ctx)
    const prefix = item && items.length > 1 ? `${itemLabel(item)}: ` : ''
    return us.map((u) => ({ ...u, text: prefix + u.text }))
  })
  const has = (s: State) => units.some((u) => u.state === s)
  const verdict: Verdict = has('fails') ? 'not reproduced' : has('missing') ? 'not measured' : has('undecided') ? 'inconclusive' : 'reproduced'
  const used = dedupe(units.flatMap((u) => u.used))
  const one = units.length === 1 && units[0]!.state !== 'missing' ? units[0]! : undefined
  return {
    ...base,
    verdict,
    measured: verdict === 'not measured' && claim.not_measured_reason ? `${measuredText(units)} (${claim.not_measured_reason})` : measuredText(units),
    evidence: used.map((v) => ({ table: v.cell.table, cell: { ...v.cell.key }, value: v.value, n: v.n, status: v.cell.status })),
    warnings: [...new Set(used.flatMap(cellWarnings))],
    value: one?.fig?.value ?? null,
    // Repeats that disagree: their range, not an interval (docs/method/disturbance.md#intervals).
    interval: one?.fig ? (repeatsDisagree(one.fig) && one.fig.disagree && Number.isFinite(one.fig.disagree.lo) && Number.isFinite(one.fig.disagree.hi) ? { lo: one.fig.disagree.lo, hi: one.fig.disagree.hi, method: 'repeats disagree' } : { lo: one.fig.lo, hi: one.fig.hi, method: methodText(one.fig) }) : null,
    reference: one?.fig ? (one.reference ?? null) : null,
  }
}

/** The units in words; what is missing is prefixed "not measured:" once (all missing) or per unit. */
function measuredText(units: Unit[]): string {
  const allMissing = units.every((u) => u.state === 'missing')
  const text = units.map((u) => (u.state === 'missing' && !allMissing ? `not measured: ${u.text}` : u.text)).join('; ')
  return allMissing ? `not measured: ${text}` : text
}

/** A for_each item in words: its values ("rsa2048", "haproxy"; a pair "rsa2048 traefik/nginx"). */
function itemLabel(item: SelectorSpec): string {
  const words = (spec: SelectorSpec) => Object.values(spec.columns).map((v) => (Array.isArray(v) ? v.join('+') : typeof v === 'object' ? JSON.stringify(v) : String(v))).join(' ')
  const pair = item.a && item.b ? `${words(item.a)}/${words(item.b)}` : item.a ? words(item.a) : item.b ? words(item.b) : ''
  return [words(item), pair].filter(Boolean).join(' ')
}

function dedupe(values: CellValue[]): CellValue[] {
  const seen = new Set<string>()
  return values.filter((v) => {
    const id = `${v.cell.table}|${JSON.stringify(v.cell.key)}|${v.metric}`
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
}

function cellWarnings(v: CellValue): string[] {
  const label = cellLabel(v.cell)
  const w: string[] = []
  if (v.n === 1) w.push(`${label}: 1 repeat`)
  if (v.excluded > 0) w.push(`${label}: invalid rows excluded: ${v.excluded}`)
  return w
}

// ------------------------------------------------------------------ selectors: merge and sides

/** `over` on top of `base`: its columns and special keys win; a constant side stays as it is. */
function mergeSpec(base: SelectorSpec, over: SelectorSpec): SelectorSpec {
  if (over.value !== undefined) return over
  return {
    columns: { ...base.columns, ...over.columns },
    ...((over.agg ?? base.agg) && { agg: over.agg ?? base.agg }),
    ...((over.pick ?? base.pick) && { pick: over.pick ?? base.pick }),
    ...((over.metric ?? base.metric) && { metric: over.metric ?? base.metric }),
  }
}

/** Layers selectors (lists are unions: every combination): select < for_each item < a/b. */
function layer(...layers: (Selector | SelectorSpec | undefined)[]): Selector {
  let acc: Selector = [{ columns: {} }]
  for (const l of layers) {
    if (l === undefined) continue
    const list = Array.isArray(l) ? l : [l]
    if (list.some((s) => s.value !== undefined)) return list
    acc = acc.flatMap((a) => list.map((b) => mergeSpec(a, b)))
  }
  return acc
}

interface Side {
  value: number | null
  label: string
  metric: string | undefined
  /** The cells aggregated with `agg` into `value`; none for a constant side. */
  values: CellValue[]
  agg: Agg
  missing: string[]
}

function noValue(v: CellValue, rows: 'valid' | 'all'): string {
  const statuses = countStatuses(v.cell).map(([s, n]) => `${n} ${s}`).join(', ')
  return rows === 'valid' && v.excluded === v.cell.rows.length ? `${cellLabel(v.cell)} has no valid rows (${statuses})` : `${cellLabel(v.cell)} has no ${v.metric} value`
}

/** The cells a selector (a union of maps) matches, each with its value; absent and valueless cells as `missing`. */
function collect(sel: Selector, src: Source, ctx: Ctx): { values: CellValue[]; missing: string[] } {
  const seen = new Set<CellGroup>()
  const values: CellValue[] = []
  const missing: string[] = []
  for (const spec of sel) {
    const m = matchSelector(ctx.cells[src.table], spec)
    missing.push(...m.missing)
    const metric = spec.metric ?? src.metric!
    for (const c of m.cells) {
      if (seen.has(c)) continue
      seen.add(c)
      values.push({ ...cellValue(c, metric, src.rows), repeats: noisyRepeats(ctx, src.table, metric, src.rows).get(c)! })
    }
  }
  for (const v of values) if (v.value === null) missing.push(noValue(v, src.rows))
  return { values, missing }
}

const aggOf = (sel: Selector): Agg => sel.find((s) => s.agg)?.agg ?? 'median'

function side(sel: Selector, src: Source, ctx: Ctx): Side {
  const constant = sel.length === 1 ? sel[0]!.value : undefined
  if (constant !== undefined) {
    return { value: evalNumber(constant, ctx.figures), label: typeof constant === 'number' ? 'constant' : 'published', metric: undefined, values: [], agg: 'median', missing: [] }
  }
  const { values, missing } = collect(sel, src, ctx)
  const agg = aggOf(sel)
  return { value: missing.length ? null : aggregate(values, agg), label: sideLabel(values, sel, agg), metric: sel[0]!.metric ?? src.metric, values, agg, missing }
}

/**
 * `same` of a ratio or equal check: side a's value of each column, as a selector layer for
 * side b (b at the connections a was measured at, whatever the profile's count). A string
 * when a's cells disagree on a column; undefined when there is nothing to add.
 */
function sameAs(a: Side, columns: readonly string[] | undefined): SelectorSpec | string | undefined {
  if (!columns || a.values.length === 0) return undefined
  const want: Record<string, string | number> = {}
  for (const col of columns) {
    const seen = [...new Set(a.values.map((v) => v.cell.key[col] ?? null))]
    if (seen.length > 1) return `side a's cells differ in ${col} (${seen.join(', ')}): same: [${col}] needs one value`
    // A null column (no body size) matches a null cell column by its text, as matchSelector compares.
    want[col] = seen[0] === null || seen[0] === undefined ? 'null' : seen[0]!
  }
  return { columns: want }
}

interface ProxyGroup {
  proxy: string
  value: number
  fig: Fig
}

/** One value per proxy (several cells of a proxy are aggregated with the selector's agg), with its interval. */
function perProxy(sel: Selector, src: Source, ctx: Ctx): { groups: ProxyGroup[]; sides: Side[]; values: CellValue[]; missing: string[] } {
  const { values, missing } = collect(sel, src, ctx)
  const agg = aggOf(sel)
  const proxies = [...new Set(values.map((v) => String(v.cell.key.proxy)))]
  const sides: Side[] = missing.length ? [] : proxies.map((proxy) => {
    const own = values.filter((v) => v.cell.key.proxy === proxy)
    return { value: aggregate(own, agg), label: proxy, metric: sel[0]!.metric ?? src.metric, values: own, agg, missing: [] }
  })
  const groups = sides.map((s) => ({ proxy: s.label, value: s.value!, fig: figureOf([s], ([x]) => x!) }))
  return { groups, sides, values, missing }
}

// ------------------------------------------------------------------ figures with intervals

/** A unit's figure: its value as measured and its interval; `constant` when no measured cell is behind it. */
interface Fig {
  value: number
  lo: number
  hi: number
  method: Interval['method'] | 'constant'
  floor?: Interval['floor']
  disagree?: Interval['disagree']
}

/**
 * `f` of the sides' values with its interval. One cell: its median's order-statistics
 * interval mapped through `f` (monotone in one cell's value for every kind here: x, x/c, c/x).
 * Several cells: a paired bootstrap over all of them, each side's aggregate recomputed from
 * the resampled medians. The point stays the figure of the measured medians.
 */
function figureOf(sides: readonly Side[], f: (xs: readonly number[]) => number): Fig {
  const value = f(sides.map((s) => s.value!))
  const cells = sides.flatMap((s) => s.values)
  if (cells.length === 0) return { value, lo: value, hi: value, method: 'constant' }
  let iv: Interval
  if (cells.length === 1) {
    const m = medianInterval(cells[0]!.repeats)
    const at = (x: number) => f(sides.map((s) => (s.values.length ? x : s.value!)))
    const [lo, hi] = [at(m.lo), at(m.hi)].sort((x, y) => x - y)
    const d = m.disagree ? [at(m.disagree.lo), at(m.disagree.hi)].sort((x, y) => x - y) : null
    iv = { ...m, lo: lo!, hi: hi!, ...(d && { disagree: { lo: d[0]!, hi: d[1]! } }) }
  } else {
    iv = bootstrapFigure(cells.map((v) => v.repeats), (medians) => {
      let i = 0
      return f(sides.map((s) => (s.values.length ? aggregateMedians(s.values, medians.slice(i, (i += s.values.length)), s.agg) : s.value!)))
    })
  }
  // Rows with a repeat number twice are averaged per repeat: keep the measured point inside.
  const finite = Number.isFinite(iv.lo) && Number.isFinite(iv.hi)
  return { value, lo: finite ? Math.min(iv.lo, value) : iv.lo, hi: finite ? Math.max(iv.hi, value) : iv.hi, method: iv.method, ...(iv.floor && { floor: iv.floor }), ...(iv.disagree && { disagree: iv.disagree }) }
}

/** Float noise of resampled medians (6.000000000000001 against a bound of 6) decides nothing. */
const snap = (x: number) => (Number.isFinite(x) ? Number(x.toPrecision(12)) : x)

/** Where a figure lies against a band; a constant figure is a point, decided either way. */
function placeFig(fig: Fig, band: { min?: number; max?: number }): Placement {
  const [min, max] = [band.min === undefined ? undefined : snap(band.min), band.max === undefined ? undefined : snap(band.max)]
  if (min !== undefined && max !== undefined && min > max) return 'outside'
  if (fig.method === 'constant') {
    const v = snap(fig.value)
    return v >= (min ?? -Infinity) && v <= (max ?? Infinity) ? 'inside' : 'outside'
  }
  return placeInterval({ lo: snap(fig.lo), hi: snap(fig.hi), method: fig.method, ...(fig.disagree && { disagree: fig.disagree }) }, { ...(min !== undefined && { min }), ...(max !== undefined && { max }) })
}

/** A threshold's op as a placement; the strict ops are half-lines open at the bound. */
function placeOp(fig: Fig, op: '<' | '<=' | '>' | '>=' | '==', want: number): Placement {
  if (op === '<=') return placeFig(fig, { max: want })
  if (op === '>=') return placeFig(fig, { min: want })
  if (op === '==') return placeFig(fig, { min: want, max: want })
  const w = snap(want)
  const ok = (x: number) => (op === '<' ? snap(x) < w : snap(x) > w)
  if (fig.method === 'constant') return ok(fig.value) ? 'inside' : 'outside'
  // The same guards as placeInterval: no spread seen, or no interval, decides nothing.
  if (fig.method === 'single repeat' || !Number.isFinite(fig.lo) || !Number.isFinite(fig.hi) || repeatsDisagree(fig)) return 'straddles'
  return ok(fig.lo) && ok(fig.hi) ? 'inside' : !ok(fig.lo) && !ok(fig.hi) ? 'outside' : 'straddles'
}

const STATE: Record<Placement, Exclude<State, 'missing'>> = { inside: 'holds', outside: 'fails', straddles: 'undecided' }

/** Several conditions on one figure: outside when one is, inside when all are. */
const combine = (places: readonly Placement[]): Placement =>
  places.includes('outside') ? 'outside' : places.every((p) => p === 'inside') ? 'inside' : 'straddles'

/** Whether two proxies' order is decided: both intervals show spread and do not overlap. */
const apart = (a: Fig, b: Fig) =>
  a.method !== 'single repeat' && b.method !== 'single repeat' && !repeatsDisagree(a) && !repeatsDisagree(b) && [a.lo, a.hi, b.lo, b.hi].every(Number.isFinite) && !overlaps(a, b)

/** A side in words: proxy, version (when selected on), variant and what else sets its cells apart. */
function sideLabel(values: CellValue[], sel: Selector, agg: Agg): string {
  if (values.length === 0) return 'nothing'
  const cells = values.map((v) => v.cell)
  const distinct = (col: string) => [...new Set(cells.map((c) => c.key[col]).filter((x) => x !== undefined && x !== null).map(String))]
  const keyTypes = distinct('key_type')
  const proxies = distinct('proxy')
  const versionsOf = (p: string) => [...new Set(cells.filter((c) => c.key.proxy === p).map((c) => String(c.key.version)))].sort(compareVersions)
  // Versions only where they tell something: selected on, or several of one proxy.
  const showVersions = sel.some((s) => s.columns.version !== undefined) || proxies.some((p) => versionsOf(p).length > 1)
  const parts = [showVersions ? proxies.map((p) => `${p} ${versionsOf(p).join('+')}`).join(' + ') : proxies.join('+')]
  parts.push(distinct('variant').join('+'))
  // Series only where the variant does not tell it (then all of them, pool-added+tls-ceiling).
  if (cells.some((c) => shownSeries(c) !== null)) parts.push(distinct('series').join('+'))
  if (keyTypes.length && (cells[0]!.table === 'handshakes' || keyTypes.some((k) => k !== 'ec256'))) parts.push(keyTypes.join('+'))
  parts.push(distinct('mode').join('+'))
  if (distinct('model').includes('open')) parts.push(`open@${distinct('target_rps').sort((x, y) => Number(x) - Number(y)).join('+')}`)
  parts.push([...new Set(cells.flatMap((c) => requestWords(c.key)))].join('+'))
  // Connections only where a selector names them (scenarios at 1000, a side paired on a's count).
  if (sel.some((s) => s.columns.connections !== undefined)) parts.push(`${distinct('connections').join('+')} conns`)
  const label = parts.filter(Boolean).join(' ')
  return cells.length > 1 ? `${label} (${agg} of ${cells.length} cells)` : label
}

// ------------------------------------------------------------------ numbers in words

/** 3 significant digits below 1000, whole numbers with thousands separators above. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x)
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString('en-US')
  if (x === 0) return '0'
  const r = Number(x.toPrecision(3))
  // 999.6 rounds up to 1000: write it as the thousands are written.
  return Math.abs(r) >= 1000 ? Math.round(x).toLocaleString('en-US') : String(r)
}

const UNITS: Record<string, string> = {
  rps: 'rps', target_rps: 'rps', proxy_cpu_us_per_req: 'µs/req', backend_cpu_us_per_req: 'µs/req', proxy_cpu_us_per_handshake: 'µs/handshake',
  proxy_cpu_us_per_msg: 'µs/msg', backend_conns_per_1k_req: 'conns/1k req', errors_pct: '%', errors: 'errors', conns_established: 'conns',
  conns_target: 'conns', proxy_cpu_share: 'of the proxy cores', generator_cpu_share: 'generator CPU share', rate: 'handshakes/s', msg_rate: 'msg/s',
  resumed: 'resumed', resumed_pct: '%', handshakes: 'handshakes', proxy_cpu_us_per_conn: 'µs/conn', proxy_cpu_us_per_mib: 'µs/MiB', conn_rate: 'conn/s', mib_per_s: 'MiB/s', requests: 'requests', messages: 'messages', max_vus: 'VUs', dropped: 'dropped',
}
const unitOf = (metric: string | undefined) => (metric === undefined ? '' : (UNITS[metric] ?? (metric.endsWith('_ms') ? 'ms' : metric)))
const withUnit = (x: number, metric: string | undefined) => {
  const u = unitOf(metric)
  return u === '%' ? `${fmt(x)}%` : u ? `${fmt(x)} ${u}` : fmt(x)
}
const pct = (x: number) => `${fmt(x * 100)}%`

/** A figure with its interval: `1.39 [1.21, 1.62]`, `2 [1 repeat]`; a constant as itself. `each` formats every number. */
function fmtFig(f: Fig, each: (x: number) => string = fmt): string {
  const n = (x: number) => (Number.isFinite(x) ? each(x) : '?')
  if (f.method === 'constant') return n(f.value)
  return fmtWith({ ...f, method: f.method }, n)
}

/** `50 [49.5, 50.5] rps`, `33% [30%, 36%]`. */
function figWithUnit(f: Fig, metric: string | undefined): string {
  const u = unitOf(metric)
  return u === '%' ? fmtFig(f, (x) => `${fmt(x)}%`) : u ? `${fmtFig(f)} ${u}` : fmtFig(f)
}

const missingUnit = (missing: string[], used: CellValue[]): Unit => ({ state: 'missing', text: [...new Set(missing)].join('; '), used })

// ------------------------------------------------------------------ check kinds

const num = (v: number | string, ctx: Ctx) => evalNumber(v, ctx.figures)

function checkUnits(k: Check, item: SelectorSpec | undefined, ctx: Ctx): Unit[] {
  const src: Source = { table: k.table, metric: k.metric, rows: k.rows }
  const num = (v: number | string) => evalNumber(v, ctx.figures)
  switch (k.kind) {
    case 'ratio':
    case 'equal': {
      const a = side(layer(k.select, item, k.a, item?.a), src, ctx)
      const like = sameAs(a, k.same)
      if (typeof like === 'string') return [missingUnit([like], a.values)]
      const b = side(layer(k.select, item, k.b, item?.b, like), src, ctx)
      const used = [...a.values, ...b.values]
      if (a.missing.length || b.missing.length) return [missingUnit([...a.missing, ...b.missing], used)]
      const fig = figureOf([a, b], ([x, y]) => x! / y!)
      const r = fig.value
      const sameUnit = unitOf(a.metric ?? b.metric) === unitOf(b.metric ?? a.metric)
      const show = (s: Side) => (sameUnit ? fmt(s.value!) : withUnit(s.value!, s.metric))
      const unitTail = sameUnit && unitOf(a.metric ?? b.metric) ? (unitOf(a.metric ?? b.metric) === '%' ? '%' : ` ${unitOf(a.metric ?? b.metric)}`) : ''
      const detail = `(${a.label} ${show(a)} / ${b.label} ${show(b)}${unitTail})`
      if (k.kind === 'equal') {
        const tol = num(k.tolerance)
        const state = Number.isFinite(r) ? STATE[placeFig(fig, { min: 1 - tol, max: 1 + tol })] : 'fails'
        return [{ state, text: `a/b = ${fmtFig(fig)} ${detail}; wanted ${fmt(1 - tol)}..${fmt(1 + tol)} (±${pct(tol)})`, used, fig, reference: 1 }]
      }
      const wanted: string[] = []
      // The band is the intersection of min..max and approx ± tolerance.
      const band: { min?: number; max?: number } = {}
      let reference: number | undefined
      const min = k.min === undefined ? undefined : num(k.min)
      const max = k.max === undefined ? undefined : num(k.max)
      if (min !== undefined) band.min = min
      if (max !== undefined) band.max = max
      if (min !== undefined || max !== undefined) {
        wanted.push(min !== undefined && max !== undefined ? `${fmt(min)}..${fmt(max)}` : min !== undefined ? `>= ${fmt(min)}` : `<= ${fmt(max!)}`)
      }
      if (k.approx !== undefined) {
        const approx = num(k.approx)
        reference = approx
        const tol = num(k.tolerance!)
        const [lo, hi] = [approx * (1 - tol), approx * (1 + tol)].sort((x, y) => x - y) as [number, number]
        band.min = Math.max(band.min ?? -Infinity, lo)
        band.max = Math.min(band.max ?? Infinity, hi)
        wanted.push(`${fmt(lo)}..${fmt(hi)} (≈ ${fmt(approx)} ±${pct(tol)})`)
      }
      // above / below: strict bounds (a lead, "lower", "faster": parity must not pass).
      const above = k.above === undefined ? undefined : num(k.above)
      const below = k.below === undefined ? undefined : num(k.below)
      const places: Placement[] = []
      if (band.min !== undefined || band.max !== undefined) places.push(placeFig(fig, band))
      if (above !== undefined) {
        places.push(placeOp(fig, '>', above))
        wanted.push(`> ${fmt(above)}`)
      }
      if (below !== undefined) {
        places.push(placeOp(fig, '<', below))
        wanted.push(`< ${fmt(below)}`)
      }
      const state = Number.isFinite(r) ? STATE[combine(places)] : 'fails'
      return [{ state, text: `r = ${fmtFig(fig)} ${detail}; wanted ${wanted.join(' and ')}`, used, fig, ...(reference !== undefined && { reference }) }]
    }
    case 'spread': {
      const sel = layer(k.select, item)
      const g = perProxy(sel, src, ctx)
      if (g.missing.length) return [missingUnit(g.missing, g.values)]
      if (g.groups.length < 2) return [missingUnit([`a spread needs at least 2 proxies, found ${g.groups.map((x) => x.proxy).join(', ') || 'none'}`], g.values)]
      const fig = figureOf(g.sides, (vs) => Math.max(...vs) / Math.min(...vs) - 1)
      const max = num(k.max)
      const list = g.groups.map((x) => `${x.proxy} ${fmt(x.value)}`).join(', ')
      const state = Number.isFinite(fig.value) ? STATE[placeFig(fig, { max })] : 'fails'
      return [{ state, text: `s = ${fmtFig(fig)} (${list} ${unitOf(sel[0]!.metric ?? k.metric)}); wanted <= ${fmt(max)}`, used: g.values, fig, reference: max }]
    }
    case 'rank': {
      const sel = layer(k.select, item)
      const g = perProxy(sel, src, ctx)
      if (g.missing.length) return [missingUnit(g.missing, g.values)]
      const order = sortGroups(g.groups, k.by)
      const shown = `by ${sel[0]!.metric ?? k.metric} ${k.by}: ${showOrder(order, k.by)}`
      if (k.positions) {
        const n = order.length
        const absent = Object.keys(k.positions).filter((p) => !order.some((x) => x.proxy === p))
        if (absent.length) return [missingUnit(absent.map((p) => `no cell for ${p}`), g.values)]
        // A proxy's possible places: past every proxy decided ahead of it, before every one decided behind it.
        const per = Object.entries(k.positions).map(([p, places]) => {
          const me = order.find((x) => x.proxy === p)!
          const others = order.filter((x) => x !== me)
          const ahead = others.filter((x) => apart(x.fig, me.fig) && (k.by === 'desc' ? x.value > me.value : x.value < me.value)).length
          const behind = others.filter((x) => apart(x.fig, me.fig) && (k.by === 'desc' ? x.value < me.value : x.value > me.value)).length
          const [first, last] = [ahead + 1, n - behind]
          const allowed = places.map((pl) => (pl > 0 ? pl : n + 1 + pl))
          const can = new Set(allowed.filter((a) => a >= first && a <= last))
          const state: State = can.size === 0 ? 'fails' : can.size === last - first + 1 ? 'holds' : 'undecided'
          // Between `first` and `last` the order is not decided (the ≈ in the order shows where).
          const at = first === last ? placeWord(first, n) : `${placeWord(first, n)} ${last - first === 1 ? 'or' : 'to'} ${placeWord(last, n)}`
          return { state, text: `${p} ${state === 'fails' ? 'is' : 'could be'} ${at}, wanted ${places.map((pl) => placeWord(pl, n)).join(' or ')}` }
        })
        if (k.lead) per.push(leadUnit(k.lead.proxy, num(k.lead.min), k.positions[k.lead.proxy]![0]!, k.by, g.groups, g.sides))
        const off = per.filter((x) => x.state !== 'holds')
        const state: State = per.some((x) => x.state === 'fails') ? 'fails' : off.length ? 'undecided' : 'holds'
        const wanted = Object.entries(k.positions).map(([p, places]) => `${p} ${places.map((pl) => placeWord(pl, n)).join('/')}`).join(', ')
        const leadWanted = k.lead ? `, ${k.lead.proxy} ahead of the next by x >= ${fmt(num(k.lead.min))}` : ''
        return [{ state, text: `${shown}${off.length ? ` (${off.map((x) => x.text).join('; ')})` : ''}; wanted ${wanted}${leadWanted}`, used: g.values }]
      }
      const ref = k.same_order_as!
      const proxies = order.map((x) => x.proxy)
      const refSel = layer(ref.select, { columns: { proxy: proxies } })
      const rg = perProxy(refSel, { table: ref.table, metric: ref.metric, rows: ref.rows }, ctx)
      const used = [...g.values, ...rg.values]
      if (rg.missing.length) return [missingUnit(rg.missing, used)]
      const refOrder = sortGroups(rg.groups, ref.by)
      const refShown = `by ${ref.metric} ${ref.by}: ${showOrder(refOrder, ref.by)}`
      // Holds when both orders are fully decided and equal; fails when some pair is decided in
      // opposite orders; else (overlapping neighbours, nothing decided against) undecided.
      const ahead = (o: ProxyGroup[], by: 'asc' | 'desc', p: string, q: string): boolean | null => {
        const [x, y] = [o.find((g) => g.proxy === p)!, o.find((g) => g.proxy === q)!]
        return apart(x.fig, y.fig) ? (by === 'desc' ? x.value > y.value : x.value < y.value) : null
      }
      const pairs = proxies.flatMap((p, i) => proxies.slice(i + 1).map((q) => [ahead(order, k.by, p, q), ahead(refOrder, ref.by, p, q)] as const))
      const state: State = pairs.some(([x, y]) => x !== null && y !== null && x !== y)
        ? 'fails'
        : pairs.every(([x, y]) => x !== null && y !== null) ? 'holds' : 'undecided'
      const note = state === 'fails' ? ' (a different order)' : state === 'undecided' ? ' (not decided: overlapping intervals)' : ''
      return [{ state, text: `${shown}; ${refShown}${note}`, used }]
    }
    case 'threshold': {
      const s = side(layer(k.select, item), src, ctx)
      if (s.missing.length) return [missingUnit(s.missing, s.values)]
      const want = num(k.value)
      const fig = figureOf([s], ([x]) => x!)
      return [{ state: STATE[placeOp(fig, k.op, want)], text: `${s.label}: ${figWithUnit(fig, s.metric)}; wanted ${k.op} ${fmt(want)}`, used: s.values, fig, reference: want }]
    }
    case 'count': {
      const tol = k.tolerance === undefined ? 0 : num(k.tolerance)
      const s = side(layer(k.select, item), src, ctx)
      if (s.missing.length) return [missingUnit(s.missing, s.values)]
      if (k.value === 'conns_target') {
        // Each cell against its own target: fails if any cell is certainly off, undecided if any may be.
        const per = s.values.map((v) => {
          const target = Number(v.cell.key.conns_target)
          const fig = figureOf([{ ...s, value: v.value, values: [v] }], ([x]) => x!)
          return { v, target, fig, state: STATE[placeFig(fig, { min: target - tol, max: target + tol })] }
        })
        const text = per.map((x) => `${cellLabel(x.v.cell)}: ${fmtFig(x.fig)} of ${fmt(x.target)} ${unitOf(s.metric)}`).join(', ')
        const one = per.length === 1 ? { fig: per[0]!.fig, reference: per[0]!.target } : {}
        const state: State = per.some((x) => x.state === 'fails') ? 'fails' : per.some((x) => x.state === 'undecided') ? 'undecided' : 'holds'
        return [{ state, text: `${text}; wanted the target ±${fmt(tol)}`, used: s.values, ...one }]
      }
      const want = num(k.value)
      const targets = [...new Set(s.values.map((v) => v.cell.key.conns_target).filter((t) => t !== undefined))]
      const fig = figureOf([s], ([x]) => x!)
      return [{
        state: STATE[placeFig(fig, { min: want - tol, max: want + tol })],
        text: `${s.label}: ${figWithUnit(fig, s.metric)}${targets.length ? ` (target ${targets.join('+')})` : ''}; wanted ${fmt(want)} ±${fmt(tol)}`,
        used: s.values,
        fig,
        reference: want,
      }]
    }
    case 'status':
      return k.cells.map((entry) => statusUnit(layer(k.select, item, entry.select), entry.status, entry.reason, src, ctx))
    case 'contrast':
      return [contrastUnit(k, item, src, ctx)]
    case 'repeats':
      return [repeatsUnit(layer(k.select, item), num(k.max), src, ctx)]
    case 'bisect':
      return [bisectUnit(k, ctx)]
    case 'served_key':
      return [servedKeyUnit(k, ctx)]
  }
}

/**
 * served_key: the key a proxy served when given no certificate (its valid default-keys rows),
 * against a key type (a figure's value in the harness's words, or the word). Holds when every
 * valid row served it, fails when every one served another, undecided when the rows disagree;
 * not measured without a valid row (a run without the tls series' tls-default-key phase).
 */
function servedKeyUnit(k: Extract<Check, { kind: 'served_key' }>, ctx: Ctx): Unit {
  const figure = ctx.figures.get(k.want)
  const want = keyTypeWords(String(figure ? figure.value : k.want))
  const rows = ctx.defaultKeys.filter((r) => r.series === DEFAULT_KEY_SERIES && r.proxy === k.proxy)
  const valid = rows.filter((r) => r.status === 'valid' && r.served_key !== '')
  if (valid.length === 0) {
    const why = rows.length ? `${rows.length} default-key row${rows.length === 1 ? '' : 's'} of ${k.proxy}, none valid (${[...new Set(rows.map((r) => r.reason))].join('; ')})` : `no default-key probe of ${k.proxy} in this run (tls series, phase ${DEFAULT_KEY_SERIES})`
    return missingUnit([why], [])
  }
  const served = [...new Set(valid.map((r) => r.served_key))]
  const r0 = valid[0]!
  const what = `${k.proxy} ${r0.version} given no certificate served ${served.join(' / ')} (${r0.key_algorithm}${r0.key_bits ? ` ${r0.key_bits} bit` : ''}${r0.curve ? ` ${r0.curve}` : ''}, issuer ${r0.issuer || 'none'}; ${valid.length} handshake${valid.length === 1 ? '' : 's'}, ${r0.tool})`
  const state: State = served.length > 1 ? 'undecided' : served[0] === want ? 'holds' : 'fails'
  return { state, text: `${what}; wanted ${want}`, used: [] }
}

/**
 * bisect: where the run's bisect of one proxy and variant put its step, against a documented
 * change (nginx 1.29.7). Holds when the located pair of adjacent versions has the change on
 * its newer side (older < change <= newer) and the newer version is the costlier (the ratio's
 * whole interval above 1); fails when the step sits elsewhere, goes the other way, or the
 * search's ends span the change and do not differ. A search with no pair located says why:
 * unfinished or absent is not measured (the versions series' two ends place no step),
 * inconclusive or no single step is undecided. A no-step result is "from A to B", never
 * "between A and B", which names a located step.
 */
function bisectUnit(k: Extract<Check, { kind: 'bisect' }>, ctx: Ctx): Unit {
  const who = `${k.proxy} ${k.variant}`
  const result = ctx.bisect ? bisectResults(ctx.bisect, ctx.measurements).find((r) => r.search.proxy === k.proxy && r.search.variant === k.variant) : undefined
  const used: CellValue[] = []
  if (!result) {
    const versions = [...new Set(ctx.measurements.filter((r) => r.series === 'versions' && r.proxy === k.proxy && r.variant === k.variant && r.model === 'closed').map((r) => r.version))].sort(compareVersions)
    const measured = versions.length === 0
      ? `the run measured no ${who} versions`
      : `the versions series measured ${who} at ${versions.join(', ')} only${versions.length === 2 ? ' (its two ends)' : ''}, which places no step between adjacent releases`
    return missingUnit([`no bisect of ${who} in this run: ${measured}; locate it with npx zx notebooks/bisect.mjs --proxy ${k.proxy} --variant ${k.variant}`], used)
  }
  const s = result.state
  const metric = BISECT_METRICS[result.metric].label
  // Evidence: the bisect cells of the pair the search ended on (the report links their CSV lines).
  if ('older' in s) {
    const pair = new Set([s.older, s.newer])
    for (const c of ctx.cells.measurements) {
      if (c.key.series === 'bisect' && c.key.proxy === k.proxy && c.key.variant === k.variant && c.key.model === 'closed' && pair.has(String(c.key.version))) used.push(cellValue(c, BISECT_METRICS[result.metric].column, 'valid'))
    }
  }
  const holdsChange = (older: string, newer: string) => compareVersions(older, k.change) < 0 && compareVersions(k.change, newer) <= 0
  switch (s.kind) {
    case 'measure':
      return missingUnit([`the bisect of ${who} is unfinished: ${s.versions.join(', ')} still to measure (--resume continues it)`], used)
    case 'too few versions':
      return missingUnit([`no bisect of ${who}: ${s.notes.join('; ')}`], used)
    case 'inconclusive':
    case 'no single step':
      return { state: 'undecided', text: `bisect ${result.line}`, used }
    case 'no step': {
      if (!holdsChange(s.older, s.newer)) return missingUnit([`the bisect of ${who} searched ${s.older} to ${s.newer}, a span without ${k.change}`], used)
      return { state: 'fails', text: `bisect ${who}: no significant step from ${s.older} to ${s.newer}, a span that holds ${k.change}: ${fmtInterval(s.judgement.ratio)}x ${metric} (p=${s.judgement.p.toFixed(3)})`, used }
    }
    case 'step': {
      const at = `the step is between ${s.older} and ${s.newer}, adjacent in the search (${fmtInterval(s.judgement.ratio)}x ${metric}, p=${s.judgement.p.toFixed(3)}, ${s.probes.length} comparison${s.probes.length === 1 ? '' : 's'})`
      if (!holdsChange(s.older, s.newer)) return { state: 'fails', text: `bisect ${who}: ${at}: ${k.change} is not in it`, used }
      if (!(s.judgement.ratio.lo > 1)) return { state: 'fails', text: `bisect ${who}: ${at}: ${s.newer} is the cheaper, not a drop`, used }
      const exact = s.newer === k.change ? `exactly at ${k.change}` : `${k.change} is in it (not narrower: no catalog version between them)`
      return { state: 'holds', text: `bisect ${who}: ${at}: ${exact}`, used }
    }
  }
}

/**
 * rank's lead: how far the proxy placed first (last) is ahead of the next one, x = its value /
 * the largest other value (desc, place 1) or the smallest other / its value (asc, place 1);
 * mirrored for place -1. Holds when x's whole interval is >= min.
 */
function leadUnit(proxy: string, min: number, place: number, by: 'asc' | 'desc', groups: ProxyGroup[], sides: Side[]): { state: Exclude<State, 'missing'>; text: string } {
  const i = groups.findIndex((g) => g.proxy === proxy)
  if (i < 0 || groups.length < 2) return { state: 'undecided', text: `no other proxy to lead` }
  // Is the proxy's value meant to be the largest? desc + first, or asc + last.
  const largest = (by === 'desc') === (place === 1)
  const f = (xs: readonly number[]) => {
    const others = xs.filter((_, j) => j !== i)
    return largest ? xs[i]! / Math.max(...others) : Math.min(...others) / xs[i]!
  }
  const fig = figureOf(sides, f)
  const state = Number.isFinite(fig.value) ? STATE[placeFig(fig, { min })] : 'fails'
  return { state, text: `${proxy} ${largest ? '/ the next largest' : ': the next smallest /'} = ${fmtFig(fig)}, wanted >= ${fmt(min)}` }
}

/**
 * contrast: the difference between products against the difference a change makes within
 * each. s = max/min - 1 over the spread cells (one value per proxy: select < item < spread);
 * per proxy e = a/b - 1 (select < item < a/b). x = s / min(e); holds when x <= max. A proxy
 * whose effect is <= 0 (the change did not move it the claimed way) makes x infinite: fails.
 */
function contrastUnit(k: Extract<Check, { kind: 'contrast' }>, item: SelectorSpec | undefined, src: Source, ctx: Ctx): Unit {
  const sp = perProxy(layer(k.select, item, k.spread), src, ctx)
  const a = perProxy(layer(k.select, item, k.a, item?.a), src, ctx)
  const b = perProxy(layer(k.select, item, k.b, item?.b), src, ctx)
  const used = dedupe([...sp.values, ...a.values, ...b.values])
  if (sp.missing.length || a.missing.length || b.missing.length) return missingUnit([...sp.missing, ...a.missing, ...b.missing], used)
  if (sp.groups.length < 2) return missingUnit([`a spread needs at least 2 proxies, found ${sp.groups.map((x) => x.proxy).join(', ') || 'none'}`], used)
  const proxies = a.groups.map((x) => x.proxy).filter((p) => b.groups.some((y) => y.proxy === p))
  if (proxies.length === 0) return missingUnit(['no proxy has both sides of the effect'], used)
  const aSides = proxies.map((p) => a.sides.find((s) => s.label === p)!)
  const bSides = proxies.map((p) => b.sides.find((s) => s.label === p)!)
  const n = sp.sides.length
  const m = proxies.length
  const f = (xs: readonly number[]) => {
    const spread = Math.max(...xs.slice(0, n)) / Math.min(...xs.slice(0, n)) - 1
    const effects = proxies.map((_, j) => xs[n + j]! / xs[n + m + j]! - 1)
    const least = Math.min(...effects)
    return least > 0 ? spread / least : Infinity
  }
  const fig = figureOf([...sp.sides, ...aSides, ...bSides], f)
  const max = num(k.max, ctx)
  const sFig = figureOf(sp.sides, (xs) => Math.max(...xs) / Math.min(...xs) - 1)
  const effects = proxies.map((p, j) => `${p} ${fmt(aSides[j]!.value! / bSides[j]!.value! - 1)}`).join(', ')
  const state = Number.isFinite(fig.value) ? STATE[placeFig(fig, { max })] : 'fails'
  return {
    state,
    text: `spread / least effect = ${fmtFig(fig)} (spread ${fmtFig(sFig)} over ${sp.groups.map((x) => x.proxy).join(', ')}; effect a/b - 1: ${effects}); wanted <= ${fmt(max)}`,
    used, fig, reference: max,
  }
}

/**
 * repeats: the run's own repeat agreement. Per cell, d = max/min - 1 over its repeats' values
 * (the largest disagreement between two repeats of one cell). Holds when every cell's d <= max,
 * fails when one cell's d > max; a cell with fewer than 2 repeats shows nothing (undecided).
 */
function repeatsUnit(sel: Selector, max: number, src: Source, ctx: Ctx): Unit {
  const { values, missing } = collect(sel, src, ctx)
  if (missing.length) return missingUnit(missing, values)
  const per = values.map((v) => {
    const xs = [...v.repeats.values()]
    return { v, n: xs.length, d: xs.length >= 2 ? Math.max(...xs) / Math.min(...xs) - 1 : null }
  })
  const decided = per.filter((x) => x.d !== null && Number.isFinite(x.d))
  const over = decided.filter((x) => x.d! > max)
  const worst = [...decided].sort((x, y) => y.d! - x.d!)[0]
  const one = per.filter((x) => x.d === null).length
  const state: State = over.length ? 'fails' : one ? 'undecided' : 'holds'
  const text = `${decided.length - over.length} of ${per.length} cells within ${pct(max)} between repeats${one ? ` (${one} with 1 repeat)` : ''}`
    + `${worst ? `; worst ${cellLabel(worst.v.cell)} ${pct(worst.d!)}` : ''}${over.length > 1 ? `, ${over.length} cells over` : ''}; wanted every cell <= ${pct(max)}`
  return { state, text, used: values }
}

/**
 * Every matched cell has an allowed status (and, with `reason`, every row of it a reason the
 * regex matches). A disallowed status refutes the claim; an allowed status whose rows give
 * another reason (a proxy that did not start, not the refusal claimed) tested nothing, so the
 * unit is not measured, as a missing cell is. A cell whose most common statuses tie between an
 * allowed and a disallowed one (1 valid, 1 failed) decides nothing: the unit is undecided.
 */
function statusUnit(sel: Selector, allowed: readonly string[], reason: string | undefined, src: Source, ctx: Ctx): Unit {
  const cells: CellGroup[] = []
  const missing: string[] = []
  for (const spec of sel) {
    const m = matchSelector(ctx.cells[src.table], spec)
    missing.push(...m.missing)
    for (const c of m.cells) if (!cells.includes(c)) cells.push(c)
  }
  const used: CellValue[] = cells.map((cell) => ({ cell, metric: 'status', value: null, n: cell.rows.length, excluded: 0, repeats: new Map() }))
  // A tie counts as each of its statuses: wrong only if all are, undecided if some are.
  const statuses = (c: CellGroup) => statusTie(c.rows) ?? [c.status]
  const wrong = cells.filter((c) => statuses(c).every((st) => !allowed.includes(st)))
  const tied = cells.filter((c) => statuses(c).some((st) => !allowed.includes(st)) && statuses(c).some((st) => allowed.includes(st)))
  const re = reason === undefined ? undefined : new RegExp(reason)
  const shown = cells.map((c) => `${cellLabel(c)}: ${c.status}${statusCounts(c)}${re ? reasonsOf(c) : ''}`)
  const wanted = `wanted ${allowed.join(' or ')}${re ? ` with every reason matching /${reason}/` : ''}`
  // A measured cell with a status the claim rules out refutes it even when another cell is absent.
  if (wrong.length) return { state: 'fails', text: `${shown.join(', ')}${missing.length ? ` (${missing.join('; ')})` : ''}; ${wanted}`, used }
  const otherCause = re ? cells.filter((c) => c.rows.some((r) => !re.test(r.reason))) : []
  for (const c of otherCause) {
    const n = c.rows.filter((r) => !re!.test(r.reason)).length
    missing.push(`${cellLabel(c)}: ${n} of ${c.rows.length} rows give a reason not matching /${reason}/${reasonsOf(c)}`)
  }
  if (missing.length) return missingUnit(missing, used)
  return { state: tied.length ? 'undecided' : 'holds', text: `${shown.join(', ')}; ${wanted}`, used }
}

/** The distinct reasons of a cell's rows, for the report: ` ("upgrade failed: HTTP 400 × 200")`. */
function reasonsOf(c: CellGroup): string {
  const rs = [...new Set(c.rows.map((r) => r.reason))].map((r) => (r === '' ? 'no reason' : JSON.stringify(r)))
  return ` (${rs.join(', ')})`
}

function countStatuses(c: CellGroup): [string, number][] {
  const counts = new Map<string, number>()
  for (const r of c.rows) counts.set(r.status, (counts.get(r.status) ?? 0) + 1)
  return [...counts]
}

function statusCounts(c: CellGroup): string {
  const by = countStatuses(c)
  return by.length > 1 ? ` (${by.map(([s, n]) => `${n} ${s}`).join(', ')}${statusTie(c.rows) ? ': a tie' : ''})` : ''
}

/** An order in words, each value with its interval; `≈` between neighbours whose intervals overlap. */
function showOrder(order: readonly ProxyGroup[], by: 'asc' | 'desc'): string {
  return order.map((x, i) => `${i === 0 ? '' : apart(order[i - 1]!.fig, x.fig) ? (by === 'desc' ? ' > ' : ' < ') : ' ≈ '}${x.proxy} ${fmtFig(x.fig)}`).join('')
}

function sortGroups<T extends { proxy: string; value: number }>(groups: T[], by: 'asc' | 'desc'): T[] {
  return [...groups].sort((x, y) => (by === 'desc' ? y.value - x.value : x.value - y.value) || x.proxy.localeCompare(y.proxy))
}

function placeWord(place: number, n: number): string {
  const p = place > 0 ? place : n + 1 + place
  if (place === -1 || p === n) return place > 0 ? `${ordinal(p)} (last)` : 'last'
  return ordinal(p)
}

const ordinal = (p: number) => `${p}${p % 10 === 1 && p % 100 !== 11 ? 'st' : p % 10 === 2 && p % 100 !== 12 ? 'nd' : p % 10 === 3 && p % 100 !== 13 ? 'rd' : 'th'}`
