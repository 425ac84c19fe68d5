import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc, num, pct } from '../markdown.ts'
import { slugify } from '../render.ts'
import type { LikeRecord } from '../../data/like.ts'
import type { LikeRepetition } from '../../analysis/like-repeat.ts'
import type { BaselineComparison } from './input.ts'
import { PAIRS_TITLE } from './pairs.ts'

const WHY =
  'Across machines only CPU microseconds per request (or per handshake, per message) and ratios between cells of one run are compared, never requests per second: a rate says what that bench allowed, the CPU a request costs says what the proxy costs.'

/**
 * A run baseline is compared by pairs only: then and now measured in one run. Two runs differ
 * by the machine's drift as much as by a proxy's change (docs/method/comparison.md).
 */
const PAIRED = `The comparison with this baseline is [${PAIRS_TITLE}](#${slugify(PAIRS_TITLE)}): each proxy's change measured with then and now in the same rounds of this run.`
const NOT_PAIRED = (id: string) =>
  `This run was not made \`--like ${id}\`, so no proxy is compared with the baseline: two runs differ by the machine's drift as much as by a proxy's change, and only then and now measured in one run tell them apart (docs/method/comparison.md). To compare, run \`npx zx notebooks/run-all.mjs --like ${id}\`.`

/** The section, and the chart of its deltas (none when no cell has one). */
export function baselineSection(a: Article, b: BaselineComparison | undefined, paired = false): ChartRequest[] {
  if (!b) return (a.skip('Comparison with the baseline', 'no `--baseline <id>` given'), [])
  a.heading(2, 'Comparison with the baseline')
  a.para(`Baseline **${esc(b.id)}**: ${esc(b.title)}. Baseline machine: ${esc(b.machine)}${b.sameMachine ? ' (the same machine as this run)' : ''}. ${WHY}`)
  if (b.kind === 'run') {
    a.para(paired ? PAIRED : NOT_PAIRED(esc(b.id)))
    if (b.like) likeNote(a, b.like, b.repeated)
    machineNote(a, b)
    return []
  }
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

/** Whether the machines differ, from the fingerprints: what a reader weighs the machine's change in the pairs against. */
function machineNote(a: Article, b: RunComparison): void {
  if (b.fingerprintDiff === null) {
    a.para(
      `**Machine fingerprint**: not recorded by ${b.missingFingerprint.join(' nor ')} (runs written before fingerprints were recorded have none), so whether the machines differ cannot be told from the data.`,
    )
  } else if (b.fingerprintDiff.length > 0) {
    a.para('**The machines differ** (baseline → this run):')
    a.bullets(b.fingerprintDiff.map(esc))
  } else {
    a.para("**Machine fingerprint**: the same as the baseline's (CPU, microcode, kernel, mitigations, clock source, virtualisation).")
  }
}
