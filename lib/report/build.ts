import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { likeRepetition } from '../analysis/like-repeat.ts'
import { type PairedCell, type PairedRun, pairedCells } from '../analysis/pairs.ts'
import { fingerprintDiff } from '../analysis/fingerprint.ts'
import { publishedDeltas, readPublished } from '../analysis/published.ts'
import Papa from 'papaparse'
import { HISTORY_PAGE, writeHistoryPage, shortFingerprint } from './history.ts'
import { loadRun, type RunData } from '../data/run-data.ts'
import { readBisectPlan } from '../data/bisect.ts'
import { readLike } from '../data/like.ts'
import { aggregate, summaryCsvs, type Aggregates } from '../analysis/summary.ts'
import { BASELINES_DIR, listBaselines, loadBaseline, PUBLISHED_FILE, type Baseline } from '../data/baselines.ts'
import { evaluateClaims, type ClaimResult } from '../claims/evaluate.ts'
import { loadLedger } from '../claims/ledger.ts'
import { readLatencySpectra } from '../data/latency.ts'
import { MANIFEST_FILE } from '../data/manifest.ts'
import { HANDSHAKES, MEASUREMENTS, TCP, WEBSOCKETS } from '../data/tables.ts'
import { findingsFor, type Finding } from '../findings/index.ts'
import type { Logger } from '../core/log.ts'
import { displayPath } from '../core/paths.ts'
import { verdictRank } from '../core/verdict.ts'
import { documentedReuse } from '../catalog/reuse.ts'
import { writeOutputs } from '../core/atomic.ts'
import { buildArticle } from './article.ts'
import { csvHeader, dataDictionary } from '../data/dictionary.ts'
import { findingsClaimsCsvs } from './summary-export.ts'
import type { BaselineComparison, PairsInput } from './sections/input.ts'
import { renderCharts } from './chart-requests.ts'
import { readOpenSeries } from './open-series.ts'
import { publishedPage } from './published-page.ts'
import { renderPdf, withBrowser } from './pdf.ts'
import { writeRunPage, writeSiteIndex, type SiteEntry, type SiteFile } from './site.ts'

/**
 * The report pipeline: run directory (+ baseline) → aggregates → findings and claims →
 * Markdown article → site/runs/<id>/ (page, charts, CSVs) → PDF → site/index.html.
 * Works from the CSVs alone; raw/ only adds the open model's per-second charts.
 */
export interface ReportOptions {
  runDir: string
  baseline?: string
  siteDir: string
  pdf: boolean
  log: Logger
  /** Footer stamp of the pages; fixed in golden tests. */
  generated?: string
}

export interface ReportResult {
  runId: string
  page: string
  pdf: string | null
  claims: ClaimResult[]
  findings: Finding[]
  aggregates: Aggregates
  /** Pages of the PDF and of its main part (before the appendix); null without a PDF. */
  pdfPages: { pages: number; main: number } | null
  /** The baseline, when one was given: its machine, or a published article's figures. */
  baseline?: BaselineComparison
  /** The paired cells of a run made --like its baseline: the comparison with it (the regression gate and --json read them). */
  pairs?: PairedCell[]
  timings: Record<string, number>
}

/** The run's findings; the F1..F8 groups read `claims` (the ledger's results on this run) when given, so both show one evaluation. */
export const runFindings = (run: RunData, claims?: readonly ClaimResult[]): Finding[] =>
  findingsFor(run, run.manifest.series, { bisect: readBisectPlan(run.dir), ...(claims && { claims }) })

