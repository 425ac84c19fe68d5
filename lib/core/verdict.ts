/**
 * The one verdict vocabulary (docs/verdicts.md): every verdict a claim or a finding gets, what
 * it decided, and how it is written: the word, the mark of a terminal line, the badge and the
 * label of the article. Every place that prints a verdict reads this table.
 *
 * A claim of the ledger and a finding of the summary are decided on the same scale (a check
 * holds, fails, is undecided, or its cells are missing); they keep their own words for the two
 * decided ends (a published claim is reproduced, a finding held), as the article always wrote.
 */
import type { Placement } from './intervals.ts'

/** What a check decided, whatever it checked. */
export type Decision = 'holds' | 'fails' | 'undecided' | 'missing' | 'not runnable' | 'info'

/** The three-way rule: a figure whose whole interval is inside its band holds, wholly outside fails, else undecided. */
export const PLACED: Record<Placement, Extract<Decision, 'holds' | 'fails' | 'undecided'>> = { inside: 'holds', outside: 'fails', straddles: 'undecided' }

interface VerdictWords {
  decision: Decision
  /** The terminal summary's mark. */
  mark: string
  /** The article's badge kind (a CSS class). */
  badge: string
  /** The article's label of that badge. */
  label: string
}

/** Every verdict word, with what it decided and how it is shown. */
export const VERDICTS = {
  reproduced: { decision: 'holds', mark: '✓', badge: 'reproduced', label: 'reproduced' },
  'not reproduced': { decision: 'fails', mark: '✗', badge: 'not-reproduced', label: 'not reproduced' },
  held: { decision: 'holds', mark: '✓', badge: 'held', label: 'held' },
  'not held': { decision: 'fails', mark: '✗', badge: 'not-held', label: 'not held' },
  inconclusive: { decision: 'undecided', mark: '?', badge: 'inconclusive', label: 'inconclusive' },
  'not measured': { decision: 'missing', mark: '·', badge: 'not-measured', label: 'not measured' },
  'not runnable here': { decision: 'not runnable', mark: '–', badge: 'not-runnable', label: 'not runnable here' },
  // A figure to report, not a target: the article labels it "figure".
  info: { decision: 'info', mark: '•', badge: 'info', label: 'figure' },
} as const satisfies Record<string, VerdictWords>

/** A verdict: one of the words of VERDICTS. */
export type Verdict = keyof typeof VERDICTS

/** The verdicts of a ledger claim, in the order counts are written. */
export const CLAIM_VERDICTS = ['reproduced', 'not reproduced', 'inconclusive', 'not measured', 'not runnable here'] as const satisfies readonly Verdict[]
/** The verdicts of a finding, in the order counts are written. */
export const FINDING_VERDICTS = ['held', 'not held', 'inconclusive', 'not measured', 'info'] as const satisfies readonly Verdict[]

export type ClaimVerdict = (typeof CLAIM_VERDICTS)[number]
export type FindingVerdict = (typeof FINDING_VERDICTS)[number]
export type BadgeKind = (typeof VERDICTS)[Verdict]['badge']

const wordFor = <V extends Verdict>(list: readonly V[], decision: Decision): V => {
  const v = list.find((w) => VERDICTS[w].decision === decision)
  if (v === undefined) throw new Error(`no verdict word for ${decision} among ${list.join(', ')}`)
  return v
}

/** A claim's verdict for a decision (holds: reproduced). */
export const claimVerdict = (d: Exclude<Decision, 'info'>): ClaimVerdict => wordFor(CLAIM_VERDICTS, d)
/** A finding's verdict for a decision (holds: held). */
export const findingVerdict = (d: Exclude<Decision, 'not runnable'>): FindingVerdict => wordFor(FINDING_VERDICTS, d)

/** Decided either way (held, not held, reproduced, not reproduced): what a flip between runs is counted on. */
export const isDecided = (v: string): boolean => v in VERDICTS && ['holds', 'fails'].includes(VERDICTS[v as Verdict].decision)

/** `✓ held`, `• figure`: the mark and the label, as the article's lists write a verdict. */
export const markedLabel = (v: Verdict): string => `${VERDICTS[v].mark} ${VERDICTS[v].label}`

const DECISION_ORDER: readonly Decision[] = ['holds', 'fails', 'undecided', 'missing', 'not runnable', 'info']

/** Where a verdict word sorts: decided first, then undecided, then the rest; a word not in the table last. */
export const verdictRank = (v: string): number => (v in VERDICTS ? DECISION_ORDER.indexOf(VERDICTS[v as Verdict].decision) : DECISION_ORDER.length)

/**
 * One finding verdict from several parts (the claims of a finding group, one per proxy or
 * per condition): any decided wrong is not held; otherwise any undecided or unmeasured part
 * leaves it inconclusive; nothing measured at all is not measured, never a vacuous held.
 */
export function combineVerdicts(parts: readonly FindingVerdict[]): FindingVerdict {
  const measured = parts.filter((p) => p !== 'not measured')
  if (measured.length === 0) return 'not measured'
  if (parts.includes('not held')) return 'not held'
  if (parts.some((p) => p !== 'held')) return 'inconclusive'
  return 'held'
}

/** A claim's verdict as a part of a finding (a claim not runnable here measured nothing). */
export const asFindingVerdict = (v: ClaimVerdict): FindingVerdict => {
  const d = VERDICTS[v].decision
  return findingVerdict(d === 'not runnable' ? 'missing' : d)
}
