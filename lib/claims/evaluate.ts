/**
 * Evaluates the claims ledger against one run's rows: a verdict per claim with the
 * numbers behind it. Side-effect free. The check kinds and the verdict rule are the ones
 * documented in the header of baselines/published/claims.yaml:
 *
 * - reproduced / not reproduced: every needed cell is there and the check holds / fails;
 * - not measured: a needed cell is absent (or has no value, e.g. no valid row, or in a
 *   status check with `reason` its rows failed for another reason), and nothing measured
 *   refutes the claim. A missing cell never makes a claim "not reproduced";
 * - not runnable here: runnable_here: false.
 *
 * A check with for_each (or a status check with several cells) is several units; the claim
 * is not reproduced if any unit fails, else not measured if any unit lacks a cell.
 */
import { compareVersions } from '../catalog/stack.ts'
import type { RunTables } from '../data/run-data.ts'
import { aggregate, buildCellGroups, cellLabel, cellValue, matchSelector, shownSeries, type CellGroup, type CellValue } from './cells.ts'
import { evalNumber, type FigureValues } from './expr.ts'
import type { Agg, Check, Claim, ClaimTable, Ledger, Selector, SelectorSpec } from './ledger.ts'


export type Verdict = 'reproduced' | 'not reproduced' | 'not measured' | 'not runnable here'

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
    },
  }
  return ledger.claims.map((c) => evaluateClaim(c, ctx))
}

// ------------------------------------------------------------------ internals

interface Ctx {
  figures: FigureValues
  cells: Record<ClaimTable, CellGroup[]>
}

type State = 'holds' | 'fails' | 'missing'

interface Unit {
  state: State
  text: string
  value?: number
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
    return { ...base, verdict: 'not runnable here', measured: claim.not_runnable_reason ?? 'not runnable here', evidence: [], warnings: [], value: null, reference: null }
  }
  const items: (SelectorSpec | undefined)[] = k.for_each ?? [undefined]
  const units = items.flatMap((item) => {
    const us = checkUnits(k, item, ctx)
    const prefix = item && items.length > 1 ? `${itemLabel(item)}: ` : ''
    return us.map((u) => ({ ...u, text: prefix + u.text }))
  })
  const verdict: Verdict = units.some((u) => u.state === 'fails') ? 'not reproduced' : units.some((u) => u.state === 'missing') ? 'not measured' : 'reproduced'
  const used = dedupe(units.flatMap((u) => u.used))
  return {
    ...base,
    verdict,
    measured: measuredText(units),
    evidence: used.map((v) => ({ table: v.cell.table, cell: { ...v.cell.key }, value: v.value, n: v.n, status: v.cell.status })),
    warnings: [...new Set(used.flatMap(cellWarnings))],
    value: units.length === 1 && units[0]!.state !== 'missing' ? (units[0]!.value ?? null) : null,
    reference: units.length === 1 && units[0]!.state !== 'missing' ? (units[0]!.reference ?? null) : null,
  }
}

/** The units in words; what is missing is prefixed "not measured:" once (all missing) or per unit. */
function measuredText(units: Unit[]): string {
  const allMissing = units.every((u) => u.state === 'missing')
  const text = units.map((u) => (u.state === 'missing' && !allMissing ? `not measured: ${u.text}` : u.text)).join('; ')
  return allMissing ? `not measured: ${text}` : text
}

/** A for_each item in words: its values ("rsa2048", "haproxy"). */
function itemLabel(item: SelectorSpec): string {
  return Object.values(item.columns).map((v) => (Array.isArray(v) ? v.join('+') : typeof v === 'object' ? JSON.stringify(v) : String(v))).join(' ')
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
  values: CellValue[]
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
      values.push(cellValue(c, metric, src.rows))
    }
  }
  for (const v of values) if (v.value === null) missing.push(noValue(v, src.rows))
  return { values, missing }
}

const aggOf = (sel: Selector): Agg => sel.find((s) => s.agg)?.agg ?? 'median'

