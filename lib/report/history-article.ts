import { fingerprintDiff } from '../analysis/fingerprint.ts'
import { type ChainLinks, NO_LINKS } from '../analysis/chain.ts'
import type { Interval } from '../core/intervals.ts'
import type { ChartRequest } from './chart-requests.ts'
import type { Fingerprint } from '../data/schema.ts'
import type { RunData } from '../data/run-data.ts'
import { CHAIN_TITLE, chainSection } from './history-chain.ts'
import { Article, esc, num } from './markdown.ts'
import { CARRIES_OVER, figure } from './sections/common.ts'

/*
 * The history page's text (docs/report.md#history), from the points history.ts reads: a chart
 * and a table per group, and between consecutive points one line saying what changed.
 */

/** Where a point comes from. */
export type SourceKind = 'run' | 'baseline' | 'transcribed'

/** One source of the history: a run's data (site run or promoted baseline) or a published article's figures. */
export type HistorySource =
  | { kind: 'run' | 'baseline'; id: string; run: RunData; also?: SourceKind[] }
  | {
      kind: 'transcribed'
      id: string
      date: string | null
      machine: string
      figures: { proxy: string; version: string | null; group: string; value: number; figure: string }[]
    }

/** A line of the history: one proxy in one group (a variant of the pooling series, or a handshake key type) from one source. */
export interface HistoryPoint {
  group: string
  proxy: string
  source: string
  kind: SourceKind
  /** Also a baseline (a site run promoted), or also in the site. */
  also: SourceKind[]
  date: string | null
  version: string
  profile: string | null
  /** 8 hex digits of the machine fingerprint's facts; the host's words where the run recorded none. */
  machine: string
  fingerprint: Fingerprint | null
  raw: Interval | null
  /** Median counts per request the rows record (columns read only where present). */
  counts: Record<string, number>
  connsPer1k: number | null
  configHash: string | null
  binarySha: string | null
  /** What a transcribed figure is (its id). */
  figure?: string
}

/** The page (site/history.html) and the folder of its charts and CSVs (site/history/). */
export const HISTORY_PAGE = 'history.html'
export const HISTORY_DIR = 'history'

/** A group of counted work (instructions per request or handshake under callgrind): it carries over between machines, so the history draws it. */
export const isWorkGroup = (group: string) => group.startsWith('work ')

const ratioText = (b: number | null | undefined, a: number | null | undefined) => (a && b ? `×${num(b / a)}` : '—')

/** What changed from one point to the next of the same proxy and group, in one line from the data. */
export function causeLine(a: HistoryPoint, b: HistoryPoint): string {
  const transcribed = a.kind === 'transcribed' || b.kind === 'transcribed'
  return [
    ...versionParts(a, b),
    ...(transcribed ? ["machine: the article's, not this harness's (a transcribed figure)"] : setupParts(a, b)),
    ...connsParts(a, b),
    ...countParts(a, b, transcribed),
    costPart(a, b, transcribed),
  ].join('; ')
}

/** Raw µs compare on one machine only: across machines the ratio is the machine's as much as the proxy's. */
const costPart = (a: HistoryPoint, b: HistoryPoint, transcribed: boolean) =>
  isWorkGroup(b.group)
    ? `work ${ratioText(b.raw?.value, a.raw?.value)} (counted: any machine)`
    : !transcribed && a.machine === b.machine
      ? `cost ${ratioText(b.raw?.value, a.raw?.value)} raw (one machine)`
      : 'cost not compared (another machine: its change is measured in pairs)'

/** The version, and under a kept version a rebuilt binary. */
function versionParts(a: HistoryPoint, b: HistoryPoint): string[] {
  const v = (x: HistoryPoint) => (x.version === '—' ? '(not stated)' : x.version)
  if (a.version !== b.version) return [`version ${v(a)} → ${v(b)}`]
  const rebuilt = a.binarySha && b.binarySha && a.binarySha !== b.binarySha
  return [`version ${v(b)} kept`, ...(rebuilt ? [`binary ${a.binarySha} → ${b.binarySha}`] : [])]
}

/** Between two points this harness measured: the config and the machine. */
function setupParts(a: HistoryPoint, b: HistoryPoint): string[] {
  const config =
    a.configHash !== b.configHash
      ? `config ${a.configHash ?? 'catalog template'} → ${b.configHash ?? 'catalog template'}`
      : a.configHash
        ? `config ${a.configHash} kept`
        : 'config: catalog template (no custom config hash)'
  return [config, machinePart(a, b)]
}

