import type { ClaimResult } from '../../claims/evaluate.ts'
import { CLAIM_VERDICTS, VERDICTS, type ClaimVerdict } from '../../core/verdict.ts'
import { fmtInterval, placeInterval, type Interval } from '../../core/intervals.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc } from '../markdown.ts'
import { shortBadge, slugify } from '../render.ts'
import { articleName, articleNumber, findingBadge } from './common.ts'
import type { ArticleInput, Finding } from './input.ts'
import { PICTURES } from './pictures.ts'
import type { CellChange } from '../baseline-changes.ts'
import { pairSentences } from './pairs.ts'
import { abstractSentences, abstractTitle, answerTable, claimsByArticle } from './abstract.ts'
import { mainCells } from './pooling.ts'

/**
 * The answer first (docs/report.md#answer-first): the title, one line of what was run, a
 * paragraph of what the run found, generated from the verdicts, and the verdict table: one row
 * per finding and per source article's claims, a coloured badge, the deciding figure with its
 * interval, the bound, and links to its picture, its section and its rows.
 */

/** Where each finding is shown: its picture (a key of PICTURES), its details section and the CSV of its cells. */
const PLACES: Record<string, { picture?: keyof typeof PICTURES; section: string; rows: string }> = {
  F1: { picture: 'pooling', section: 'The three pooling series', rows: 'pooling-cells' },
  F2: { picture: 'pooling', section: 'The three pooling series', rows: 'pooling-cells' },
  F3: { picture: 'pooling', section: 'The three pooling series', rows: 'pooling-cells' },
  pool: { picture: 'pooling', section: 'Backend pooling: documented and measured', rows: 'defaults' },
  cv: { section: 'The three pooling series', rows: 'pooling-cells' },
  F4: { section: 'nginx and HAProxy isolation', rows: 'isolation' },
  F7: { picture: 'versions', section: 'nginx and HAProxy isolation', rows: 'isolation' },
  F5: { picture: 'handshakes', section: 'TLS handshake cost', rows: 'handshake-cells' },
  F6: { picture: 'open', section: 'Open model and generator calibration', rows: 'open-model' },
  F8: { picture: 'websocket', section: 'WebSocket', rows: 'websocket-cells' },
  versions: { picture: 'versions', section: 'Versions', rows: 'versions' },
  S1: { section: 'S1 Plain HTTP and HTTPS', rows: 'scenarios-https-http' },
  S2: { section: 'S2 Access logs on', rows: 'scenarios-logging' },
  S3: { section: 'S3 A dynamic endpoint with a sized body', rows: 'scenarios-json' },
  S4: { section: 'S4 Connection counts', rows: 'scenarios-conns' },
  capacity: { section: 'Capacity', rows: 'capacity' },
  bisect: { section: 'Bisect: which release changed it?', rows: 'bisect' },
}

/** The Markdown of a heading as the page shows it (escapes dropped), for its anchor. */
const plain = (md: string) => md.replace(/\\(.)/g, '$1')

/** `#anchor` of a heading the article has, or null. */
function anchor(headings: readonly string[], text: string): string | null {
  return headings.some((h) => plain(h) === text) ? `#${slugify(text)}` : null
}

// A bound in a finding's title: an operator and a number that is not a version (1.29.7), or "within ±N%".
const BOUND = /(>=|<=|≥|≤|within ±)\s*(\d+(?:\.\d+)?)(?![\d.])\s*(%|x)?/g

/** The bounds a finding's title states, as written; '—' when it states none (a ranking, a status). */
export function boundText(title: string): string {
  const m = [...title.matchAll(BOUND)].map(
    (x) => `${x[1] === '>=' ? '≥' : x[1] === '<=' ? '≤' : x[1]!}${x[1]!.startsWith('within') ? '' : ' '}${x[2]}${x[3] ?? ''}`,
  )
  return m.length ? m.join(', ') : '—'
}

/** Whether a title's first bound is a percentage its intervals are not on ("≤ 3%" of a half-width), not "within ±N%". */
const offScale = (title: string): boolean => {
  const m = [...title.matchAll(BOUND)][0]
  return !!m && m[3] === '%' && !m[1]!.startsWith('within')
}