function side(sel: Selector, src: Source, ctx: Ctx): Side {
  const constant = sel.length === 1 ? sel[0]!.value : undefined
  if (constant !== undefined) {
    return { value: evalNumber(constant, ctx.figures), label: typeof constant === 'number' ? 'constant' : 'published', metric: undefined, values: [], missing: [] }
  }
  const { values, missing } = collect(sel, src, ctx)
  const agg = aggOf(sel)
  return { value: missing.length ? null : aggregate(values, agg), label: sideLabel(values, sel, agg), metric: sel[0]!.metric ?? src.metric, values, missing }
}

/** One value per proxy (several cells of a proxy are aggregated with the selector's agg). */
function perProxy(sel: Selector, src: Source, ctx: Ctx): { groups: { proxy: string; value: number }[]; values: CellValue[]; missing: string[] } {
  const { values, missing } = collect(sel, src, ctx)
  const agg = aggOf(sel)
  const proxies = [...new Set(values.map((v) => String(v.cell.key.proxy)))]
  const groups = missing.length ? [] : proxies.map((proxy) => ({ proxy, value: aggregate(values.filter((v) => v.cell.key.proxy === proxy), agg)! }))
  return { groups, values, missing }
}

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
  const label = parts.filter(Boolean).join(' ')
  return cells.length > 1 ? `${label} (${agg} of ${cells.length} cells)` : label
}

// ------------------------------------------------------------------ numbers in words

