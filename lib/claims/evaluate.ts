/**
 * Evaluates the claims ledger against one run's rows: a verdict per claim with the
 * numbers behind it. Side-effect free. The check kinds and the verdict rule are the ones
 * documented in the header of baselines/published/claims.yaml:
 *
 * Every figure a unit computes (ratio/equal r, spread s, threshold/count v, a rank's value per
 * proxy) carries an interval from lib/core/intervals.ts: order statistics for one cell's
 * median, a 95% paired bootstrap over the repeats of every cell behind an aggregate or a ratio
 * (the same aggregate of the resampled medians). A constant (published) side has none. A
 * unit's state is three-way on its interval:
 *
 * - holds: the whole interval satisfies the check's band (min/max, above/below (strict),
 *   approx ± tolerance, equal's tolerance, threshold's op, count's tolerance, contrast's max;
 *   rank: every possible place allowed and a lead's whole interval >= its min, or both orders
 *   decided and equal; status: every decisive cell's status allowed; repeats: every cell's
 *   spread between repeats <= max, which is an observation, not an interval);
 * - fails: the whole interval lies on the wrong side (rank: a place or a pair decided
 *   wrong; status: a cell's status certainly not allowed);
 * - undecided: the interval straddles a bound, or rests on a single repeat (which shows no
 *   noise), or rank neighbours' intervals overlap, or a status cell's decisive statuses tie;
 * - missing: a needed cell is absent, has no value (e.g. no valid row) or, in a status check
 *   with `reason`, its rows failed for another reason.
 *
 * A ratio or equal check with `same: [column]` reads side a first and selects side b at a's
 * value of each column (HTTPS / HTTP at the connection count the profile gave the reference).
 *
 * A check with for_each (or a status check with several cells) is several units. The claim is
 * not reproduced if any unit fails; else not measured if any unit is missing; else
 * inconclusive if any unit is undecided; else reproduced. A missing cell never makes a claim
 * "not reproduced", noise never makes it "reproduced" or "not reproduced".
 * Not runnable here: runnable_here: false. A not-measured claim with not_measured_reason (a
 * profile that does not measure its cells) says that reason after what is missing.
 */
import { repeatsDisagree, methodText } from '../core/intervals.ts'
import { claimVerdict, type ClaimVerdict } from '../core/verdict.ts'
import type { RunTables } from '../data/run-data.ts'
import { buildCellGroups, cellLabel, type CellValue } from './cells.ts'
import type { Ctx, State, Unit } from './checks/check.ts'
import { kindOf } from './checks/index.ts'
import type { Claim, Ledger, SelectorSpec } from './ledger.ts'
import type { Fig } from './figure.ts'
import { dedupe } from './sides.ts'

export interface Evidence {
  table: string
  cell: Record<string, string | number | null>
  /** The cell's median of the metric (null for status checks or when no row has a value). */
  value: number | null
  /** Rows behind the value (status checks: all rows of the cell). */
  n: number
  status: string
}

export interface ClaimResult {
  id: string
  source: string
  claim: string
  published: string
  finding: string | null
  verdict: ClaimVerdict
  /** The check's rule in words. */
  expect: string
  /** What this run shows, in words with numbers. */
  measured: string
  evidence: Evidence[]
  comparable_across_machines: boolean
  caveat: string | null
  notes: string | null
  /** e.g. "nginx 1.31.3 article: 1 repeat", "…: invalid rows excluded: 2". */
  warnings: string[]
  /**
   * The one number the check computed (ratio/equal: r, spread: s, threshold/count: v); null for
   * rank and status, when a cell is missing, or when the check ran several times (for_each).
   */
  value: number | null
  /** `value`'s interval (method: order statistics, (paired) bootstrap, single repeat, constant); null when `value` is. */
  interval: { lo: number; hi: number; method: string } | null
  /** What the check centres `value` on: ratio approx, equal 1, spread max, threshold/count value; else null. */
  reference: number | null
  /** Every measured figure of the check's units, named (the for_each item or the unit's own label), with that unit's decision: what a finding group shows. */
  figures: { label: string; fig: Fig; state: State }[]
  /** Each unit's decision (a for_each item, a status cell), in order; none when not runnable here. */
  states: State[]
}

/** Every claim of the ledger against one run's tables, in the ledger's order. */
export function evaluateClaims(ledger: Ledger, data: RunTables): ClaimResult[] {
  const ctx: Ctx = {
    figures: ledger.figures,
    cells: {
      measurements: buildCellGroups('measurements', data.measurements),
      handshakes: buildCellGroups('handshakes', data.handshakes),
      websocket: buildCellGroups('websocket', data.websocket),
      tcp: buildCellGroups('tcp', data.tcp ?? []),
    },
    noisy: new Map(),
    measurements: data.measurements,
    bisect: data.bisect,
    defaultKeys: data.defaultKeys ?? [],
  }
  return ledger.claims.map((c) => evaluateClaim(c, ctx))
}