/** The first bound of a title as a band an interval is placed against (within ±N% of 1 for a ratio to a median). */
function firstBand(title: string): { min?: number; max?: number } | null {
  const m = [...title.matchAll(BOUND)][0]
  if (!m) return null
  const v = Number(m[2])
  if (m[1]!.startsWith('within')) return m[3] === '%' ? { min: 1 - v / 100, max: 1 + v / 100 } : null
  // "≤ 3%" of a precision check is not on the interval's scale: no band.
  if (m[3] === '%') return null
  return m[1] === '>=' || m[1] === '≥' ? { min: v } : { max: v }
}

/**
 * The figure that decides the verdict: the first whose own verdict is the line's (a claim's unit
 * that failed or straddled); else for "not held" the first interval on the wrong side of the
 * title's bound, for "inconclusive" the first across it (or resting on one repeat), for "held"
 * the one nearest the bound; the first when the title gives no bound.
 */
export function decidingInterval(f: Finding): { label: string; interval: Interval } | null {
  const all = f.intervals ?? []
  if (all.length === 0) return null
  // A figure that carries its own verdict decides by it: the first that fails (✗) or straddles (?).
  const own = f.verdict === 'not held' || f.verdict === 'inconclusive' ? all.find((x) => x.verdict === f.verdict) : undefined
  if (own) return own
  const band = firstBand(f.title)
  const place = (iv: Interval) => (band ? placeInterval(iv, band) : null)
  if (f.verdict === 'not held') return all.find((x) => place(x.interval) === 'outside') ?? all[0]!
  if (f.verdict === 'inconclusive') return all.find((x) => x.interval.method === 'single repeat' || place(x.interval) === 'straddles') ?? all[0]!
  if (f.verdict === 'held' && band) {
    const margin = (iv: Interval) => Math.min(band.min !== undefined ? iv.lo - band.min : Infinity, band.max !== undefined ? band.max - iv.hi : Infinity)
    return [...all].sort((x, y) => margin(x.interval) - margin(y.interval))[0]!
  }
  return all[0]!
}

/** The first thing a not-measured line lacks, without its claim's id: `haproxy 3.4.7 article has no valid rows (2 invalid)`. */
const missingReason = (figure: string) => figure.split(/;\s/)[0]!.replace(/^.*not measured: /, '')

const digitsFor = (iv: Interval) => (Math.abs(iv.value) >= 100 ? 0 : Math.abs(iv.value) >= 10 ? 1 : 2)

/** The deciding figure in words with its interval, and how many more the finding has. */
function figureText(f: Finding): string {
  // A bound in % of something else (a precision check's half-width) is decided by the figure's words, not by an interval's scale.
  if (offScale(f.title) && f.figure) return f.figure.split(' (')[0]!
  const d = decidingInterval(f)
  // A line without intervals shows its first clause, short: the table must stay on the first screen (test/integration/site.test.ts).
  if (!d) return f.figure && f.verdict !== 'not measured' ? f.figure.split(/;\s/)[0]!.slice(0, 60) : '—'
  const more = (f.intervals?.length ?? 0) - 1
  // The number first: on a narrow column the label is what gets cut.
  return `${fmtInterval(d.interval, digitsFor(d.interval))} ${d.label}${more > 0 ? ` (+${more} more)` : ''}`
}

/** The intervals' real coverage (`50%` at 2 repeats, `95%` from 6), the lowest of the findings' figures: the header says what the cells are. */
function coverageOf(findings: readonly Finding[]): string {
  const levels = findings.flatMap((f) => (f.intervals ?? []).filter((x) => x.interval.method === 'order statistics').map((x) => x.interval.level))
  return `${Math.round(100 * (levels.length ? Math.min(...levels) : 0.95))}%`
}

interface Row {
  id: string
  what: string
  verdict: string
  badges: string
  figure: string
  bound: string
  links: string
}