/** The machine kept, or changed with the first two differences of the fingerprints. */
function machinePart(a: HistoryPoint, b: HistoryPoint): string {
  if (a.machine === b.machine) return `machine ${b.machine} kept`
  const diff = a.fingerprint && b.fingerprint ? fingerprintDiff(a.fingerprint, b.fingerprint) : null
  const shown = diff ? ` (${diff.slice(0, 2).join('; ')}${diff.length > 2 ? `; +${diff.length - 2} more` : ''})` : ' (a side has no fingerprint)'
  return `machine ${a.machine} → ${b.machine}${shown}`
}

/** Backend connections per 1k requests where both points have them: held within 50, or moved. */
function connsParts(a: HistoryPoint, b: HistoryPoint): string[] {
  if (a.connsPer1k === null || b.connsPer1k === null) return []
  const held = Math.abs(b.connsPer1k - a.connsPer1k) < 50
  return [held ? `conns/1k held (${num(a.connsPer1k)} → ${num(b.connsPer1k)})` : `conns/1k moved ${num(a.connsPer1k)} → ${num(b.connsPer1k)}`]
}

/** The ratio of each count both points recorded; that there is none, between measured points. */
function countParts(a: HistoryPoint, b: HistoryPoint, transcribed: boolean): string[] {
  const shared = Object.keys(a.counts).filter((c) => c in b.counts)
  if (!shared.length) return transcribed ? [] : ['no other counts recorded on both']
  return shared.map((c) => `${c.replace(/^proxy_|_per_req$/g, '')}/req ${ratioText(b.counts[c], a.counts[c])}`)
}

const iv = (x: Interval | null, digits = 1) =>
  !x
    ? '—'
    : x.method === 'single repeat'
      ? `${x.value.toFixed(digits)} [1 value]`
      : `${x.value.toFixed(digits)} [${x.lo.toFixed(digits)}, ${x.hi.toFixed(digits)}]`
/** The count the history charts draw: it carries over between machines (sections/common.ts CARRIES_OVER). */
const CHARTED_COUNT = 'proxy_syscalls_per_req'

const KIND_WORDS: Record<SourceKind, string> = { run: 'run', baseline: 'baseline', transcribed: 'transcribed' }

/**
 * The history page's Markdown, its CSVs and its charts (one per group). `links`: the paired
 * runs' links (lib/analysis/chain.ts), the chain of pairs section's data; none until a paired run exists.
 */
export function historyArticle(
  points: readonly HistoryPoint[],
  sources: readonly HistorySource[],
  skipped: readonly string[],
  links: ChainLinks = NO_LINKS,
): { markdown: string; files: Article['files']; charts: ChartRequest[] } {
  const a = new Article(`${HISTORY_DIR}/`)
  const charts: ChartRequest[] = []
  a.heading(1, 'History: every run and baseline')
  a.para(
    `Per proxy and variant, every run in this site, every promoted baseline (\`baselines/runs/\`) and the published article figures (\`baselines/published/\`, marked **transcribed**: one number each, no interval, another machine), in time order. ` +
      "Cost raw is the proxy's CPU µs per request (per handshake for the handshake groups), the median of the valid repeats with its interval by order statistics, for the table only, each of its own machine. " +
      `${CARRIES_OVER} So the charts draw counts, never raw µs of different runs on one axis, and a proxy's change is read in the first section, *${CHAIN_TITLE}*. Between consecutive points of a proxy, one line says what changed, from the data.`,
  )
  a.para('[[toc]]')
  a.para(
    `Sources: ${sources.map((s) => `${esc(s.id)} (${KIND_WORDS[s.kind]}${s.kind !== 'transcribed' && s.also?.length ? ` + ${s.also.join(', ')}` : ''})`).join(', ') || 'none'}.${skipped.length ? ` Not read: ${skipped.map(esc).join('; ')}.` : ''}`,
  )
  chainSection(a, links)
  const groups = [...new Set(points.map((p) => p.group))]
  if (groups.length === 0) a.para('*No run, baseline or published figure has a cell of the groups shown here.*')
  for (const group of groups)
    groupHistory(
      a,
      charts,
      group,
      points.filter((p) => p.group === group),
    )
  return { markdown: a.toString(), files: a.files, charts }
}

