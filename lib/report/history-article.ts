import { fingerprintDiff } from '../analysis/fingerprint.ts'
import type { Interval } from '../core/intervals.ts'
import type { ChartRequest } from './chart-requests.ts'
import type { HistoryPoint, HistorySource, SourceKind } from './history.ts'
import { Article, esc, num } from './markdown.ts'
import { figure } from './sections/common.ts'

/*
 * The history page's text (docs/report.md#history), from the points history.ts reads: a chart
 * and a table per group, and between consecutive points one line saying what changed.
 */

/** The page (site/history.html) and the folder of its charts and CSVs (site/history/). */
export const HISTORY_PAGE = 'history.html'
export const HISTORY_DIR = 'history'

const ratioText = (b: number | null | undefined, a: number | null | undefined) => (a && b ? `×${num(b / a)}` : '—')

/** What changed from one point to the next of the same proxy and group, in one line from the data. */
export function causeLine(a: HistoryPoint, b: HistoryPoint): string {
  const parts: string[] = []
  const v = (x: HistoryPoint) => (x.version === '—' ? '(not stated)' : x.version)
  parts.push(a.version === b.version ? `version ${v(b)} kept` : `version ${v(a)} → ${v(b)}`)
  if (a.version === b.version && a.binarySha && b.binarySha && a.binarySha !== b.binarySha) parts.push(`binary ${a.binarySha} → ${b.binarySha}`)
  if (a.kind === 'transcribed' || b.kind === 'transcribed') parts.push("machine: the article's, not this harness's (a transcribed figure)")
  else {
    if (a.configHash !== b.configHash) parts.push(`config ${a.configHash ?? 'catalog template'} → ${b.configHash ?? 'catalog template'}`)
    else parts.push(a.configHash ? `config ${a.configHash} kept` : 'config: catalog template (no custom config hash)')
    if (a.machine === b.machine) parts.push(`machine ${b.machine} kept`)
    else {
      const diff = a.fingerprint && b.fingerprint ? fingerprintDiff(a.fingerprint, b.fingerprint) : null
      parts.push(
        `machine ${a.machine} → ${b.machine}${diff ? ` (${diff.slice(0, 2).join('; ')}${diff.length > 2 ? `; +${diff.length - 2} more` : ''})` : ' (a side has no fingerprint)'}`,
      )
    }
    parts.push(`direct reference ${ratioText(b.reference, a.reference)}`)
  }
  if (a.connsPer1k !== null && b.connsPer1k !== null)
    parts.push(
      Math.abs(b.connsPer1k - a.connsPer1k) < 50
        ? `conns/1k held (${num(a.connsPer1k)} → ${num(b.connsPer1k)})`
        : `conns/1k moved ${num(a.connsPer1k)} → ${num(b.connsPer1k)}`,
    )
  const shared = Object.keys(a.counts).filter((c) => c in b.counts)
  for (const c of shared) parts.push(`${c.replace(/^proxy_|_per_req$/g, '')}/req ${ratioText(b.counts[c], a.counts[c])}`)
  if (!shared.length && b.kind !== 'transcribed' && a.kind !== 'transcribed') parts.push('no other counts recorded on both')
  parts.push(`cost ${ratioText(b.raw?.value, a.raw?.value)} raw, ${ratioText(b.calibrated?.value, a.calibrated?.value)} calibrated`)
  return parts.join('; ')
}

const iv = (x: Interval | null, digits = 1) =>
  !x
    ? '—'
    : x.method === 'single repeat'
      ? `${x.value.toFixed(digits)} [1 value]`
      : `${x.value.toFixed(digits)} [${x.lo.toFixed(digits)}, ${x.hi.toFixed(digits)}]`
const KIND_WORDS: Record<SourceKind, string> = { run: 'run', baseline: 'baseline', transcribed: 'transcribed' }

