/**
 * Finding groups: baselines/published/findings.yaml. Each line of the summary a seed finding
 * (F1..F8) prints is a named group of ledger claims: its title (the words the summary and the
 * article print), the series whose run shows it, and the claims whose verdicts it combines.
 * The group's verdict is its claims' decisions (each unit of each claim) combined by
 * lib/core/verdict.ts combineVerdicts;
 * its figure line is their measured texts, its intervals their figures'. So a finding's
 * verdict comes from the ledger evaluator, and from nothing else.
 */
import { LEVEL, type Interval } from '../core/intervals.ts'
import { asFindingVerdict, combineVerdicts, findingVerdict, type FindingVerdict } from '../core/verdict.ts'
import type { ClaimResult } from './evaluate.ts'
import type { FindingGroup } from './ledger.ts'
import type { Fig } from './figure.ts'
import { fmtFig } from './words.ts'

/** A finding line decided by its group: the shape of a summary finding (lib/findings/types.ts). */
export interface GroupResult {
  id: string
  title: string
  verdict: FindingVerdict
  figure: string
  intervals: { label: string; interval: Interval; verdict: FindingVerdict }[]
}

/** A unit's figure as an interval of the summary (a constant never gets here). */
const asInterval = (f: Fig): Interval => ({
  value: f.value,
  lo: f.lo,
  hi: f.hi,
  level: f.level ?? LEVEL,
  method: f.method === 'constant' ? 'single repeat' : f.method,
  n: f.n ?? 1,
  ...(f.floor && { floor: f.floor }),
  ...(f.disagree && { disagree: f.disagree }),
})

/**
 * A claim's parts as finding verdicts: each unit's decision (a for_each item per proxy), so a
 * proxy the run did not measure leaves "for every proxy" inconclusive, not the whole line
 * unmeasured; a claim not runnable here is one unmeasured part.
 */
const parts = (r: ClaimResult): FindingVerdict[] => (r.states.length ? r.states.map((s) => findingVerdict(s)) : [asFindingVerdict(r.verdict)])

/**
 * A claim's figures the way a summary line reads at a glance: `caddy 1.54 [1 repeat], envoy
 * 2.38 [1.9, 2.9]`. A claim with a unit not measured, or with no figure (a status, a rank),
 * keeps its measured text, which says what is missing and why.
 */
function brief(r: ClaimResult, figure: FindingGroup['figure']): string {
  const complete = r.states.length > 0 && r.states.every((s) => s !== 'missing') && r.figures.length === r.states.length
  return figure === 'figures' && complete && r.figures.length > 1 ? r.figures.map((f) => `${f.label} ${fmtFig(f.fig)}`.trim()).join(', ') : r.measured
}

/** One group's line from the run's claim results. */
export function evaluateGroup(g: FindingGroup, results: readonly ClaimResult[]): GroupResult {
  const mine = g.claims.map((id) => {
    const r = results.find((x) => x.id === id)
    if (!r) throw new Error(`finding ${g.id}: claim ${id} was not evaluated`)
    return r
  })
  const several = mine.length > 1
  return {
    id: g.id,
    title: g.title,
    verdict: combineVerdicts(mine.flatMap(parts)),
    figure: mine.map((r) => (several ? `${r.id}: ${brief(r, g.figure)}` : brief(r, g.figure))).join('; '),
    intervals: mine.flatMap((r) =>
      r.figures.map((f) => ({ label: f.label ? `${f.label} (${r.id})` : r.id, interval: asInterval(f.fig), verdict: findingVerdict(f.state) })),
    ),
  }
}

/** The lines of the groups of the named series, in the file's order. */
export const groupLines = (groups: readonly FindingGroup[], series: string, results: readonly ClaimResult[]): GroupResult[] =>
  groups.filter((g) => g.series === series).map((g) => evaluateGroup(g, results))
