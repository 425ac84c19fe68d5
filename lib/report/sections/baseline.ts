import { REFERENCE_LABELS, REFERENCES, type ReferenceName, type References } from '../../analysis/calibrated.ts'
import type { LikeRecord } from '../../data/like.ts'
import type { LikeRepetition } from '../../analysis/like-repeat.ts'
import { ALPHA, formatChange, formatDetectable, KIND_ORDER, POWER, type ComparisonRow } from '../../analysis/compare.ts'
import type { TableName } from '../../analysis/cells.ts'
import type { PublishedDelta } from '../../analysis/published.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc, num, pct } from '../markdown.ts'
import { slugify } from '../render.ts'
import { PAIRS_TITLE } from './pairs.ts'

/** What the article shows of a baseline: deltas per cell (a promoted run) or per figure (published). */
export type BaselineComparison =
  | {
      id: string
      kind: 'run'
      title: string
      machine: string
      sameMachine: boolean
      /** Counts, ratios within a run, then costs, each with its across-run test (lib/analysis/compare.ts). */
      comparison: ComparisonRow[]
      /** fingerprintDiff(baseline, run); null when a side has no fingerprint recorded (named in missingFingerprint). */
      fingerprintDiff: string[] | null
      missingFingerprint: ('the baseline' | 'this run')[]
      references: { base: References; run: References }
      referenceChoice: Record<TableName, ReferenceName>
      /** The run was started with --like this baseline: the flags taken and what could not be repeated. */
      like?: LikeRecord
      /** With `like`: what the rows of both runs show was repeated (lib/analysis/like-repeat.ts). */
      repeated?: LikeRepetition
    }
  | { id: string; kind: 'published'; title: string; machine: string; sameMachine: false; deltas: PublishedDelta[] }

const WHY =
  'Across machines only CPU microseconds per request (or per handshake, per message) and ratios between cells of one run are compared, never requests per second: a rate says what that bench allowed, the CPU a request costs says what the proxy costs.'

const JUDGE =
  "Across different machines, a proxy's change is judged on the calibrated unit (its CPU µs divided by a reference measured in the same run, on the same kernel) and on ratios between cells of one run, never on the raw µs delta: two machines of one kind (same CPU model, another kernel build and mitigations) measured every proxy about 2.2x apart in raw µs."

/**
 * A paired run keeps this section (fingerprints, references, counts, what --like repeated) but
 * its costs across runs are the machine's drift as much as the proxy's change: it says so and
 * points at the pairs, which measure the change without the drift.
 */
const PAIRED =
  `This run is paired: each proxy's change is measured side by side in one run in [${PAIRS_TITLE}](#${slugify(PAIRS_TITLE)}). ` +
  "The costs below come from two runs, so each change of cost holds the machine's drift as well: read it as the machines', not as a proxy's change."

/** The section, and the chart of its deltas (none when no cell has one). */
export function baselineSection(a: Article, b: BaselineComparison | undefined, paired = false): ChartRequest[] {
  if (!b) return (a.skip('Comparison with the baseline', 'no `--baseline <id>` given'), [])
  a.heading(2, 'Comparison with the baseline')
  a.para(`Baseline **${esc(b.id)}**: ${esc(b.title)}. Baseline machine: ${esc(b.machine)}${b.sameMachine ? ' (the same machine as this run)' : ''}. ${WHY}`)
  if (paired) a.para(PAIRED)
  if (b.kind === 'run' && b.like) likeNote(a, b.like, b.repeated)
  if (b.kind === 'run') return runSection(a, b)
  a.para(
    'The baseline is a published article whose tables did not survive: each quoted figure it states is matched with the cell of this run that measures the same thing. A published figure has no repeats, so no significance test is possible; the delta is shown as is.',
  )
  const deltas = () =>
    a.table(
      'baseline',
      [
        { title: 'figure', value: (d) => d.label },
        { title: 'published', value: (d) => d.published },
        { title: 'this run', value: (d) => (d.ours === null ? null : num(d.ours)), show: (d) => esc(d.oursText) },
        { title: 'delta', value: (d) => (d.delta === null ? null : pct(d.delta)) },
        { title: 'note', value: (d) => d.note },
      ],
      b.deltas,
      'No figure of the baseline has a matching cell in this run.',
    )
  // The picture "Against the baseline" draws every delta; the table is for looking one up.
  if (b.deltas.length) a.siteOnly('The comparison with the baseline figure by figure: published, this run, delta', deltas)
  else deltas()
  return []
}