/** The history page's Markdown, its CSVs and its charts (one per group). */
export function historyArticle(
  points: readonly HistoryPoint[],
  sources: readonly HistorySource[],
  skipped: readonly string[],
): { markdown: string; files: Article['files']; charts: ChartRequest[] } {
  const a = new Article(`${HISTORY_DIR}/`)
  const charts: ChartRequest[] = []
  a.heading(1, 'History: every run and baseline')
  a.para(
    `Per proxy and variant, every run in this site, every promoted baseline (\`baselines/runs/\`) and the published article figures (\`baselines/published/\`, marked **transcribed**: one number each, no interval, another machine), in time order. ` +
      "Cost raw is the proxy's CPU µs per request (per handshake for the handshake groups), the median of the valid repeats with its interval by order statistics; calibrated is the same divided by the run's direct reference (the bare backend's CPU µs per request on the same machine, a run's own `proxy_cpu_calibrated` column where it has one). " +
      'Raw µs across machines differ by the machine: compare runs of one machine (same short fingerprint) raw, others calibrated. Between consecutive points of a proxy, one line says what changed, from the data.',
  )
  a.para('[[toc]]')
  a.para(
    `Sources: ${sources.map((s) => `${esc(s.id)} (${KIND_WORDS[s.kind]}${s.kind !== 'transcribed' && s.also?.length ? ` + ${s.also.join(', ')}` : ''})`).join(', ') || 'none'}.${skipped.length ? ` Not read: ${skipped.map(esc).join('; ')}.` : ''}`,
  )
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

/** One group's section: its chart over time, and the table of its points with what changed between them. */
function groupHistory(a: Article, charts: ChartRequest[], group: string, mine: readonly HistoryPoint[]): void {
  const slug = group.replace(/[^a-z0-9]+/gi, '-').toLowerCase()
  a.heading(2, esc(group))
  const unit = group.startsWith('handshake') ? 'µs per full handshake' : 'µs per request'
  figure(
    a,
    charts,
    {
      path: `${HISTORY_DIR}/charts/history-${slug}.svg`,
      title: `Proxy CPU ${unit}, ${group}, over time`,
      kind: 'labelled-line',
      rows: mine
        .filter((p) => p.raw && p.date)
        .map((p) => ({
          x: p.date!.length === 10 ? `${p.date}T00:00:00` : p.date!.replace(/Z$/, ''),
          y: p.raw!.value,
          series: p.proxy,
          label: p.version,
          lo: p.raw!.method === 'single repeat' ? undefined : p.raw!.lo,
          hi: p.raw!.method === 'single repeat' ? undefined : p.raw!.hi,
          hollow: p.kind === 'transcribed',
        })),
      options: { xType: 'temporal', xTitle: 'started', yTitle: `proxy CPU ${unit} (raw)`, seriesTitle: 'proxy', xFormat: '%Y-%m-%d' },
    },
    `${group}: cost over time`,
    {
      unit: `proxy CPU ${unit}, raw, median with its interval; hollow diamonds: transcribed figures; each point labelled by its version`,
      model: group.startsWith('handshake') ? 'a new TLS connection per request, resumption off' : "closed model, each run's profile (the table names it)",
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
      calibrated: p.calibrated?.value ?? null,
      calibrated_lo: p.calibrated?.lo ?? null,
      calibrated_hi: p.calibrated?.hi ?? null,
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
      { title: 'cost raw', value: (r) => r.p.raw?.value ?? null, show: (r) => esc(iv(r.p.raw)) },
      { title: 'calibrated', value: (r) => r.p.calibrated?.value ?? null, show: (r) => esc(iv(r.p.calibrated, 2)) },
      ...countCols.map((c) => ({ title: c.replace(/^proxy_|_per_req$/g, '') + '/req', value: (r: { p: HistoryPoint }) => r.p.counts[c] ?? null })),
      { title: 'conns/1k', value: (r) => r.p.connsPer1k },
      { title: 'what changed since the point before', value: (r) => r.cause },
    ],
    rows,
  )
}