/** Ids in words: `F5, F8 ×3`. */
function idList(fs: readonly Finding[]): string {
  const counts = new Map<string, number>()
  for (const f of fs) counts.set(f.id, (counts.get(f.id) ?? 0) + 1)
  return [...counts].map(([id, n]) => `${esc(id)}${n > 1 ? ` ×${n}` : ''}`).join(', ')
}

/** Why the undecided findings were not decided, from their intervals. */
function whyUndecided(fs: readonly Finding[]): string {
  const single = fs.filter((f) => f.intervals?.some((x) => x.interval.method === 'single repeat'))
  const split = fs.filter((f) => !single.includes(f) && /repeats split/.test(f.figure))
  const across = fs.filter((f) => !single.includes(f) && !split.includes(f))
  return [
    single.length ? `${idList(single)} rest${single.length === 1 ? 's' : ''} on a cell with a single valid repeat` : '',
    split.length ? `${idList(split)} ha${split.length === 1 ? 's' : 've'} repeats split evenly` : '',
    across.length ? `${idList(across)} ha${across.length === 1 ? 's' : 've'} an interval across the bound` : '',
  ]
    .filter(Boolean)
    .join('; ')
}

/**
 * The paragraph: a paired run's changes first (each proxy's, then the machine's); what held, what
 * did not, what could not be decided and why, what was not measured; the claims; the baseline.
 */
export function summaryParagraph(
  findings: readonly Finding[],
  claims: readonly ClaimResult[],
  changes: readonly CellChange[] | null,
  paired: readonly string[] = [],
): string {
  return [...paired, ...findingSentences(findings), claimSentence(claims), ...(changes ? [baselineSentence(changes)] : [])].join(' ')
}

/** A paired run's sentences for the answer (pairs.ts writes them), none for another run. */
function pairedSentences(input: ArticleInput): string[] {
  if (!input.pairs) return []
  const s = pairSentences(input.pairs)
  return [...s.proxies, s.machine]
}

/** The findings: held, not held, undecided and why; not measured and why; those without a bound. */
function findingSentences(findings: readonly Finding[]): string[] {
  if (findings.length === 0) return ['No series of this run produced findings.']
  const by = (v: Finding['verdict']) => findings.filter((f) => f.verdict === v)
  const [held, notHeld, open, missing, info] = [by('held'), by('not held'), by('inconclusive'), by('not measured'), by('info')]
  const bounded = findings.length - info.length
  const parts = [
    `Of the ${bounded} findings with a bound, **${held.length} held**${held.length ? ` (${idList(held)})` : ''}, **${notHeld.length} did not**${notHeld.length ? ` (${idList(notHeld)})` : ''}` +
      `${open.length ? `, and **${open.length} could not be decided**: ${whyUndecided(open)}` : ''}.`,
  ]
  if (missing.length)
    parts.push(
      `Not measured: ${missing.map((f) => `${esc(f.id)}${f.figure ? ` (${esc(missingReason(f.figure))})` : ' (no cell of it in this run)'}`).join(', ')}.`,
    )
  if (info.length) parts.push(`${info.length} more are figures without a bound (${idList(info)}).`)
  return parts
}

/** The published claims by verdict, or that the ledger was not evaluated. */
function claimSentence(claims: readonly ClaimResult[]): string {
  if (!claims.length) return 'The claims ledger was not evaluated.'
  const n = (v: ClaimVerdict) => claims.filter((c) => c.verdict === v).length
  return `Published claims (${claims.length}): ${n('reproduced')} reproduced, ${n('not reproduced')} not, ${n('inconclusive')} undecided, ${n('not measured')} not measured (a cell their check needs is not in this run), ${n('not runnable here')} not runnable here.`
}

/** The cells compared with the baseline, by verdict. */
function baselineSentence(changes: readonly CellChange[]): string {
  if (!changes.length) return 'No cell of this run is in the baseline.'
  const verdicts = new Map<string, number>()
  for (const c of changes) verdicts.set(c.verdict, (verdicts.get(c.verdict) ?? 0) + 1)
  return `Against the baseline, ${changes.length} cells compared: ${[...verdicts].map(([v, k]) => `${k} ${esc(v)}`).join(', ')}.`
}

