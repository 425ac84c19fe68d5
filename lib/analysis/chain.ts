/**
 * History as a chain of pairs (docs/report.md#proxy-cost-across-years-measured-in-pairs).
 * Absolute µs of different runs do not compare: one machine drifts 15-40% between runs. A
 * paired run measures "then" (a baseline's exact binary and config) and "now" (today's build)
 * side by side, so each run gives, per proxy, one *link*: now / then with its interval, from
 * within one run. Chaining the links gives a long-run index; the machine's own change (the
 * "then" side measured today against the baseline's record of it) is a separate series, never
 * multiplied into the proxy index. Pure: runLinks reads a run's links from its paired cells
 * (lib/analysis/pairs.ts proxyChanges and machineChange).
 */
import type { RunTables } from '../data/run-data.ts'
import { machineChange, type PairBasis, type PairedRun, pairedCells, proxyChanges } from './pairs.ts'

/** One run's within-run comparison of one proxy against the run it was paired with. */
export interface PairedLink {
  /** The run that measured the pair (the link's right end). */
  runId: string
  /** ISO date of that run. */
  date: string | null
  /** The run its "then" side came from (the link's left end). */
  baselineId: string
  proxy: string
  /** What the change reads: instructions counted (work, chained across years) or proxy CPU µs (time, each run's machine's price). */
  basis: PairBasis
  thenVersion: string
  nowVersion: string
  /**
   * now / then, of the counted instructions or the proxy CPU µs per request: the mean of the
   * proxy's cells' log changes, each cell the same weight (lib/analysis/pairs.ts proxyChanges).
   */
  ratio: number
  /** Interval of that ratio, family-wise 95% over the run's proxies of this basis. */
  lo: number
  hi: number
  /** Cells the proxy ratio is pooled from. */
  cells: number
  /** How the run measured (its profile, runtime, data schema), in words; null where not known. */
  method: string | null
}

/** One run's machine change: the baseline's binaries measured today / as the baseline recorded them, the median over the timed cells with its order-statistics interval. */
export interface MachineLink {
  runId: string
  date: string | null
  baselineId: string
  ratio: number
  lo: number
  hi: number
  cells: number
}

/** What the history page takes: the pairing side's links (none until a paired run exists). */
export interface ChainLinks {
  proxy: readonly PairedLink[]
  machine: readonly MachineLink[]
}

export const NO_LINKS: ChainLinks = { proxy: [], machine: [] }

/**
 * One paired run's links, named by `runId` (its baseline id once promoted, so later runs paired
 * with it chain on): a proxy link where the proxy's change has an interval, a machine link where
 * `baseline` (the tables of the run it was paired with) gives the machine change.
 */
export function runLinks(runId: string, date: string | null, run: PairedRun, baseline?: RunTables, method: string | null = null): ChainLinks {
  if (!run.paired) return NO_LINKS
  const cells = pairedCells(run, baseline)
  const baselineId = run.paired.sides.baseline
  // One link per proxy and basis: work and time each chain on their own.
  const bases: PairBasis[] = ['work', 'time']
  const proxy = bases.flatMap((basis) =>
    proxyChanges(cells.filter((c) => c.basis === basis)).flatMap((p) =>
      p.change
        ? [
            {
              runId,
              date,
              baselineId,
              proxy: p.proxy,
              basis,
              thenVersion: p.thenVersion,
              nowVersion: p.nowVersion,
              ratio: p.change.value,
              lo: p.change.lo,
              hi: p.change.hi,
              cells: p.cells,
              method,
            },
          ]
        : [],
    ),
  )
  const m = machineChange(cells)
  return { proxy, machine: m ? [{ runId, date, baselineId, ratio: m.value, lo: m.lo, hi: m.hi, cells: m.cells }] : [] }
}

/** A ratio with its 95% interval. */
export interface RatioInterval {
  value: number
  lo: number
  hi: number
}

/**
 * One point of a proxy's chain. A segment starts at a baseline with index 1.0 [1.0, 1.0]
 * (`start`); each link then adds a point: `step` when its baseline is the point just before,
 * `branch` when its baseline is an earlier point (its index is that point's times its ratio:
 * a branch is exact, nothing is bridged). A link whose baseline is no point of the chain
 * starts a new segment: a `start` point at its baseline with `gap` saying why, then the link.
 * A link with an unusable ratio is kept as `unusable` (no index, `gap` says why); links made
 * against it start a new segment.
 */
export interface ChainPoint {
  proxy: string
  basis: PairBasis
  /** 0 for the segment that starts at the earliest baseline, 1 for the next, … */
  segment: number
  kind: 'start' | 'step' | 'branch' | 'unusable'
  /** The point's run (a start: the baseline the segment starts at). */
  runId: string
  date: string | null
  /** The link's left end; null at a start. */
  baselineId: string | null
  thenVersion: string | null
  nowVersion: string | null
  /** This link's own change (now / then in one run) and the cells it is pooled from; null at a start and when unusable. */
  step: (RatioInterval & { cells: number }) | null
  /** The long-run index: the product of the ratios since the segment's start, with its interval; null when unusable. */
  index: RatioInterval | null
  /** Why a segment starts here (a start after the first segment), or why a link is unusable. */
  gap: string | null
  /** How its run measured; null at a start. */
  method: string | null
  /** `before → now` where the method differs from the point this one extends: its change is read across that change of method. */
  methodChange: string | null
}

