import { REFERENCE_LABELS, REFERENCES, type CalibratedDelta, type ReferenceName, type References } from '../../analysis/calibrated.ts'
import type { LikeRecord } from '../../data/like.ts'
import { formatDelta } from '../../analysis/compare.ts'
import type { TableName } from '../../analysis/cells.ts'
import type { PublishedDelta } from '../../analysis/published.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { Article, esc, num, pct } from '../markdown.ts'

/** What the article shows of a baseline: deltas per cell (a promoted run) or per figure (published). */
export type BaselineComparison =
  | {
    id: string; kind: 'run'; title: string; machine: string; sameMachine: boolean; deltas: CalibratedDelta[]
    /** fingerprintDiff(baseline, run); null when a side has no fingerprint recorded (named in missingFingerprint). */
    fingerprintDiff: string[] | null
    missingFingerprint: ('the baseline' | 'this run')[]
    references: { base: References; run: References }
    referenceChoice: Record<TableName, ReferenceName>
    /** The run was started with --like this baseline: the flags taken and what could not be repeated. */
    like?: LikeRecord
  }
  | { id: string; kind: 'published'; title: string; machine: string; sameMachine: false; deltas: PublishedDelta[] }

const WHY = 'Across machines only CPU microseconds per request (or per handshake, per message) and ratios between cells of one run are compared, never requests per second: a rate says what that bench allowed, the CPU a request costs says what the proxy costs.'

const JUDGE = 'Across different machines, a proxy\'s change is judged on the calibrated unit (its CPU µs divided by a reference measured in the same run, on the same kernel) and on ratios between cells of one run, never on the raw µs delta: two machines of one kind (same CPU model, another kernel build and mitigations) measured every proxy about 2.2x apart in raw µs.'

/** The section, and the chart of its deltas (none when no cell has one). */
export function baselineSection(a: Article, b: BaselineComparison | undefined): ChartRequest[] {
  if (!b) return a.skip('Comparison with the baseline', 'no `--baseline <id>` given'), []
  a.heading(2, 'Comparison with the baseline')
  a.para(`Baseline **${esc(b.id)}**: ${esc(b.title)}. Baseline machine: ${esc(b.machine)}${b.sameMachine ? ' (the same machine as this run)' : ''}. ${WHY}`)
  if (b.kind === 'run' && b.like) likeNote(a, b.like)
  if (b.kind === 'run') return runSection(a, b)
  a.para('The baseline is a published article whose tables did not survive: each quoted figure it states is matched with the cell of this run that measures the same thing. A published figure has no repeats, so no significance test is possible; the delta is shown as is.')
  a.table('baseline', [
    { title: 'figure', value: (d) => d.label },
    { title: 'published', value: (d) => d.published },
    { title: 'this run', value: (d) => d.ours === null ? null : num(d.ours), show: (d) => esc(d.oursText) },
    { title: 'delta', value: (d) => (d.delta === null ? null : pct(d.delta)) },
    { title: 'note', value: (d) => d.note },
  ], b.deltas, 'No figure of the baseline has a matching cell in this run.')
  return []
}

/** What one unit of each table is, for the sentence naming each table's reference. */
const UNIT_OF: Record<TableName, string> = { measurements: 'requests', websocket: 'messages', handshakes: 'handshakes', tcp: 'L4 connections and MiB' }

/** A run made with --like: what it took from the baseline and what it could not repeat as it was. */
function likeNote(a: Article, like: LikeRecord) {
  a.para(`This run repeats baseline **${esc(like.baseline)}** (--like ${esc(like.baseline)}), which means: ${Object.entries(like.flags).map(([k, v]) => `--${esc(k)} ${esc(v)}`).join('; ')}.`)
  if (like.notes.length) {
    a.para('Not repeated as the baseline had it:')
    a.bullets(like.notes.map(esc))
  } else a.para('Every version, variant and setting of the baseline is in the catalog and was repeated.')
}

type RunComparison = Extract<BaselineComparison, { kind: 'run' }>

