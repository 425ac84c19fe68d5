import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { writeOutputFolder, writeOutputs } from '../core/atomic.ts'
import type { Logger } from '../core/log.ts'
import { displayPath } from '../core/paths.ts'
import { renderCharts } from './chart-requests.ts'
import { htmlPage } from './page.ts'
import { renderMarkdown } from './render.ts'
import { assertNoKeyMaterial } from './site.ts'
import { type ChainLinks, runLinks } from '../analysis/chain.ts'
import { readPublished } from '../analysis/published.ts'
import { loadLedger } from '../claims/ledger.ts'
import { medianInterval, repeatsOf, type Interval } from '../core/intervals.ts'
import { listBaselines, loadBaseline } from '../data/baselines.ts'
import { groupRows } from '../data/grouping.ts'
import { loadRun, type RunData } from '../data/run-data.ts'
import { COUNTS } from '../data/columns/table.ts'
import type { Manifest } from '../data/schema.ts'
import { POOLING_ROWS, SERIES_ROWS } from '../data/series.ts'
import { compareVersions } from '../catalog/stack.ts'
import { HISTORY_DIR, HISTORY_PAGE, historyArticle, type HistoryPoint, type HistorySource } from './history-article.ts'

/**
 * The history (docs/report.md#history): per proxy and variant, every promoted baseline, every
 * run in the site and the published article figures (transcribed), in time order, with the cost
 * raw (of its own machine only), counts where recorded, and between consecutive points one
 * line saying what changed, read from the data.
 */

export { HISTORY_DIR, HISTORY_PAGE } from './history-article.ts'
export { causeLine, historyArticle, type HistorySource } from './history-article.ts'

/** The count columns of the column table (per request; counts_reason is words): read where present, never required. */
const COUNT_COLUMNS = COUNTS.filter((c) => c.unit !== '').map((c) => c.name)

/** Short fingerprint: the machine facts that move a proxy's µs (fingerprintDiff's), hashed. */
export function shortFingerprint(m: Pick<Manifest, 'fingerprint' | 'host'>): string {
  const f = m.fingerprint
  const facts = f
    ? [
        f.cpu_model,
        f.cpu_family,
        f.cpu_model_number,
        f.stepping,
        f.microcode,
        f.kernel_release,
        f.clocksource,
        f.virtualization,
        JSON.stringify(Object.entries(f.vulnerabilities).sort()),
      ]
    : ['host', m.host.cpu_model, m.host.cores, m.host.kernel]
  const hash = createHash('sha256').update(facts.join('\n')).digest('hex').slice(0, 8)
  return f ? hash : `${hash} (host only)`
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? null : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

type Row = Record<string, unknown> & { repeat: number; status: string; proxy: string; version: string }

/** The groups a run's rows fall in: closed-model pooling variants at the default request, full handshakes per key type, counted work per variant and key type. */
function groupsOf(run: RunData): { group: string; metric: string; rows: Row[] }[] {
  const out = new Map<string, { group: string; metric: string; rows: Row[] }>()
  const add = (group: string, metric: string, r: Row) => {
    const g = out.get(group) ?? { group, metric, rows: [] }
    g.rows.push(r)
    out.set(group, g)
  }
  for (const r of run.measurements) {
    if (r.model !== 'closed' || r.proxy === 'direct' || !POOLING_ROWS.includes(r.series) || r.series === 'custom' || (r.key_type && r.key_type !== 'ec256'))
      continue
    if ((r as { path?: string | null }).path && (r as { path?: string | null }).path !== '/') continue
    add(`variant ${r.variant}`, 'proxy_cpu_us_per_req', r as unknown as Row)
  }
  for (const h of run.handshakes) if (h.series === 'tls-handshake') add(`handshake ${h.key_type}`, 'proxy_cpu_us_per_handshake', h as unknown as Row)
  const work: readonly string[] = [...SERIES_ROWS.work.measurements, ...SERIES_ROWS.work.handshakes]
  for (const r of run.measurements) if (work.includes(r.series)) add(`work ${r.variant}`, 'instructions_per_req', r as unknown as Row)
  for (const h of run.handshakes) if (work.includes(h.series)) add(`work handshake ${h.key_type}`, 'instructions_per_req', h as unknown as Row)
  return [...out.values()]
}

const num0 = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null)

function intervalOf(rows: readonly Row[], value: (r: Row) => number | null): Interval | null {
  const reps = repeatsOf(
    rows.filter((r) => r.status === 'valid'),
    value,
  )
  return reps.size ? medianInterval(reps) : null
}