/** What a group's chart draws: counted work itself, else the system calls per request; both carry over between machines. */
function chartedOf(group: string) {
  if (isWorkGroup(group))
    return {
      value: (p: HistoryPoint) => p.raw?.value,
      title: `Instructions per ${group.includes('handshake') ? 'handshake' : 'request'}, ${group}, over time`,
      yTitle: 'instructions counted (callgrind)',
      unit: 'instructions the proxy executes per unit, counted under callgrind, median of the counted rows, each point labelled by its version: work, which does not move with the machine',
      note: `*Work, counted:* a step here is a change of what the proxy does (a version, a config, the counting set-up: the table names it); a proxy's change is in *${CHAIN_TITLE}*.`,
      none: 'counted work',
    }
  return {
    value: (p: HistoryPoint) => p.counts[CHARTED_COUNT],
    title: `System calls per request, ${group}, over time`,
    yTitle: 'proxy system calls per request',
    unit: 'system calls the proxy makes per request, median of the valid repeats, each point labelled by its version: a count, which does not move with the machine',
    note: `*Counts, not cost:* a step here is a change of code path (a version, a config, a pool); raw µs are in the table for each run's own machine, and a proxy's change in cost is in *${CHAIN_TITLE}*.`,
    none: 'system calls per request',
  }
}

/** One group's section: its chart over time, and the table of its points with what changed between them. */
function groupHistory(a: Article, charts: ChartRequest[], group: string, mine: readonly HistoryPoint[]): void {
  const slug = group.replace(/[^a-z0-9]+/gi, '-').toLowerCase()
  const charted = chartedOf(group)
  a.heading(2, esc(group))
  const counted = mine.filter((p) => p.date && charted.value(p) !== undefined)
  if (counted.length === 0) a.para(`*No chart: no point of ${esc(group)} records ${charted.none}, and raw µs of different runs are not drawn on one axis.*`)
  else
    figure(
      a,
      charts,
      {
        path: `${HISTORY_DIR}/charts/history-${slug}.svg`,
        title: charted.title,
        kind: 'labelled-line',
        rows: counted.map((p) => ({
          x: p.date!.length === 10 ? `${p.date}T00:00:00` : p.date!.replace(/Z$/, ''),
          y: charted.value(p)!,
          series: p.proxy,
          label: p.version,
        })),
        options: { xType: 'temporal', xTitle: 'started', yTitle: charted.yTitle, seriesTitle: 'proxy', xFormat: '%Y-%m-%d' },
      },
      charted.title.replace(/^(.*), (.*), over time$/, '$2: $1 over time').replace(/^(\S)/, (c) => c),
      {
        unit: charted.unit,
        note: charted.note,
        model: group.includes('handshake') ? 'a new TLS connection per request, resumption off' : "closed model, each run's profile (the table names it)",
      },
      mine.map((p) => ({
        proxy: p.proxy,
        source: p.source,
        kind: p.kind,
        date: p.date,
        version: p.version,
        profile: p.profile,
        machine: p.machine,
        raw: p.raw?.value ?? null,
        raw_lo: p.raw?.lo ?? null,
        raw_hi: p.raw?.hi ?? null,
        conns_per_1k: p.connsPer1k,
        ...p.counts,
      })),
    )
  const rows: { p: HistoryPoint; cause: string }[] = []
  for (let i = 0; i < mine.length; i++) {
    const prev = i > 0 && mine[i - 1]!.proxy === mine[i]!.proxy ? mine[i - 1]! : null
    rows.push({ p: mine[i]!, cause: prev ? causeLine(prev, mine[i]!) : 'first point' })
  }
  const countCols = [...new Set(mine.flatMap((p) => Object.keys(p.counts)))]
  a.table(
    `history-${slug}`,
    [
      { title: 'proxy', value: (r) => r.p.proxy },
      { title: 'date', value: (r) => r.p.date?.slice(0, 10) ?? 'undated' },
      {
        title: 'source',
        value: (r) => `${r.p.source} (${[r.p.kind, ...r.p.also].join(' + ')})`,
        show: (r) => (r.p.kind === 'transcribed' ? `${esc(r.p.source)} **transcribed**` : `${esc(r.p.source)} (${esc([r.p.kind, ...r.p.also].join(' + '))})`),
      },
      { title: 'version', value: (r) => r.p.version },
      { title: 'profile', value: (r) => r.p.profile ?? '—' },
      { title: 'machine', value: (r) => r.p.machine },
      { title: isWorkGroup(group) ? 'instructions' : 'cost raw', value: (r) => r.p.raw?.value ?? null, show: (r) => esc(iv(r.p.raw)) },
      ...countCols.map((c) => ({ title: c.replace(/^proxy_|_per_req$/g, '') + '/req', value: (r: { p: HistoryPoint }) => r.p.counts[c] ?? null })),
      { title: 'conns/1k', value: (r) => r.p.connsPer1k },
      { title: 'what changed since the point before', value: (r) => r.cause },
    ],
    rows,
  )
}