const ratio = (v: number | null | undefined) => (v === null || v === undefined ? null : v)

function runSection(a: Article, b: RunComparison): ChartRequest[] {
  if (b.fingerprintDiff === null) {
    a.para(`**Machine fingerprint**: not recorded by ${b.missingFingerprint.join(' nor ')} (runs written before fingerprints were recorded have none), so whether the machines differ cannot be told from the data: read the raw µs as if they were different machines.`)
  } else if (b.fingerprintDiff.length > 0) {
    a.para('**The machines differ** (baseline → this run):')
    a.bullets(b.fingerprintDiff.map(esc))
  } else {
    a.para('**Machine fingerprint**: the same as the baseline\'s (CPU, microcode, kernel, mitigations, clock source, virtualisation).')
  }
  a.para(JUDGE)
  const used = new Set(Object.values(b.referenceChoice))
  const units = (Object.entries(UNIT_OF) as [TableName, string][]).map(([t, what]) => `of ${what} ${esc(REFERENCE_LABELS[b.referenceChoice[t]])}`)
  a.para(`References of each run (the calibrated unit ${units.join(', ')}):`)
  a.bullets(REFERENCES.map((r) => {
    const side = (v: number | null) => (v === null ? (r === 'direct' ? 'no direct row' : 'no calibration recorded') : `${num(v)} µs`)
    const base = b.references.base[r]
    const run = b.references.run[r]
    return `${esc(REFERENCE_LABELS[r])}${used.has(r) ? ' (used)' : ''}: baseline ${side(base)}, this run ${side(run)}${base && run ? `, ratio ${num(run / base)}` : ''}`
  }))
  a.para('Per cell: the raw medians (µs) and their change, then the same cells in the calibrated unit (µs ÷ the run\'s reference, per table as above; the CSV names it per row) and their change; each with a Mann-Whitney U test over the repeats (α = 0.05), `~` when not significant. Cells are matched without the version: where it changed, the row says `old → new`.')
  const cal = (d: CalibratedDelta, side: 'base' | 'run') => ratio(d.calibrated?.[side]?.median)
  // The page leaves out what the series and the references above already say (it must fit A4); the CSV keeps every column.
  a.table('baseline', [
    { title: 'table', value: (d) => d.raw.table, csvOnly: true },
    { title: 'series', value: (d) => d.raw.key.series ?? null },
    { title: 'proxy', value: (d) => d.raw.key.proxy ?? null, show: (d) => esc([d.raw.key.proxy, d.raw.key.version].filter(Boolean).join(' ')) },
    { title: 'version', value: (d) => d.raw.key.version ?? null, csvOnly: true },
    { title: 'cell', value: (d) => String(d.raw.key.variant ?? '') + (d.raw.key.key_type ? ` ${d.raw.key.key_type}` : '') + (d.raw.key.mode ? ` ${d.raw.key.mode}` : '') + (d.raw.key.target_rps ? ` @${d.raw.key.target_rps} rps` : '') },
    { title: 'baseline (µs)', value: (d) => d.raw.base?.median ?? null },
    { title: 'this run (µs)', value: (d) => d.raw.run?.median ?? null },
    { title: 'raw delta', value: (d) => formatDelta(d.raw), show: (d) => esc(formatDelta(d.raw)) },
    { title: 'reference', value: (d) => d.reference, csvOnly: true },
    { title: 'baseline (calibrated)', value: (d) => cal(d, 'base') },
    { title: 'this run (calibrated)', value: (d) => cal(d, 'run') },
    { title: 'calibrated delta', value: (d) => (d.calibrated ? formatDelta(d.calibrated) : 'no calibration recorded'), show: (d) => (!d.calibrated ? 'no calibration recorded' : d.calibrated.significant ? `**${esc(formatDelta(d.calibrated))}**` : esc(formatDelta(d.calibrated))) },
  ], b.deltas, 'No cell of this run is in the baseline.')
  return []
}