/** What one unit of each table is, for the sentence naming each table's reference. */
const UNIT_OF: Record<TableName, string> = { measurements: 'requests', websocket: 'messages', handshakes: 'handshakes', tcp: 'L4 connections and MiB' }

/** A run made with --like: what it took from the baseline and what it could not repeat as it was. */
function likeNote(a: Article, like: LikeRecord, repeated: LikeRepetition | undefined) {
  a.para(
    `This run repeats baseline **${esc(like.baseline)}** (--like ${esc(like.baseline)}), which means: ${Object.entries(like.flags)
      .map(([k, v]) => `--${esc(k)} ${esc(v)}`)
      .join('; ')}.`,
  )
  // What ran, from the rows of both runs: the flags say what was asked.
  if (repeated) {
    const same = repeated.same.length
      ? `Series that ran the baseline's versions of every proxy: ${repeated.same.map(esc).join(', ')}.`
      : "No series ran the baseline's versions of every proxy."
    a.para(repeated.differences.length || repeated.missing.length ? same : `${same} Every series of the baseline ran here with the baseline's versions.`)
    const lines = [...repeated.differences, ...repeated.missing.map((s) => `${s}: in the baseline, not in this run`)]
    if (lines.length) {
      a.para('Ran otherwise than in the baseline (from the rows of both runs):')
      a.bullets(lines.map(esc))
    }
  }
  if (like.notes.length) {
    a.para('What --like said it could not repeat as the baseline had it:')
    a.bullets(like.notes.map(esc))
  }
}

type RunComparison = Extract<BaselineComparison, { kind: 'run' }>

function runSection(a: Article, b: RunComparison): ChartRequest[] {
  if (b.fingerprintDiff === null) {
    a.para(
      `**Machine fingerprint**: not recorded by ${b.missingFingerprint.join(' nor ')} (runs written before fingerprints were recorded have none), so whether the machines differ cannot be told from the data: read the raw µs as if they were different machines.`,
    )
  } else if (b.fingerprintDiff.length > 0) {
    a.para('**The machines differ** (baseline → this run):')
    a.bullets(b.fingerprintDiff.map(esc))
  } else {
    a.para("**Machine fingerprint**: the same as the baseline's (CPU, microcode, kernel, mitigations, clock source, virtualisation).")
  }
  a.para(JUDGE)
  const used = new Set(Object.values(b.referenceChoice))
  const units = (Object.entries(UNIT_OF) as [TableName, string][]).map(([t, what]) => `of ${what} ${esc(REFERENCE_LABELS[b.referenceChoice[t]])}`)
  a.para(`References of each run (the calibrated unit ${units.join(', ')}):`)
  a.bullets(
    REFERENCES.map((r) => {
      const side = (v: number | null) => (v === null ? (r === 'direct' ? 'no direct row' : 'no calibration recorded') : `${num(v)} µs`)
      const base = b.references.base[r]
      const run = b.references.run[r]
      return `${esc(REFERENCE_LABELS[r])}${used.has(r) ? ' (used)' : ''}: baseline ${side(base)}, this run ${side(run)}${base && run ? `, ratio ${num(run / base)}` : ''}`
    }),
  )
  comparisonTables(a, b.comparison)
  return []
}

const KIND_TITLE: Record<ComparisonRow['kind'], string> = {
  count: 'Counts per request (they do not depend on the machine)',
  ratio: 'Ratios between cells of one run (the machine cancels; `proxy / direct` is the calibrated unit)',
  cost: "Costs (µs; on another machine read them as that machine's)",
}

const UNIT_NOTE: Record<string, string> = {
  proxy_cpu_us_per_req: 'µs/req',
  proxy_cpu_us_per_handshake: 'µs/handshake',
  proxy_cpu_us_per_msg: 'µs/msg',
  backend_cpu_us_per_req: 'direct row, backend µs/req',
}

