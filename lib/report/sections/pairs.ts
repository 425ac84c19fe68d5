import {
  type Change,
  CODE_PATH_COUNTS,
  detectablePct,
  detectableText,
  type PairBasis,
  machineChange,
  type PairedCell,
  type ProxyChange,
  proxyChanges,
  TIMING_COUNTS,
} from '../../analysis/pairs.ts'
import type { ThenSide, ThenSides } from '../../data/then.ts'
import { changeCellLabel } from '../baseline-changes.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { changeText } from '../history-chain.ts'
import { type Article, type Column, esc } from '../markdown.ts'
import type { ArticleInput, PairsInput } from './input.ts'

/**
 * A run made --like a baseline, read as pairs (docs/report.md#then-and-now-measured-side-by-side,
 * docs/method/pairs.md): per proxy its change now / then measured inside this run, the
 * machine's change on the baseline's binaries apart, then the cells, the code-path counts and
 * which build ran as then.
 */

export const PAIRS_TITLE = 'Then and now, measured side by side'

const UNIT: Record<PairedCell['table'], string> = { measurements: 'request', handshakes: 'handshake', websocket: 'message' }

/** `per request`, `per request and handshake`: the units of a proxy's cells. */
function perUnits(cells: readonly PairedCell[]): string {
  const units = [...new Set(cells.map((c) => UNIT[c.table]))]
  return `per ${units.length > 1 ? `${units.slice(0, -1).join(', ')} and ${units.at(-1)}` : (units[0] ?? 'request')}`
}

const cellsText = (n: number) => `${n} cell${n === 1 ? '' : 's'}`

/**
 * `costs 12% less than 2.8.25 [6%, 18%]` (timed), `does 3.1% less work than 2.8.25 [2.9%, 3.3%]`
 * (counted): a decided change, its interval on the same side of 1.
 */
function costsText(c: Change, then: string, basis: PairBasis): string {
  const less = c.value < 1
  const [v, lo, hi] = less ? [1 - c.value, 1 - c.hi, 1 - c.lo] : [c.value - 1, c.lo - 1, c.hi - 1]
  // One decimal where the interval is narrower than 4 points, as the history's chain prints it.
  const digits = (hi - lo) * 100 < 4 ? 1 : 0
  const p = (x: number) => `${(x * 100).toFixed(digits)}%`
  const verb = basis === 'work' ? 'does' : 'costs'
  return `${verb} ${p(v)} ${less ? 'less' : 'more'}${basis === 'work' ? ' work' : ''} than ${then} ${esc(`[${p(lo)}, ${p(hi)}]`)}`
}

/** What a counted proxy's sentence adds: its time on this machine, the price of that work. */
const timeText = (p: ProxyChange) =>
  p.basis === 'work' ? `; on this machine its time ${p.time ? `changed ${esc(changeText(p.time))}` : 'was not paired'}, the machine's price of that work` : ''

/** What a proxy's sentence adds of a then side that is not the baseline's build beside today's. */
function sideCaveat(side: ThenSide | undefined, then: string): string {
  if (side?.how === 'substitute') return `; then is today's build of ${then}, standing in for the baseline's`
  // The same build is paired only in the cells whose config changed since the baseline (lib/series/then.ts).
  if (side?.how === 'same build') return "; the same build, run with the baseline's config where it changed"
  return ''
}

/** One proxy's change in one sentence, the answer first. */
function proxySentence(proxy: string, p: ProxyChange | undefined, side: ThenSide | undefined, cells: readonly PairedCell[]): string {
  const then = esc(side?.version ?? p?.thenVersion)
  const now = `${esc(proxy)} ${esc(side?.now_version ?? p?.nowVersion)}`
  if (side?.how === 'same build' && cells.length === 0) return `${now}: today's build and configs are the baseline's, measured once: no change to measure.`
  if (side?.how === 'not runnable') return `${now}: no change measured, the baseline's build of ${then} does not run here.`
  if (!p?.change) return `${now} against ${then}: too few repeats to tell a change (no cell has two paired rounds).`
  const read = cells.filter((c) => c.basis === p.basis)
  const how = `${perUnits(read)}, ${p.basis === 'work' ? 'instructions counted' : 'measured side by side'} in this run (${cellsText(p.cells)}${sideCaveat(side, then)})${timeText(p)}`
  return p.verdict === 'no change'
    ? `${now} against ${then}: no change${p.basis === 'work' ? ' in work' : ''} (${detectableText(p.detectable ?? 0)}) ${how}.`
    : `${now} ${costsText(p.change, then, p.basis)} ${how}.`
}

/** The then sides that ran the baseline's own binary: a substitute is another build, so its cells say nothing of the machine. */
const SAME_BINARY: readonly ThenSide['how'][] = ['same build', 'copy', 'catalog', 'archive']

