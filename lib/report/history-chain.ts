import type { PairBasis } from '../analysis/pairs.ts'
import { type ChainLinks, type ChainPoint, chainLinks, type MachineLink, machineSeries, type RatioInterval } from '../analysis/chain.ts'
import { type Article, esc } from './markdown.ts'

/*
 * The history page's section on the chain of pairs (docs/report.md#proxy-cost-across-years-measured-in-pairs):
 * per proxy, each paired run's change now / then (measured in one run) and the long-run index
 * they multiply to; the machine's own change on a line apart, never in the index.
 */

export const CHAIN_TITLE = 'Proxy cost across years, measured in pairs'

/** How to make the first link, in one line (what the section says while there is none). */
export const NO_PAIRS_LINE =
  "*No paired run yet. Make one with `npm run bench -- --like <baseline-id>`: it measures the baseline's exact binaries and configs and today's builds side by side in one run.*"

const MINUS = '\u2212'
/** A signed percentage: `+3%`, `−12%`, `0%`. */
const signed = (x: number, digits: number) => {
  const s = Math.abs(x).toFixed(digits)
  return Number(s) === 0 ? `${s}%` : `${x < 0 ? MINUS : '+'}${s}%`
}

/** A ratio as a change in %: `−12% [−18%, −5%]`; one decimal when the interval is narrower than 4 points. */
export function changeText(r: RatioInterval): string {
  const [v, lo, hi] = [r.value, r.lo, r.hi].map((x) => (x - 1) * 100) as [number, number, number]
  const digits = hi - lo < 4 ? 1 : 0
  return `${signed(v, digits)} [${signed(lo, digits)}, ${signed(hi, digits)}]`
}

/** A ratio as a factor: `1.32× [1.21, 1.40]`. */
export const factorText = (r: RatioInterval) => `${r.value.toFixed(2)}× [${r.lo.toFixed(2)}, ${r.hi.toFixed(2)}]`

/** How a point joins its chain, in words. */
function linkText(p: ChainPoint): string {
  if (p.kind === 'start') return p.gap ? `new segment: ${p.gap}` : 'start of the chain'
  if (p.kind === 'unusable') return `left out: ${p.gap}`
  if (p.kind === 'branch') return `branch from ${p.baselineId} (not the row above)`
  return `step from ${p.baselineId}`
}

const slug = (s: string) => s.replace(/[^a-z0-9]+/gi, '-').toLowerCase()
const machineLine = (ms: readonly MachineLink[]) =>
  ms.map((m) => `${esc(m.runId)} (vs ${esc(m.baselineId)}, ${m.cells} cells): ${esc(factorText({ value: m.ratio, lo: m.lo, hi: m.hi }))}`).join('; ')

/** What a chain's changes read: work crosses machines and chains; time is each run's machine's price of that work. */
const BASIS_LINE: Record<PairBasis, string> = {
  work: '*Work, counted:* instructions per request (per handshake) under callgrind, the same on any machine: this chain reads what the proxy does.',
  time: "*Time:* proxy CPU µs per request, paired in each run: the price of that work on each run's machine.",
}

/** One chain's rows: each step's change and the long-run index. */
function chainTable(a: Article, id: string, rows: readonly ChainPoint[]): void {
  a.table(
    id,
    [
      { title: 'run', value: (p: ChainPoint) => p.runId },
      { title: 'date', value: (p) => p.date?.slice(0, 10) ?? '—' },
      { title: 'then → now', value: (p) => (p.kind === 'start' ? '—' : `${p.thenVersion} → ${p.nowVersion}`) },
      { title: "this step's change", value: (p) => (p.step ? changeText(p.step) : '—') },
      { title: 'step ratio', value: (p) => p.step?.value ?? null, csvOnly: true },
      { title: 'step ratio lo', value: (p) => p.step?.lo ?? null, csvOnly: true },
      { title: 'step ratio hi', value: (p) => p.step?.hi ?? null, csvOnly: true },
      { title: 'cells', value: (p) => p.step?.cells ?? null, csvOnly: true },
      { title: 'long-run index', value: (p) => (p.index ? factorText(p.index) : '—') },
      { title: 'index', value: (p) => p.index?.value ?? null, csvOnly: true },
      { title: 'index lo', value: (p) => p.index?.lo ?? null, csvOnly: true },
      { title: 'index hi', value: (p) => p.index?.hi ?? null, csvOnly: true },
      { title: 'segment', value: (p) => p.segment, csvOnly: true },
      { title: 'link', value: (p) => linkText(p) },
      { title: 'method', value: (p) => p.method, show: (p) => (p.methodChange ? `**changed:** ${esc(p.methodChange)}` : esc(p.method ?? '—')) },
    ],
    rows,
  )
}

/** The section: one line while there is no paired run; else per proxy a table of its chain and its machine factors apart. */
export function chainSection(a: Article, links: ChainLinks): void {
  a.heading(2, CHAIN_TITLE)
  if (links.proxy.length === 0 && links.machine.length === 0) {
    a.para(NO_PAIRS_LINE)
    return
  }
  a.para(
    "Absolute µs of different runs are never compared here: one machine drifts 15-40% between runs. A paired run measures the baseline's exact binary and config (then) and today's build (now) side by side, so each row's change, now ÷ then with its 95% interval, comes from one run: of the instructions counted per request where the run counted work (a chain of its own, read first), else of the proxy CPU µs per request. " +
      "The long-run index multiplies the changes since the chain's start (1.00); its interval adds the changes' log half-widths in quadrature (the runs taken as independent). " +
      "A run paired with a baseline that is not the row above branches from that baseline's row; one paired with a baseline no row reaches starts a new segment at 1.00, never bridged. " +
      "The machine's own change (the baseline's binaries measured today ÷ as the baseline recorded them) is on a line apart, never in the index. " +
      'The method column names how each run measured (profile, runtime, data schema); where it changed from the row a link extends, it says so: that step is read across a change of method.',
  )
  if (links.proxy.length === 0) a.para(NO_PAIRS_LINE)
  const points = chainLinks(links.proxy)
  const machine = machineSeries(links.machine)
  for (const proxy of [...new Set(points.map((p) => p.proxy))]) {
    const own = points.filter((p) => p.proxy === proxy)
    a.heading(3, esc(proxy))
    for (const basis of [...new Set(own.map((p) => p.basis))]) {
      const rows = own.filter((p) => p.basis === basis)
      a.para(BASIS_LINE[basis])
      chainTable(a, `${basis === 'work' ? 'work' : 'pairs'}-${slug(proxy)}`, rows)
    }
    const runs = new Set(own.filter((p) => p.kind !== 'start').map((p) => p.runId))
    const ms = machine.filter((m) => runs.has(m.runId))
    a.para(
      ms.length
        ? `*Machine, apart (not in the index):* this machine vs the baseline's on the same binaries: ${machineLine(ms)}.`
        : '*Machine, apart:* no machine factor recorded for these runs.',
    )
  }
  const shown = new Set(points.map((p) => p.runId))
  const rest = machine.filter((m) => !shown.has(m.runId))
  if (rest.length) a.para(`*Machine factors of runs with no proxy link:* this machine vs the baseline's on the same binaries: ${machineLine(rest)}.`)
}