export function compareWithBaseline(run: RunData, b: Baseline, claims: readonly ClaimResult[]): BaselineComparison {
  const id = b.id
  if (b.kind === 'published') {
    const p = publishedDeltas(b.file, claims)
    return { id, kind: 'published', title: p.title, machine: p.machine, sameMachine: false, deltas: p.deltas }
  }
  const host = b.run.manifest.host
  const [fb, fr] = [b.run.manifest.fingerprint, run.manifest.fingerprint]
  const diff = fb && fr ? fingerprintDiff(fb, fr) : null
  const like = readLike(run.dir)
  return {
    id,
    kind: 'run',
    title: `run ${b.run.manifest.run_id}, profile ${b.run.manifest.profile}, ${b.run.manifest.started}`,
    machine:
      `${host.cpu_model}, ${host.cores} cores (${host.hostname}), runtime ${b.run.manifest.runtime}, network ${b.run.manifest.network_mode}` +
      (b.run.manifest.runtime !== run.manifest.runtime
        ? ` (this run: ${run.manifest.runtime}; the Docker/native ratio is measured by bench/runtime-ratio.mjs)`
        : ''),
    // A hostname and a CPU model string do not make a machine: the fingerprint must match too.
    sameMachine: host.hostname === run.manifest.host.hostname && host.cpu_model === run.manifest.host.cpu_model && diff !== null && diff.length === 0,
    fingerprintDiff: diff,
    missingFingerprint: [...(fb ? [] : ['the baseline' as const]), ...(fr ? [] : ['this run' as const])],
    ...(like ? { like, repeated: likeRepetition(b.run, run) } : {}),
  }
}

/**
 * A paired run's cells (docs/method/pairs.md), against its --like baseline's tables for the
 * machine's change: `given` when the report already loaded it. A baseline that cannot be read
 * leaves the proxy changes as they are and the machine's change says why.
 */
export function readPairs(run: PairedRun, given?: Baseline): PairsInput | undefined {
  if (!run.paired) return undefined
  const { sides } = run.paired
  const id = sides.baseline
  let base: Baseline | undefined
  let missing: string | null = null
  try {
    base = given?.id === id ? given : loadBaseline(id)
  } catch (e) {
    missing = `baseline ${id} could not be read (${String((e as Error).message).split('\n')[0]})`
  }
  if (base?.kind === 'published') missing = `baseline ${id} is a published one, without tables`
  return { sides, cells: pairedCells(run, base?.kind === 'run' ? base.run : undefined), baselineMissing: missing }
}

/** Findings, claims and the baseline comparison without building a page (run-all --no-report with gates or --json). */
export function evaluateRun(runDir: string, baseline?: string): Pick<ReportResult, 'findings' | 'claims' | 'baseline' | 'pairs'> {
  const run = loadRun(runDir)
  const base = baseline ? loadBaseline(baseline) : undefined
  const claims = evaluateClaims(loadLedger(), run)
  return { findings: runFindings(run, claims), claims, baseline: base ? compareWithBaseline(run, base, claims) : undefined, pairs: readPairs(run, base)?.cells }
}