/** The newest version of each proxy among the cells. */
function newestVersions(cells: readonly { proxy: string; version: string }[]): Map<string, string> {
  const newest = new Map<string, string>()
  for (const { proxy, version } of cells) {
    const seen = newest.get(proxy)
    if (seen === undefined || compareVersions(version, seen) > 0) newest.set(proxy, version)
  }
  return newest
}

/** The median of a column over rows, its blanks left out; null when none has it. */
const columnMedian = (rows: readonly Row[], column: string) => median(rows.map((r) => num0(r[column])).filter((x): x is number => x !== null))

/** The median of each count column the rows recorded. */
function countMedians(valid: readonly Row[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const c of COUNT_COLUMNS) {
    const v = columnMedian(valid, c)
    if (v !== null) counts[c] = v
  }
  return counts
}

/** Every point of one measured source: per group, per proxy, its newest version (the one a re-run compares). */
function runPoints(s: Extract<HistorySource, { kind: 'run' | 'baseline' }>): HistoryPoint[] {
  const m = s.run.manifest
  const out: HistoryPoint[] = []
  for (const g of groupsOf(s.run)) {
    const byCell = groupRows(g.rows, ['proxy', 'version']).map((c) => ({ proxy: String(c.key.proxy), version: String(c.key.version), rows: c.rows }))
    // One point per proxy and source: its newest version (older ones are the versions series' business).
    const newest = newestVersions(byCell)
    for (const { proxy, version, rows } of byCell) {
      if (newest.get(proxy) !== version) continue
      const valid = rows.filter((r) => r.status === 'valid')
      const raw = intervalOf(rows, (r) => num0(r[g.metric]))
      out.push({
        group: g.group,
        proxy,
        source: s.id,
        kind: s.kind,
        also: s.also ?? [],
        date: m.started,
        version,
        profile: m.profile,
        machine: shortFingerprint(m),
        fingerprint: m.fingerprint,
        raw,
        counts: countMedians(valid),
        connsPer1k: columnMedian(valid, 'backend_conns_per_1k_req'),
        configHash: m.custom_configs.find((c) => c.proxy === proxy)?.sha256.slice(0, 12) ?? null,
        binarySha:
          m.components
            .find((c) => c.component === proxy && c.version === version)
            ?.sha256.replace(/^sha256:/, '')
            .slice(0, 12) ?? null,
      })
    }
  }
  return out
}

function transcribedPoints(s: Extract<HistorySource, { kind: 'transcribed' }>): HistoryPoint[] {
  return s.figures.map((f) => ({
    group: f.group,
    proxy: f.proxy,
    source: s.id,
    kind: 'transcribed' as const,
    also: [],
    date: s.date,
    version: f.version ?? '—',
    profile: null,
    machine: s.machine,
    fingerprint: null,
    raw: { value: f.value, lo: f.value, hi: f.value, level: 1, method: 'single repeat' as const, n: 1 },
    counts: {},
    connsPer1k: null,
    configHash: null,
    binarySha: null,
    figure: f.figure,
  }))
}

/** Every point, in time order within each group and proxy (undated last). */
export function historyPoints(sources: readonly HistorySource[]): HistoryPoint[] {
  const points = sources.flatMap((s) => (s.kind === 'transcribed' ? transcribedPoints(s) : runPoints(s)))
  const t = (p: HistoryPoint) => (p.date ? Date.parse(p.date.length === 10 ? `${p.date}T00:00:00Z` : p.date) : Infinity)
  return points.sort((a, b) => a.group.localeCompare(b.group) || a.proxy.localeCompare(b.proxy) || t(a) - t(b) || a.source.localeCompare(b.source))
}

/** Published baselines' cost figures per proxy (figures.yaml through the ledger), transcribed. */
function publishedSource(id: string, file: string): HistorySource {
  const p = readPublished(file)
  const date = /^\d{4}-\d\d-\d\d/.test(p.id) ? p.id.slice(0, 10) : null
  const figures = [...loadLedger().figures.values()].flatMap((f) => {
    if (f.source !== p.source || typeof f.value !== 'number' || !f.proxy) return []
    const c = f.conditions as Record<string, unknown>
    if (f.metric === 'proxy_cpu_us_per_req' && typeof c.variant === 'string')
      return [{ proxy: f.proxy, version: f.version, group: `variant ${c.variant}`, value: f.value, figure: f.id }]
    if (f.metric === 'proxy_cpu_us_per_handshake' && typeof c.key_type === 'string')
      return [{ proxy: f.proxy, version: f.version, group: `handshake ${c.key_type}`, value: f.value, figure: f.id }]
    return []
  })
  return { kind: 'transcribed', id, date, machine: 'article', figures }
}

