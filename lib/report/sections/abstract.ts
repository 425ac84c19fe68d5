import type { CellSummary } from '../../analysis/cells.ts'
import type { ClaimResult } from '../../claims/evaluate.ts'
import { median } from '../../core/stats.ts'
import { markedLabel, verdictRank } from '../../core/verdict.ts'
import { type Article, esc, num } from '../markdown.ts'
import { articleName } from './common.ts'
import type { ArticleInput } from './input.ts'
import { mainCells } from './pooling.ts'

/**
 * What the run found, in words, before any code or tally (docs/report.md#answer-first): a
 * title that states it, three to five sentences generated from the cells and verdicts, the
 * cost of each proxy in the three pooling series, and the published claims by article and name.
 */

type Main = ReturnType<typeof mainCells>[number]
type Side = 'same' | 'added' | 'removed'

const cost = (c: CellSummary | undefined) => c?.summary?.median ?? null

/** Proxies with a figure in one series, cheapest first. */
function ranked(main: readonly Main[], side: Side): { proxy: string; us: number }[] {
  return main.flatMap((m) => (cost(m[side]) === null ? [] : [{ proxy: m.proxy, us: cost(m[side])! }])).sort((a, b) => a.us - b.us)
}

const us = (x: number) => `${num(x)} µs`
const range = (r: readonly { us: number }[]) => (r.length === 1 ? us(r[0]!.us) : `${num(r[0]!.us)}–${us(r.at(-1)!.us)}`)

/** `the 5 proxies`, or `the 3 proxies with a figure (of 5)` where some have none in a series. */
const whom = (r: readonly unknown[], main: readonly Main[]) =>
  r.length === main.length ? `the ${r.length} proxies` : `the ${r.length} proxies with a figure (of ${main.length})`

/** The title: the run's answer in one line, or what the run is when it has no pooling cells. */
export function abstractTitle(main: readonly Main[], runId: string): string {
  const same = ranked(main, 'same')
  if (same.length < 2) return `proxybench run ${runId}`
  const some = same.length < main.length ? ` (${same.length} of ${main.length} proxies measured)` : ''
  return `${same[0]!.proxy} costs least, ${same.at(-1)!.proxy} most: ${range(same)} of CPU per request as configured${some}`
}

/** The sentence of the costs: as configured, with a pool added, with it removed. */
function costSentence(main: readonly Main[]): string | null {
  const [same, added, removed] = (['same', 'added', 'removed'] as const).map((s) => ranked(main, s))
  if (!same!.length) return null
  const head =
    same!.length === 1
      ? `As configured, ${same![0]!.proxy} costs ${us(same![0]!.us)} of CPU per request`
      : `As configured, ${whom(same!, main)} cost ${range(same!)} of CPU per request, ${same![0]!.proxy} least and ${same!.at(-1)!.proxy} most`
  const pools = [
    added!.length ? `with a backend pool added to every proxy ${range(added!)}` : '',
    removed!.length ? `with the pool removed ${range(removed!)}` : '',
  ]
    .filter(Boolean)
    .join(', ')
  return `${head}${pools ? `; ${pools}` : ''}.`
}

/** The claims in one sentence: what reproduced and what did not, the rest counted. */
function claimsSentence(claims: readonly ClaimResult[]): string | null {
  if (!claims.length) return null
  const n = (v: ClaimResult['verdict']) => claims.filter((c) => c.verdict === v).length
  const undecided = n('inconclusive')
  const missing = n('not measured') + n('not runnable here')
  return `Of ${claims.length} published claims, ${n('reproduced')} reproduced here and ${n('not reproduced')} did not${undecided ? `; ${undecided} could not be decided at this run's precision` : ''}${missing ? `, ${missing} were not measured` : ''}.`
}

/**
 * A claim that did not reproduce, in words, with the one number its check computed: the primary
 * article's first (file 000), a claim of one figure before one of several.
 */