export async function buildReport(o: ReportOptions): Promise<ReportResult> {
  const timings: Record<string, number> = {}
  let t = performance.now()
  const lap = (name: string) => {
    const now = performance.now()
    timings[name] = Math.round(now - t)
    t = now
  }
  const run = loadRun(o.runDir)
  const id = run.manifest.run_id
  // Resolve the baseline before anything is written: an unknown id loses nothing.
  const base = o.baseline ? loadBaseline(o.baseline) : undefined
  const aggregates = await aggregate(run)
  lap('aggregate')
  const claims = evaluateClaims(loadLedger(), run)
  const findings = runFindings(run, claims)
  const baseline = base ? compareWithBaseline(run, base, claims) : undefined
  const pairs = readPairs(run, base)
  if (base) await writeBaselinePages(o.siteDir, base, o)
  lap('findings, claims, baseline')
  const article = buildArticle({
    run,
    aggregates,
    findings,
    claims,
    baseline,
    pairs,
    openSeries: readOpenSeries(o.runDir),
    latency: readLatencySpectra(o.runDir),
    documentedReuse,
    bisect: readBisectPlan(run.dir),
  })
  const charts = await renderCharts(article.charts)
  lap('article and charts')

  const summaries = new Map([...summaryCsvs(aggregates), ...findingsClaimsCsvs(findings, claims)])
  const runCsvs = [MEASUREMENTS.file, HANDSHAKES.file, WEBSOCKETS.file, TCP.file].filter((f) => existsSync(join(o.runDir, f)))
  // data/README.md: every CSV of the run with its columns described (lib/data/dictionary.ts).
  const dictionary = dataDictionary([
    ...runCsvs.map((f) => ({ path: f, columns: csvHeader(readFileSync(join(o.runDir, f), 'utf8')) })),
    ...[...summaries].map(([path, text]) => ({ path, columns: csvHeader(text) })),
  ])
  const files: SiteFile[] = [
    ...article.files,
    ...charts,
    ...[...summaries].map(([path, content]) => ({ path: `data/${path}`, content })),
    ...[MANIFEST_FILE, ...runCsvs].filter((f) => existsSync(join(o.runDir, f))).map((f) => ({ path: `data/${f}`, source: join(o.runDir, f) })),
    { path: 'data/README.md', content: dictionary },
  ]
  const written = writeRunPage(o.siteDir, { runId: id, markdown: article.markdown, files, generated: o.generated, title: `proxybench run ${id}` }, o.log)
  lap('site page')

  let pdf: string | null = null
  let pdfPages: ReportResult['pdfPages'] = null
  if (o.pdf) {
    pdf = join(written.dir, 'report.pdf')
    const printed = await withBrowser((browser) => renderPdf(written.page, pdf!, { browser, footerText: `proxybench run ${id}` }))
    pdfPages = { pages: printed.pages, main: printed.mainPages }
    // site/report.pdf: the latest report, where readers look first.
    writeOutputs(o.siteDir, [{ path: 'report.pdf', render: () => readFileSync(pdf!) }])
    o.log.info(
      `wrote ${displayPath(pdf)} and ${displayPath(join(o.siteDir, 'report.pdf'))}: ${printed.pages} pages, the answer and pictures on the first ${printed.mainPages}`,
    )
    lap('pdf')
  }
  await writeHistoryPage(o.siteDir, o.log, o.generated ?? new Date().toISOString())
  lap('history')
  writeSiteIndex(o.siteDir, siteEntries(o.siteDir), o.log, {
    intro: 'Reverse-proxy benchmarks that measure what a proxy costs: CPU microseconds per request. Each run has its article, its CSVs and a PDF.',
    links: [
      { href: HISTORY_PAGE, text: 'History: every run and baseline per proxy' },
      ...(existsSync(join(o.siteDir, 'report.pdf')) ? [{ href: 'report.pdf', text: 'Latest report (PDF)' }] : []),
    ],
    generated: o.generated,
  })
  lap('index')
  return { runId: id, page: written.page, pdf, pdfPages, claims, findings, aggregates, baseline, pairs: pairs?.cells, timings }
}

/** Verdict counts of a published run, from its copied summary/findings.csv and summary/claims.csv (absent: not said). */
function verdictLine(dataDir: string): string {
  const count = (file: string, what: string) => {
    if (!existsSync(file)) return ''
    const rows = Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true }).data
    // findings.csv has a row per interval: one finding is one id and title.
    const seen = new Map<string, string>()
    for (const r of rows) seen.set(`${r.id}|${r.title ?? ''}`, r.verdict ?? '')
    const by = new Map<string, number>()
    for (const v of seen.values()) by.set(v, (by.get(v) ?? 0) + 1)
    // Decided first, then undecided, then the rest, whatever order the CSV had.
    return `${what}: ${[...by]
      .sort(([a], [b]) => verdictRank(a) - verdictRank(b) || a.localeCompare(b))
      .map(([v, n]) => `${n} ${v}`)
      .join(', ')}`
  }
  return [count(join(dataDir, 'summary', 'findings.csv'), 'findings'), count(join(dataDir, 'summary', 'claims.csv'), 'claims')].filter(Boolean).join(' · ')
}