/** 3 significant digits below 1000, whole numbers with thousands separators above. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x)
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString('en-US')
  if (x === 0) return '0'
  return String(Number(x.toPrecision(3)))
}

const UNITS: Record<string, string> = {
  rps: 'rps', target_rps: 'rps', proxy_cpu_us_per_req: 'µs/req', backend_cpu_us_per_req: 'µs/req', proxy_cpu_us_per_handshake: 'µs/handshake',
  proxy_cpu_us_per_msg: 'µs/msg', backend_conns_per_1k_req: 'conns/1k req', errors_pct: '%', errors: 'errors', conns_established: 'conns',
  conns_target: 'conns', proxy_cpu_share: 'of the proxy cores', generator_cpu_share: 'generator CPU share', rate: 'handshakes/s', msg_rate: 'msg/s',
  resumed: 'resumed', handshakes: 'handshakes', requests: 'requests', messages: 'messages', max_vus: 'VUs', dropped: 'dropped',
}
const unitOf = (metric: string | undefined) => (metric === undefined ? '' : (UNITS[metric] ?? (metric.endsWith('_ms') ? 'ms' : metric)))
const withUnit = (x: number, metric: string | undefined) => {
  const u = unitOf(metric)
  return u === '%' ? `${fmt(x)}%` : u ? `${fmt(x)} ${u}` : fmt(x)
}
const pct = (x: number) => `${fmt(x * 100)}%`

const missingUnit = (missing: string[], used: CellValue[]): Unit => ({ state: 'missing', text: [...new Set(missing)].join('; '), used })

// ------------------------------------------------------------------ check kinds

function checkUnits(k: Check, item: SelectorSpec | undefined, ctx: Ctx): Unit[] {
  const src: Source = { table: k.table, metric: k.metric, rows: k.rows }
  const num = (v: number | string) => evalNumber(v, ctx.figures)
  switch (k.kind) {
    case 'ratio':
    case 'equal': {
      const a = side(layer(k.select, item, k.a), src, ctx)
      const b = side(layer(k.select, item, k.b), src, ctx)
      const used = [...a.values, ...b.values]
      if (a.missing.length || b.missing.length) return [missingUnit([...a.missing, ...b.missing], used)]
      const r = a.value! / b.value!
      const sameUnit = unitOf(a.metric ?? b.metric) === unitOf(b.metric ?? a.metric)
      const show = (s: Side) => (sameUnit ? fmt(s.value!) : withUnit(s.value!, s.metric))
      const unitTail = sameUnit && unitOf(a.metric ?? b.metric) ? (unitOf(a.metric ?? b.metric) === '%' ? '%' : ` ${unitOf(a.metric ?? b.metric)}`) : ''
      const detail = `(${a.label} ${show(a)} / ${b.label} ${show(b)}${unitTail})`
      if (k.kind === 'equal') {
        const tol = num(k.tolerance)
        const holds = Number.isFinite(r) && Math.abs(r - 1) <= tol
        return [{ state: holds ? 'holds' : 'fails', text: `a/b = ${fmt(r)} ${detail}; wanted ${fmt(1 - tol)}..${fmt(1 + tol)} (±${pct(tol)})`, used, value: r, reference: 1 }]
      }
      const wanted: string[] = []
      let holds = Number.isFinite(r)
      let reference: number | undefined
      const min = k.min === undefined ? undefined : num(k.min)
      const max = k.max === undefined ? undefined : num(k.max)
      if (min !== undefined || max !== undefined) {
        if (min !== undefined && !(r >= min)) holds = false
        if (max !== undefined && !(r <= max)) holds = false
        wanted.push(min !== undefined && max !== undefined ? `${fmt(min)}..${fmt(max)}` : min !== undefined ? `>= ${fmt(min)}` : `<= ${fmt(max!)}`)
      }
      if (k.approx !== undefined) {
        const approx = num(k.approx)
        reference = approx
        const tol = num(k.tolerance!)
        if (!(Math.abs(r / approx - 1) <= tol)) holds = false
        const [lo, hi] = [approx * (1 - tol), approx * (1 + tol)].sort((x, y) => x - y)
        wanted.push(`${fmt(lo!)}..${fmt(hi!)} (≈ ${fmt(approx)} ±${pct(tol)})`)
      }
      return [{ state: holds ? 'holds' : 'fails', text: `r = ${fmt(r)} ${detail}; wanted ${wanted.join(' and ')}`, used, value: r, ...(reference !== undefined && { reference }) }]
    }
    case 'spread': {
      const sel = layer(k.select, item)
      const g = perProxy(sel, src, ctx)
      if (g.missing.length) return [missingUnit(g.missing, g.values)]
      if (g.groups.length < 2) return [missingUnit([`a spread needs at least 2 proxies, found ${g.groups.map((x) => x.proxy).join(', ') || 'none'}`], g.values)]
      const vs = g.groups.map((x) => x.value)
      const s = Math.max(...vs) / Math.min(...vs) - 1
      const max = num(k.max)
      const list = g.groups.map((x) => `${x.proxy} ${fmt(x.value)}`).join(', ')
      return [{ state: s <= max ? 'holds' : 'fails', text: `s = ${fmt(s)} (${list} ${unitOf(sel[0]!.metric ?? k.metric)}); wanted <= ${fmt(max)}`, used: g.values, value: s, reference: max }]
    }
    case 'rank': {
      const sel = layer(k.select, item)
      const g = perProxy(sel, src, ctx)
      if (g.missing.length) return [missingUnit(g.missing, g.values)]
      const order = sortGroups(g.groups, k.by)
      const shown = `by ${sel[0]!.metric ?? k.metric} ${k.by}: ${order.map((x) => `${x.proxy} ${fmt(x.value)}`).join(k.by === 'desc' ? ' > ' : ' < ')}`
      if (k.positions) {
        const n = order.length
        const absent = Object.keys(k.positions).filter((p) => !order.some((x) => x.proxy === p))
        if (absent.length) return [missingUnit(absent.map((p) => `no cell for ${p}`), g.values)]
        const wrong = Object.entries(k.positions).flatMap(([p, places]) => {
          const at = order.findIndex((x) => x.proxy === p) + 1
          return places.some((pl) => (pl > 0 ? pl : n + 1 + pl) === at) ? [] : [`${p} is ${placeWord(at, n)}, wanted ${places.map((pl) => placeWord(pl, n)).join(' or ')}`]
        })
        const wanted = Object.entries(k.positions).map(([p, places]) => `${p} ${places.map((pl) => placeWord(pl, n)).join('/')}`).join(', ')
        return [{ state: wrong.length ? 'fails' : 'holds', text: `${shown}${wrong.length ? ` (${wrong.join('; ')})` : ''}; wanted ${wanted}`, used: g.values }]
      }
      const ref = k.same_order_as!
      const proxies = order.map((x) => x.proxy)
      const refSel = layer(ref.select, { columns: { proxy: proxies } })
      const rg = perProxy(refSel, { table: ref.table, metric: ref.metric, rows: ref.rows }, ctx)
      const used = [...g.values, ...rg.values]
      if (rg.missing.length) return [missingUnit(rg.missing, used)]
      const refOrder = sortGroups(rg.groups, ref.by)
      const same = refOrder.map((x) => x.proxy).join() === proxies.join()
      const refShown = `by ${ref.metric} ${ref.by}: ${refOrder.map((x) => `${x.proxy} ${fmt(x.value)}`).join(ref.by === 'desc' ? ' > ' : ' < ')}`
      return [{ state: same ? 'holds' : 'fails', text: `${shown}; ${refShown}${same ? '' : ' (a different order)'}`, used }]
    }
    case 'threshold': {
      const s = side(layer(k.select, item), src, ctx)
      if (s.missing.length) return [missingUnit(s.missing, s.values)]
      const want = num(k.value)
      const v = s.value!
      const holds = k.op === '<' ? v < want : k.op === '<=' ? v <= want : k.op === '>' ? v > want : k.op === '>=' ? v >= want : v === want
      return [{ state: holds ? 'holds' : 'fails', text: `${s.label}: ${withUnit(v, s.metric)}; wanted ${k.op} ${fmt(want)}`, used: s.values, value: v, reference: want }]
    }
    case 'count': {
      const tol = k.tolerance === undefined ? 0 : num(k.tolerance)
      const s = side(layer(k.select, item), src, ctx)
      if (s.missing.length) return [missingUnit(s.missing, s.values)]
      if (k.value === 'conns_target') {
        // Each cell against its own target.
        const per = s.values.map((v) => ({ v, target: Number(v.cell.key.conns_target), holds: Math.abs(v.value! - Number(v.cell.key.conns_target)) <= tol }))
        const text = per.map((x) => `${cellLabel(x.v.cell)}: ${fmt(x.v.value!)} of ${fmt(x.target)} ${unitOf(s.metric)}`).join(', ')
        const one = per.length === 1 ? { value: per[0]!.v.value!, reference: per[0]!.target } : {}
        return [{ state: per.every((x) => x.holds) ? 'holds' : 'fails', text: `${text}; wanted the target ±${fmt(tol)}`, used: s.values, ...one }]
      }
      const want = num(k.value)
      const targets = [...new Set(s.values.map((v) => v.cell.key.conns_target).filter((t) => t !== undefined))]
      return [{
        state: Math.abs(s.value! - want) <= tol ? 'holds' : 'fails',
        text: `${s.label}: ${withUnit(s.value!, s.metric)}${targets.length ? ` (target ${targets.join('+')})` : ''}; wanted ${fmt(want)} ±${fmt(tol)}`,
        used: s.values,
        value: s.value!,
        reference: want,
      }]
    }
    case 'status':
      return k.cells.map((entry) => statusUnit(layer(k.select, item, entry.select), entry.status, entry.reason, src, ctx))
  }
}

/**
 * Every matched cell has an allowed status (and, with `reason`, every row of it a reason the
 * regex matches). A disallowed status refutes the claim; an allowed status whose rows give
 * another reason (a proxy that did not start, not the refusal claimed) tested nothing, so the
 * unit is not measured, as a missing cell is.
 */
function statusUnit(sel: Selector, allowed: readonly string[], reason: string | undefined, src: Source, ctx: Ctx): Unit {
  const cells: CellGroup[] = []
  const missing: string[] = []
  for (const spec of sel) {
    const m = matchSelector(ctx.cells[src.table], spec)
    missing.push(...m.missing)
    for (const c of m.cells) if (!cells.includes(c)) cells.push(c)
  }
  const used: CellValue[] = cells.map((cell) => ({ cell, metric: 'status', value: null, n: cell.rows.length, excluded: 0 }))
  const wrong = cells.filter((c) => !allowed.includes(c.status))
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
  return { state: 'holds', text: `${shown.join(', ')}; ${wanted}`, used }
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
  return by.length > 1 ? ` (${by.map(([s, n]) => `${n} ${s}`).join(', ')})` : ''
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