/** `; the others could have seen ±x% (median) to ±y% (largest)`, over the tested rows without a change. */
function seen(decided: readonly ComparisonRow[]): string {
  const d = decided
    .filter((r) => r.verdict === 'no change' && r.detectable !== null)
    .map((r) => r.detectable!)
    .sort((a, b) => a - b)
  if (d.length === 0) return ''
  const p = (x: number) => `±${(x * 100).toFixed(1)}%`
  return `; the ${d.length} without a change could have seen changes of ${p(d[Math.floor((d.length - 1) / 2)]!)} (median) to ${p(d.at(-1)!)} (largest)`
}

/** One table per kind of figure, in KIND_ORDER; the CSV keeps every column of every row. */
function comparisonTables(a: Article, rows: readonly ComparisonRow[]) {
  if (rows.length === 0) {
    a.para('*No figure of this run is in the baseline.*')
    return
  }
  const decided = rows.filter((r) => r.verdict !== 'too few repeats to compare')
  const changed = decided.filter((r) => r.verdict !== 'no change')
  a.para(
    `Each figure is compared on the log scale by a random-effects test (docs/method/comparison.md): the two medians' difference against the noise of each run's own rounds **and** the between-run variance of that kind of figure, which more windows of one run cannot show (Kalibera & Jones: a run is a level of its own). A change is named when its ${((1 - ALPHA) * 100).toFixed(0)}% interval excludes 0; \`could detect\` is the smallest change the test finds with probability ${POWER} at these repeats; where no between-run variance can be estimated from what the runs hold (no lab-note figure for that kind, and too few rounds), the row says *too few repeats to compare*: a test that cannot reach its level is not shown. ${decided.length} of ${rows.length} figures could be tested; ${changed.length} changed beyond the noise${seen(decided)}.`,
  )
  const sources = new Map<string, number>()
  for (const r of rows) sources.set(r.between.source, (sources.get(r.between.source) ?? 0) + 1)
  a.para('Where the between-run variance of each row comes from (the CSV names it per row):')
  a.bullets([...sources].map(([s, n]) => `${esc(s)}: ${n} figure${n === 1 ? '' : 's'}`))
  // For looking one up: the picture "Against the baseline" draws every change (a paired run's pairs say its own).
  a.siteOnly('The comparison with the baseline figure by figure: counts, ratios and costs with their change and verdict', () => {
    for (const kind of KIND_ORDER) {
      const of = rows.filter((r) => r.kind === kind)
      if (of.length === 0) continue
      a.para(`**${KIND_TITLE[kind]}**`)
      a.table(
        `baseline-${kind}`,
        [
          { title: 'figure', value: (r) => r.metric, show: (r) => esc(UNIT_NOTE[r.metric] ?? r.metric) },
          { title: 'table', value: (r) => r.table, csvOnly: true },
          { title: 'series', value: (r) => r.key.series ?? null },
          { title: 'proxy', value: (r) => r.key.proxy ?? null, show: (r) => esc([r.key.proxy, r.key.version].filter(Boolean).join(' ')) },
          { title: 'version', value: (r) => r.key.version ?? null, csvOnly: true },
          {
            title: 'cell',
            value: (r) =>
              String(r.key.variant ?? '') +
              (r.key.key_type && r.key.key_type !== 'ec256' ? ` ${r.key.key_type}` : '') +
              (r.key.mode ? ` ${r.key.mode}` : '') +
              (r.key.target_rps ? ` @${r.key.target_rps} rps` : ''),
          },
          { title: 'baseline', value: (r) => r.base.median },
          { title: 'this run', value: (r) => r.run.median },
          { title: 'n', value: (r) => `${r.base.n}+${r.run.n}` },
          {
            title: 'change [95%]',
            value: (r) => formatChange(r),
            show: (r) => (r.verdict === 'increased' || r.verdict === 'decreased' ? `**${esc(formatChange(r))}**` : esc(formatChange(r))),
          },
          { title: 'could detect', value: (r) => r.detectable, show: (r) => esc(formatDetectable(r)) },
          { title: 'verdict', value: (r) => r.verdict },
          { title: 'between-run SD (log)', value: (r) => r.between.sd, csvOnly: true },
          { title: 'between-run source', value: (r) => r.between.source, csvOnly: true },
        ],
        of,
      )
    }
  })
}