const t = (date: string | null) => (date ? Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date) : Number.POSITIVE_INFINITY)
const byDateThenRun = <L extends { date: string | null; runId: string; baselineId: string }>(a: L, b: L) =>
  t(a.date) - t(b.date) || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0) || (a.baselineId < b.baselineId ? -1 : a.baselineId > b.baselineId ? 1 : 0)

/** Why a ratio cannot be used, or null: positive, finite, lo ≤ ratio ≤ hi. */
export function unusableRatio(l: Pick<PairedLink, 'ratio' | 'lo' | 'hi'>): string | null {
  const ok = (x: number) => Number.isFinite(x) && x > 0
  if (!ok(l.ratio) || !ok(l.lo) || !ok(l.hi)) return `no usable ratio (${l.ratio} [${l.lo}, ${l.hi}]: each must be a positive number)`
  if (!(l.lo <= l.ratio && l.ratio <= l.hi)) return `no usable ratio (${l.ratio} is outside its interval [${l.lo}, ${l.hi}])`
  return null
}

/** The index at a point, kept on the log scale: log of the product and the sums of squared log half-widths below and above. */
interface LogIndex {
  log: number
  below: number
  above: number
}

const toInterval = (x: LogIndex): RatioInterval => ({
  value: Math.exp(x.log),
  lo: Math.exp(x.log - Math.sqrt(x.below)),
  hi: Math.exp(x.log + Math.sqrt(x.above)),
})

/**
 * One link on top of the index of its baseline. The links were measured in different runs,
 * each a within-run pair, so their errors are taken as independent: log half-widths add in
 * quadrature, the lower (log ratio − log lo) and the upper (log hi − log ratio) each on its
 * own, so an asymmetric link stays asymmetric in the index.
 */
const extend = (from: LogIndex, l: PairedLink): LogIndex => {
  const log = Math.log(l.ratio)
  return { log: from.log + log, below: from.below + (log - Math.log(l.lo)) ** 2, above: from.above + (Math.log(l.hi) - log) ** 2 }
}

const ORIGIN: LogIndex = { log: 0, below: 0, above: 0 }

/**
 * Each proxy's chain, proxies in name order. The rule, deterministic: a proxy's links are
 * taken by date, then run id (undated last); each link's baseline is looked up among the
 * points made so far. The point just before: a `step`. An earlier point (several runs paired
 * against the same baseline, or against a run that is itself a branch): a `branch`, its index
 * from that point. None: a new segment starts at the baseline with index 1.0 and a `gap`
 * reason (the first segment, at the earliest link's baseline, has none). A run reached by
 * two links keeps the index of the first.
 */
export function chainLinks(links: readonly PairedLink[]): ChainPoint[] {
  const proxies = [...new Set(links.map((l) => l.proxy))].sort()
  const bases: PairBasis[] = ['work', 'time']
  return proxies.flatMap((proxy) => bases.flatMap((basis) => chainOf(links.filter((l) => l.proxy === proxy && l.basis === basis).sort(byDateThenRun))))
}

/** One proxy's chain from its links in date order. */
function chainOf(links: readonly PairedLink[]): ChainPoint[] {
  const out: ChainPoint[] = []
  /** Each point's run: its index and segment (a start's: its baseline). */
  const reached = new Map<string, { at: LogIndex; segment: number; point: ChainPoint }>()
  let segments = 0
  for (const l of links) {
    const common = {
      proxy: l.proxy,
      basis: l.basis,
      runId: l.runId,
      date: l.date,
      baselineId: l.baselineId,
      thenVersion: l.thenVersion,
      nowVersion: l.nowVersion,
    }
    let from = reached.get(l.baselineId)
    if (!from) {
      const segment = segments++
      const gap =
        segment === 0 ? null : `${l.baselineId} is no point of the chain before (no usable paired link ends there): the index restarts at 1.0, not bridged`
      const point: ChainPoint = {
        proxy: l.proxy,
        basis: l.basis,
        segment,
        kind: 'start',
        runId: l.baselineId,
        date: null,
        baselineId: null,
        thenVersion: null,
        nowVersion: null,
        step: null,
        index: toInterval(ORIGIN),
        gap,
        method: null,
        methodChange: null,
      }
      out.push(point)
      from = { at: ORIGIN, segment, point }
      reached.set(l.baselineId, from)
    }
    const before = from.point.method
    const methodChange = before && l.method && before !== l.method ? `${before} → ${l.method}` : null
    const bad = unusableRatio(l)
    if (bad) {
      out.push({ ...common, segment: from.segment, kind: 'unusable', step: null, index: null, gap: bad, method: l.method, methodChange })
      continue
    }
    const here = extend(from.at, l)
    // The point just before is the baseline's own point: a step; an earlier one: a branch.
    const kind = out.at(-1) === from.point ? 'step' : 'branch'
    const point: ChainPoint = {
      ...common,
      segment: from.segment,
      kind,
      step: { value: l.ratio, lo: l.lo, hi: l.hi, cells: l.cells },
      index: toInterval(here),
      gap: null,
      method: l.method,
      methodChange,
    }
    out.push(point)
    if (!reached.has(l.runId)) reached.set(l.runId, { at: here, segment: from.segment, point })
  }
  return out
}

/** The machine's own change per run, by date then run id (undated last): a series apart, never multiplied into a proxy's index. */
export function machineSeries(links: readonly MachineLink[]): MachineLink[] {
  return [...links].sort(byDateThenRun)
}