/** The machine's change on the same binaries: then as measured today ÷ as the baseline recorded it. */
function machineSentence(pairs: PairsInput): string {
  if (pairs.baselineMissing) return `The machine's change is not known: ${esc(pairs.baselineMissing)}.`
  const id = esc(pairs.sides.baseline)
  const same = new Set(pairs.sides.sides.filter((s) => SAME_BINARY.includes(s.how)).map((s) => s.proxy))
  const m = machineChange(pairs.cells.filter((c) => same.has(c.proxy)))
  const shared = pairs.cells.filter((c) => c.sharedWindow && c.basis === 'time').length
  const sharedText = shared ? `${cellsText(shared)} measured at one instant left out, each side sharing the proxy's core with the other` : ''
  if (!m)
    return `The machine's change is not known: no cell the baseline's own builds ran here alone is in baseline ${id}'s tables${sharedText ? ` (${sharedText})` : ''}.`
  const f = (x: number) => x.toFixed(2)
  const other = pairs.cells.filter((c) => !same.has(c.proxy) && c.machine !== null).length
  const left = [other ? `${cellsText(other)} left out, their then not the baseline's binary` : '', sharedText]
    .filter(Boolean)
    .map((x) => `; ${x}`)
    .join('')
  return `On the same binaries this machine costs ${f(m.value)}× baseline ${id}'s ${esc(`[${f(m.lo)}, ${f(m.hi)}]`)} (range ${f(m.min)}–${f(m.max)}, ${cellsText(m.cells)}${left}).`
}

/**
 * The baseline's counts of its own binaries, counted again today: the same set-up must give the
 * same count (within the cell's interval), so a difference is the counting set-up's, never a proxy's.
 */
function countingSentence(pairs: PairsInput): string | null {
  const recounted = pairs.cells.filter((c) => c.basis === 'work' && c.machine !== null)
  if (recounted.length === 0) return null
  const id = esc(pairs.sides.baseline)
  // Outside the cell's own interval (its log half-width), not beyond its detectable change: a recount should agree to its precision.
  const off = recounted.filter((c) => c.setupChanged || Math.abs(Math.log(c.machine!)) > (c.change ? Math.log(c.change.hi / c.change.value) : 0))
  const widest = Math.max(...recounted.map((c) => Math.abs(c.machine! - 1)))
  const head = `Baseline ${id}'s binaries counted again today: ${cellsText(recounted.length)}`
  if (off.length === 0) return `${head}, all agreeing with the baseline's own counts (largest difference ${(widest * 100).toFixed(2)}%).`
  const setups = [...new Set(off.map((c) => c.setupChanged).filter(Boolean))]
  return `${head}; ${off.length} differ from the baseline's own counts by up to ${(widest * 100).toFixed(1)}%: a change of the counting set-up${setups.length ? ` (the baseline counted with ${esc(setups.join(' / '))})` : ''}, not of the proxies.`
}

/**
 * The sentences of a paired run: per proxy its change, then the machine's. One home for them:
 * the answer (answer.ts) and this section print the same words.
 */
export function pairSentences(pairs: PairsInput): { proxies: string[]; machine: string; counting: string | null } {
  // proxyChanges over the cells alone, as the history's chain reads them: the same figures in both pages.
  const changes = new Map(proxyChanges(pairs.cells).map((p) => [p.proxy, p]))
  const proxies = [...new Set([...pairs.sides.sides.map((s) => s.proxy), ...pairs.cells.map((c) => c.proxy)])]
  return {
    proxies: proxies.map((proxy) =>
      proxySentence(
        proxy,
        changes.get(proxy),
        pairs.sides.sides.find((s) => s.proxy === proxy),
        pairs.cells.filter((c) => c.proxy === proxy),
      ),
    ),
    machine: machineSentence(pairs),
    counting: countingSentence(pairs),
  }
}

/** The section of a paired run; none for a run without a then side. */
export function pairsSection(a: Article, input: ArticleInput): ChartRequest[] {
  const pairs = input.pairs
  if (!pairs) return []
  const id = esc(pairs.sides.baseline)
  const sentences = pairSentences(pairs)
  a.heading(2, PAIRS_TITLE)
  a.bullets(sentences.proxies)
  a.para(sentences.machine)
  if (sentences.counting) a.para(sentences.counting)
  a.para(
    `This run measured today's build of each proxy (now) beside baseline **${id}**'s build and config (then) in the same rounds, each then window next to its now window, so the machine's drift between runs cancels in each pair (docs/method/pairs.md). A proxy's change averages its cells' log changes, each cell weighing the same, its interval family-wise 95% over the proxies; the machine's is then as measured today ÷ as baseline ${id} recorded it, the median over the cells with its interval and range.`,
  )
  if (pairs.sides.pair_same)
    a.para("**A/A check** (--pair-same): then is a copy of today's build, so every change is noise and a flagged cell is a false alarm.")
  cellTable(a, pairs.cells)
  countsTable(a, pairs.cells, id)
  sidesList(a, pairs.sides)
  return []
}

/** A cell without its proxy (the table has a column for it). */
const cellName = (c: PairedCell) => changeCellLabel({ ...c.key, proxy: null })
const proxyColumns: Column<PairedCell>[] = [
  { title: 'proxy', value: (c) => c.proxy },
  { title: 'cell', value: cellName },
]