type ManifestBits = {
  started?: string
  profile?: string
  series?: string[]
  runtime?: string
  host?: { cpu_model?: string; cores?: number }
  fingerprint?: unknown
}
const readManifestBits = (file: string): ManifestBits => {
  try {
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ManifestBits) : {}
  } catch {
    return {}
  }
}
const machineText = (m: ManifestBits) =>
  m.host
    ? `${m.host.cpu_model ?? '?'}, ${m.host.cores ?? '?'} cores, fingerprint ${m.fingerprint ? shortFingerprint(m as never) : 'not recorded'}`
    : 'machine not recorded'

/** Every published run (newest first, from its copied manifest, with its verdict counts) and every baseline (id, date, profile, machine, series). */
function siteEntries(siteDir: string): SiteEntry[] {
  const runsDir = join(siteDir, 'runs')
  const runs = existsSync(runsDir) ? readdirSync(runsDir).filter((d) => !d.startsWith('.') && existsSync(join(runsDir, d, 'index.html'))) : []
  const entries = runs
    .map((d) => {
      const m = readManifestBits(join(runsDir, d, 'data', MANIFEST_FILE))
      return {
        href: `runs/${d}/index.html`,
        title: `run ${d}`,
        kind: 'run' as const,
        date: m.started?.slice(0, 10),
        subtitle: [
          m.profile && `profile ${m.profile}`,
          m.series && `series ${m.series.join(', ')}`,
          m.runtime && `runtime ${m.runtime}`,
          verdictLine(join(runsDir, d, 'data')),
        ]
          .filter(Boolean)
          .join(' · '),
        started: m.started ?? '',
      }
    })
    .sort((a, b) => b.started.localeCompare(a.started))
    .map(({ started: _, ...e }) => e)
  const baselinesDir = join(siteDir, 'baselines')
  const baselines = listBaselines().map((b): SiteEntry => {
    const page = existsSync(join(baselinesDir, b.id, 'index.html')) ? `baselines/${b.id}/index.html` : undefined
    const entry = { href: page, title: `baseline ${b.id}`, kind: 'baseline' as const }
    if (b.kind === 'published') {
      const p = readPublished(join(BASELINES_DIR, b.id, PUBLISHED_FILE))
      return {
        ...entry,
        date: /^\d{4}-\d\d-\d\d/.test(b.id) ? b.id.slice(0, 10) : undefined,
        subtitle: `figures transcribed from ${p.source} (baselines/published) · machine: ${p.machine}`,
      }
    }
    const m = readManifestBits(join(BASELINES_DIR, b.id, MANIFEST_FILE))
    return {
      ...entry,
      date: m.started?.slice(0, 10),
      subtitle: [`a promoted run (baselines/runs)`, m.profile && `profile ${m.profile}`, machineText(m), m.series && `series ${m.series.join(', ')}`]
        .filter(Boolean)
        .join(' · '),
    }
  })
  return [...entries, ...baselines]
}

/** A page for the baseline a run was compared with, so the index can link it. */
async function writeBaselinePages(siteDir: string, b: Baseline, o: ReportOptions): Promise<void> {
  const id = b.id
  if (b.kind === 'published') {
    const p = publishedPage(b.file)
    writeRunPage(siteDir, { runId: id, section: 'baselines', markdown: p.markdown, files: p.files, generated: o.generated }, o.log)
    return
  }
  const run = b.run
  const aggregates = await aggregate(run)
  const claims = evaluateClaims(loadLedger(), run)
  const article = buildArticle({ run, aggregates, findings: runFindings(run, claims), claims, pairs: readPairs(run), openSeries: [], documentedReuse })
  const charts = await renderCharts(article.charts)
  const data = [MANIFEST_FILE, MEASUREMENTS.file, HANDSHAKES.file, WEBSOCKETS.file, TCP.file]
    .filter((f) => existsSync(join(b.dir, f)))
    .map((f) => ({ path: `data/${f}`, source: join(b.dir, f) }))
  writeRunPage(
    siteDir,
    { runId: id, section: 'baselines', markdown: article.markdown, files: [...article.files, ...charts, ...data], generated: o.generated },
    o.log,
  )
}