/** The run in one line: profile, series, proxies, machine, when. */
function runLine(input: ArticleInput): string {
  const m = input.run.manifest
  const started = m.started.slice(0, 16).replace('T', ' ')
  return `Run **${esc(m.run_id)}** · profile **${esc(m.profile)}** (${m.profile_settings.repeats} repeat${m.profile_settings.repeats === 1 ? '' : 's'}, ${m.profile_settings.duration_s} s windows) · ${m.proxies.length} proxies · ${esc(m.host.cpu_model)}, ${m.host.cores} cores, ${esc(m.runtime)} · ${esc(started)} UTC${m.finished ? '' : ' · **not finished**'} · cost: the proxy's CPU µs per request · [history](../../history.html)`
}

/**
 * The answer first. `headings` are the pictures' and details' headings (built before it), so
 * every link goes to a heading that is there; `changes` is what the baseline dot plot draws.
 */
export function answerSection(a: Article, input: ArticleInput, headings: readonly string[], changes: readonly CellChange[] | null): ChartRequest[] {
  const { findings, claims, run } = input
  const main = mainCells(input.aggregates)
  a.heading(1, esc(abstractTitle(main, run.manifest.run_id)))
  a.para('[[class:runline]]')
  a.para(runLine(input))
  a.para('[[class:abstract]]')
  a.para(abstractSentences(input, main).join(' ') || 'This run measured no pooling cells and evaluated no claims.')
  answerTable(a, main)
  claimsByArticle(a, claims)
  a.para('[[class:answer]]')
  a.para(`${summaryParagraph(findings, claims, changes, pairedSentences(input))} Every verdict below: [verdicts.csv](data/verdicts.csv).`)
  const rows: Row[] = findings.map((f) => {
    const place = PLACES[f.id]
    const picture = place?.picture ? anchor(headings, PICTURES[place.picture]) : null
    const section = place ? anchor(headings, place.section) : null
    const links = [picture && `[picture](${picture})`, section && `[section](${section})`, section && place && `[rows](data/${place.rows}.csv)`]
      .filter(Boolean)
      .join(' · ')
    return { id: f.id, what: f.title, verdict: f.verdict, badges: findingBadge(f), figure: figureText(f), bound: boundText(f.title), links: links || '—' }
  })
  const ledger = anchor(headings, 'Claims ledger')
  const sources = [...new Set(claims.map((c) => c.source))]
  for (const source of sources) {
    const mine = claims.filter((c) => c.source === source)
    const counts = CLAIM_VERDICTS.map((v) => [v, mine.filter((c) => c.verdict === v).length] as const).filter(([, n]) => n > 0)
    const reproduced = mine.filter((c) => c.verdict === 'reproduced').length
    rows.push({
      id: articleName(source),
      what: `claims of ${articleNumber(source)} (${mine.length})`,
      verdict: counts.map(([v, n]) => `${n} ${v}`).join(', '),
      badges: counts.map(([v, n]) => shortBadge(VERDICTS[v].badge, n)).join(' '),
      figure: `${reproduced} of ${mine.length} reproduced`,
      bound: 'per claim',
      links: [ledger && `[ledger](${ledger})`, '[rows](data/claims.csv)'].filter(Boolean).join(' · '),
    })
  }
  a.para('[[class:verdicts]]')
  a.table<Row>(
    'verdicts',
    [
      { title: 'verdict', value: (r) => r.verdict, show: (r) => r.badges },
      { title: 'finding', value: (r) => `${r.id} ${r.what}`, show: (r) => `**${esc(r.id)}** ${esc(r.what)}` },
      { title: `figure [${coverageOf(findings)} interval]`, value: (r) => r.figure, show: (r) => esc(r.figure) },
      { title: 'bound', value: (r) => r.bound, show: (r) => esc(r.bound) },
      { title: 'see', value: (r) => r.links.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1'), show: (r) => r.links },
    ],
    rows,
    'No findings and no claims in this run.',
    { linkedAbove: true },
  )
  return []
}