function cellTable(a: Article, cells: readonly PairedCell[]) {
  a.para(
    "Per cell, now ÷ then of what it measures: *work*, the instructions counted per request or handshake (its interval from the counted rounds of both sides, family-wise 95% over the work cells); *time*, the proxy CPU per request (per handshake, per message) over the rounds where both windows were valid, family-wise 95% over every timed cell of the run with two pairs, whatever its table, its noise pooled per table and load model. *Detectable at 80% power*: the change this run finds 4 times in 5, two-sided at the interval's family-wise level; *machine*: then as measured today ÷ the baseline's record (of a work cell: the same binary counted again, so it must be 1).",
  )
  a.table(
    'pairs',
    [
      ...proxyColumns,
      { title: 'table', value: (c) => c.table, csvOnly: true },
      { title: 'measures', value: (c) => c.basis },
      { title: 'then → now', value: (c) => `${c.thenVersion} → ${c.nowVersion}` },
      { title: 'change [95%]', value: (c) => (c.change ? changeText(c.change) : '—') },
      { title: 'now ÷ then', value: (c) => c.change?.value ?? null, csvOnly: true },
      { title: 'lo', value: (c) => c.change?.lo ?? null, csvOnly: true },
      { title: 'hi', value: (c) => c.change?.hi ?? null, csvOnly: true },
      { title: 'verdict', value: (c) => c.verdict },
      { title: 'detectable at 80% power', value: (c) => (c.detectable === null ? null : detectablePct(c.detectable)) },
      { title: 'pairs', value: (c) => c.pairs },
      {
        title: 'machine',
        value: (c) => c.machine,
        show: (c) =>
          c.machine === null ? '—' : c.basis === 'work' ? `${c.machine.toFixed(4)}×${c.setupChanged ? ' (set-up changed)' : ''}` : `${c.machine.toFixed(2)}×`,
      },
    ],
    cells,
    'No cell of this run has a then twin with a valid row.',
  )
}

const COUNT_NAMES: Record<(typeof CODE_PATH_COUNTS)[number] | (typeof TIMING_COUNTS)[number], string> = {
  backend_conns_per_1k_req: 'conns/1k',
  proxy_syscalls_per_req: 'syscalls',
  proxy_ctxsw_per_req: 'ctx sw',
  proxy_user_us_per_req: 'user µs',
  proxy_sys_us_per_req: 'sys µs',
}

/** The code-path counts side by side (now, then today, the baseline's record); the timing counts in the CSV, within the run only. */
function countsTable(a: Article, cells: readonly PairedCell[], id: string) {
  const counted = cells.filter((c) => CODE_PATH_COUNTS.some((k) => c.counts[k]?.now != null || c.counts[k]?.thenToday != null))
  a.para(
    `Counts per request that the code path fixes (backend connections per 1000 requests, system calls), now beside then today and then today beside baseline ${id}'s record. Timing counts (context switches, the user/system split) follow how requests batch on this machine, so they are compared within this run only (in the CSV).`,
  )
  a.table(
    'pairs-counts',
    [
      ...proxyColumns,
      ...CODE_PATH_COUNTS.flatMap((k): Column<PairedCell>[] => [
        { title: `${COUNT_NAMES[k]} now`, value: (c) => c.counts[k]?.now ?? null },
        { title: `${COUNT_NAMES[k]} then`, value: (c) => c.counts[k]?.thenToday ?? null },
        { title: `${COUNT_NAMES[k]} baseline`, value: (c) => c.counts[k]?.baseline ?? null },
      ]),
      ...TIMING_COUNTS.flatMap((k): Column<PairedCell>[] => [
        { title: `${COUNT_NAMES[k]} now`, value: (c) => c.counts[k]?.now ?? null, csvOnly: true },
        { title: `${COUNT_NAMES[k]} then`, value: (c) => c.counts[k]?.thenToday ?? null, csvOnly: true },
      ]),
    ],
    counted,
    'No paired cell recorded a code-path count.',
  )
}

/** What a reader must know of a then side that is not the baseline's binary. */
const WARNINGS: Partial<Record<ThenSide['how'], string>> = {
  substitute:
    "then is today's build of the baseline's version, not the baseline's binary: its change holds the two builds' difference too, and it is left out of the machine's change",
  'not runnable': "no build of the baseline's version runs here, so its cells have no pairs",
}

/** Which build ran as then per proxy, from then/sides.json, with a warning line where it is not the baseline's. */
function sidesList(a: Article, sides: ThenSides) {
  a.para('Which build ran as then (then/sides.json):')
  a.bullets(
    sides.sides.map((s) => `**${esc(s.how)}**: ${esc(s.note)}${s.configs === 'today' ? ". Then configs: today's templates (the baseline kept none)" : ''}`),
  )
  for (const s of sides.sides) {
    const warning = WARNINGS[s.how]
    if (warning) a.para(`**Warning:** ${esc(s.proxy)} ${esc(s.version)}: ${warning}.`)
  }
}