/**
 * Reads every source the history shows: the runs published in the site (their copied CSVs and
 * manifest), the promoted baselines and the published ones. A source that cannot be read is
 * named with its reason, never dropped silently.
 */
export function historySources(siteDir: string): { sources: HistorySource[]; skipped: string[] } {
  const sources: HistorySource[] = []
  const skipped: string[] = []
  const runsDir = join(siteDir, 'runs')
  const siteRuns = existsSync(runsDir)
    ? readdirSync(runsDir)
        .filter((d) => !d.startsWith('.') && existsSync(join(runsDir, d, 'data', 'manifest.json')))
        .sort()
    : []
  const baselines = listBaselines()
  const baselineRunIds = new Map<string, string>()
  for (const b of baselines) {
    try {
      const base = loadBaseline(b.id)
      if (base.kind === 'published') sources.push(publishedSource(b.id, base.file))
      else {
        baselineRunIds.set(base.run.manifest.run_id, b.id)
        sources.push({ kind: 'baseline', id: b.id, run: base.run, also: siteRuns.includes(base.run.manifest.run_id) ? ['run'] : [] })
      }
    } catch (e) {
      skipped.push(`baseline ${b.id}: ${String((e as Error).message).split('\n')[0]}`)
    }
  }
  for (const id of siteRuns) {
    if (baselineRunIds.has(id)) continue
    try {
      sources.push({ kind: 'run', id, run: loadRun(join(runsDir, id, 'data')) })
    } catch (e) {
      skipped.push(`run ${id}: ${String((e as Error).message).split('\n')[0]}`)
    }
  }
  return { sources, skipped }
}

/** How a run measured, in the words the chain compares its links by: a change of any is a change of method. */
export const methodOf = (m: Pick<Manifest, 'profile' | 'runtime' | 'schema_version'>): string =>
  `${m.profile} profile, ${m.runtime}, data schema ${m.schema_version}`

/** The paired runs' links (docs/report.md#proxy-cost-across-years-measured-in-pairs), each against the baseline source it was paired with. */
export function pairedLinks(sources: readonly HistorySource[]): ChainLinks {
  const measured = sources.filter((s): s is Exclude<HistorySource, { kind: 'transcribed' }> => s.kind !== 'transcribed')
  const baselines = new Map(measured.filter((s) => s.kind === 'baseline').map((s) => [s.id, s.run]))
  const links = measured.map((s) =>
    runLinks(s.id, s.run.manifest.started, s.run, s.run.paired ? baselines.get(s.run.paired.sides.baseline) : undefined, methodOf(s.run.manifest)),
  )
  return { proxy: links.flatMap((l) => l.proxy), machine: links.flatMap((l) => l.machine) }
}

/**
 * Writes site/history.html and site/history/ (charts, CSVs): the folder built aside and swapped
 * in by rename, then the page written atomically. Returns the page's path.
 */
export async function writeHistoryPage(siteDir: string, log: Logger, generated: string): Promise<string> {
  const { sources, skipped } = historySources(siteDir)
  const h = historyArticle(historyPoints(sources), sources, skipped, pairedLinks(sources))
  const charts = await renderCharts(h.charts)
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`
  const tmp = join(siteDir, `.tmp-${HISTORY_DIR}.${suffix}`)
  const target = join(siteDir, HISTORY_DIR)
  const outputs = [...h.files, ...charts].map((f) => ({ path: f.path.slice(HISTORY_DIR.length + 1), render: () => f.content }))
  writeOutputFolder(target, outputs, {
    tmp,
    old: join(siteDir, `.old-${HISTORY_DIR}.${suffix}`),
    check: (dir) => assertNoKeyMaterial(dir, displayPath(target)),
  })
  const rendered = renderMarkdown(h.markdown)
  const file = join(siteDir, HISTORY_PAGE)
  writeOutputs(siteDir, [
    {
      path: HISTORY_PAGE,
      render: () => htmlPage({ title: rendered.title, body: rendered.html, breadcrumbs: [{ href: 'index.html', text: 'proxybench' }], generated }),
    },
  ])
  log.info(
    `wrote ${displayPath(file)} (${sources.length} source${sources.length === 1 ? '' : 's'}, ${h.charts.length} chart${h.charts.length === 1 ? '' : 's'})`,
  )
  return file
}