function surpriseSentence(claims: readonly ClaimResult[]): string | null {
  const not = claims.filter((c) => c.verdict === 'not reproduced')
  const rank = (c: ClaimResult) => (/^000_/.test(c.source) ? 0 : 2) + (c.value === null ? 1 : 0)
  const first = [...not].sort((a, b) => rank(a) - rank(b))[0]
  if (!first) return null
  // The first clause of what the run shows: a claim of one figure has one.
  const here = first.measured.split(/;\s/)[0]!
  return `Not reproduced, from ${articleName(first.source)}: "${esc(first.claim)}"; here ${esc(here)}.`
}

/** The precision of the run in one sentence: repeats, the intervals' real coverage, the median cell's half-width. */
function precisionSentence(main: readonly Main[]): string | null {
  const cells = main.flatMap((m) => [m.same, m.added, m.removed]).filter((c): c is CellSummary => !!c?.summary && c.ciHalfWidthPct !== null)
  if (!cells.length) return null
  const repeats = median(cells.map((c) => c.summary!.n))
  const level = median(cells.map((c) => c.ciLevel ?? 0.95))
  const half = median(cells.map((c) => c.ciHalfWidthPct!))
  return `Each figure is the median of ${num(repeats)} repeat${repeats === 1 ? '' : 's'}; its interval covers ${Math.round(level * 100)}% (95% needs 6 repeats) and spans ±${num(half, 2)}% on the median cell, so smaller differences are not told apart.`
}

/** The abstract's sentences (three to five where the run has them): costs, claims, a surprise, precision. */
export function abstractSentences(input: Pick<ArticleInput, 'aggregates' | 'claims'>, main = mainCells(input.aggregates)): string[] {
  return [costSentence(main), claimsSentence(input.claims), surpriseSentence(input.claims), precisionSentence(main)].filter((s): s is string => s !== null)
}

const withInterval = (c: CellSummary | undefined) => {
  const s = c?.summary
  if (!s) return '—'
  return s.n < 2 ? `${num(s.median)} (1 repeat)` : `${num(s.median)} [${num(s.ci[0])}–${num(s.ci[1])}]`
}

/** The answer table: µs of CPU per request of each proxy's newest version in the three pooling series, with intervals. */
export function answerTable(a: Article, main: readonly Main[]): void {
  if (!main.length) return
  a.para('[[class:costs]]')
  const level = median(main.flatMap((m) => [m.same, m.added, m.removed]).flatMap((c) => (c?.ciLevel ? [c.ciLevel] : [])))
  a.table(
    'answer',
    [
      { title: 'proxy', value: (r) => `${r.proxy} ${r.version}` },
      { title: `as configured µs/req [${Math.round((level || 0.95) * 100)}%]`, value: (r) => withInterval(r.same) },
      { title: 'pool added', value: (r) => withInterval(r.added) },
      { title: 'pool removed', value: (r) => withInterval(r.removed) },
    ],
    [...main].sort((x, y) => (cost(x.same) ?? Infinity) - (cost(y.same) ?? Infinity)),
  )
}

/** The claims by article: those that reproduced and those that did not, each by its words; the rest counted. */
export function claimsByArticle(a: Article, claims: readonly ClaimResult[]): void {
  for (const source of [...new Set(claims.map((c) => c.source))]) {
    const mine = claims.filter((c) => c.source === source)
    const decided = mine
      .filter((c) => c.verdict === 'reproduced' || c.verdict === 'not reproduced')
      .sort((x, y) => verdictRank(x.verdict) - verdictRank(y.verdict))
    const rest = mine.length - decided.length
    a.para(
      `**${articleName(source)}**: ${mine.length} claims, ${decided.filter((c) => c.verdict === 'reproduced').length} reproduced, ${decided.filter((c) => c.verdict === 'not reproduced').length} not${rest ? `, ${rest} undecided or not measured ([ledger](#claims-ledger))` : ''}.`,
    )
    a.bullets(decided.map((c) => `${markedLabel(c.verdict)}: ${esc(c.claim)}`))
  }
}