function evaluateClaim(claim: Claim, ctx: Ctx): ClaimResult {
  const k = claim.check
  const base = {
    id: claim.id,
    source: claim.source,
    claim: claim.claim,
    published: claim.published,
    finding: claim.finding,
    expect: k.expect,
    comparable_across_machines: claim.comparable_across_machines,
    caveat: claim.caveat,
    notes: claim.notes,
  }
  if (!claim.runnable_here) {
    return {
      ...base,
      verdict: claimVerdict('not runnable'),
      measured: claim.not_runnable_reason ?? 'not runnable here',
      evidence: [],
      warnings: [],
      value: null,
      interval: null,
      reference: null,
      figures: [],
      states: [],
    }
  }
  const kind = kindOf(k)
  const items: (SelectorSpec | undefined)[] = k.for_each ?? [undefined]
  const units = items.flatMap((item) => {
    const name = item && items.length > 1 ? itemLabel(item) : ''
    return kind.units(k, item, ctx).map((u) => ({ ...u, text: name ? `${name}: ${u.text}` : u.text, label: [name, u.label ?? ''].filter(Boolean).join(' ') }))
  })
  const verdict = claimVerdict(decideUnits(units))
  const used = dedupe(units.flatMap((u) => u.used))
  const one = units.length === 1 && units[0]!.state !== 'missing' ? units[0]! : undefined
  return {
    ...base,
    verdict,
    measured: verdict === 'not measured' && claim.not_measured_reason ? `${measuredText(units)} (${claim.not_measured_reason})` : measuredText(units),
    evidence: used.map((v) => ({ table: v.cell.table, cell: { ...v.cell.key }, value: v.value, n: v.n, status: v.cell.status })),
    warnings: [...new Set(used.flatMap(cellWarnings))],
    value: one?.fig?.value ?? null,
    interval: one?.fig ? unitInterval(one.fig) : null,
    reference: one?.fig ? (one.reference ?? null) : null,
    figures: units.flatMap((u) => (u.fig && u.fig.method !== 'constant' ? [{ label: u.label ?? '', fig: u.fig, state: u.state }] : [])),
    states: units.map((u) => u.state),
  }
}

/** The claim's decision from its units: fails if any fails; else missing if any is; else undecided if any is; else holds. */
export function decideUnits(units: readonly { state: State }[]): State {
  const has = (s: State) => units.some((u) => u.state === s)
  return has('fails') ? 'fails' : has('missing') ? 'missing' : has('undecided') ? 'undecided' : 'holds'
}

/** A unit figure's interval; repeats that disagree give their range, not an interval (docs/method/disturbance.md#intervals). */
function unitInterval(fig: NonNullable<Unit['fig']>): NonNullable<ClaimResult['interval']> {
  const d = fig.disagree
  if (repeatsDisagree(fig) && d && Number.isFinite(d.lo) && Number.isFinite(d.hi)) return { lo: d.lo, hi: d.hi, method: 'repeats disagree' }
  return { lo: fig.lo, hi: fig.hi, method: methodText(fig) }
}

/** The units in words; what is missing is prefixed "not measured:" once (all missing) or per unit. */
function measuredText(units: Unit[]): string {
  const allMissing = units.every((u) => u.state === 'missing')
  const text = units.map((u) => (u.state === 'missing' && !allMissing ? `not measured: ${u.text}` : u.text)).join('; ')
  return allMissing ? `not measured: ${text}` : text
}

/** A for_each item in words: its values ("rsa2048", "haproxy"; a pair "rsa2048 traefik/nginx"). */
function itemLabel(item: SelectorSpec): string {
  const words = (spec: SelectorSpec) =>
    Object.values(spec.columns)
      .map((v) => (Array.isArray(v) ? v.join('+') : typeof v === 'object' ? JSON.stringify(v) : String(v)))
      .join(' ')
  const pair = item.a && item.b ? `${words(item.a)}/${words(item.b)}` : item.a ? words(item.a) : item.b ? words(item.b) : ''
  return [words(item), pair].filter(Boolean).join(' ')
}

/** A cell's warnings: a single repeat, rows left out as invalid. */
const cellWarnings = (v: CellValue): string[] => [
  ...(v.n === 1 ? [`${cellLabel(v.cell)}: 1 repeat`] : []),
  ...(v.excluded > 0 ? [`${cellLabel(v.cell)}: invalid rows excluded: ${v.excluded}`] : []),
]
