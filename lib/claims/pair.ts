/**
 * The two sides of a ratio or equal check: a, then b at a's value of each `same` column, their
 * ratio a/b with its interval, and the sides in words.
 */
import type { CellValue } from './cells.ts'
import { missingUnit, sourceOf, type CommonFields, type Ctx, type Issue, type NamedSelector, type Unit } from './checks/check.ts'
import { figureOf, type Fig } from './figure.ts'
import { byRounds, driftFactor, sharedRounds, widenByDrift, type Rounds } from './rounds.ts'
import { KEY_COLUMNS, type Selector, type SelectorSpec } from './selectors.ts'
import { layer, sameAs, side, type Side } from './sides.ts'
import { fmt, unitOf, unitTail, withUnit } from './words.ts'

/** The fields a ratio and an equal check share. */
export interface PairFields extends CommonFields {
  a: Selector
  b: Selector
  same?: string[] | undefined
}

export interface Pair {
  /** r = a / b with its interval. */
  fig: Fig
  /** `(haproxy pool-added 46,069 / nginx pool-added 43,138 rps)` */
  detail: string
  used: CellValue[]
}

/** Both sides read and divided; a missing cell (or a's cells disagreeing on a `same` column) is the missing unit instead. */
export function readPair(k: PairFields, item: SelectorSpec | undefined, ctx: Ctx): Pair | Unit {
  const src = sourceOf(k)
  const a = side(layer(k.select, item, k.a, item?.a), src, ctx)
  const like = sameAs(a, k.same)
  if (typeof like === 'string') return missingUnit([like], a.values)
  const b = side(layer(k.select, item, k.b, item?.b, like), src, ctx)
  const used = [...a.values, ...b.values]
  if (a.missing.length || b.missing.length) return missingUnit([...a.missing, ...b.missing], used)
  // Two measured sides: read by round when they share enough rounds, else widened by the drift.
  const rounds = a.values.length && b.values.length ? sharedRounds([...a.values, ...b.values]) : null
  const ratio = ([x, y]: readonly number[]) => x! / y!
  const raw = figureOf([a, b], ratio, rounds?.pairing ?? 'rounds')
  const fig =
    rounds === null
      ? raw
      : rounds.pairing === 'rounds'
        ? byRounds(raw, [a, b], ratio, rounds.shared)
        : widenByDrift(raw, driftFactor(a.metric) ?? driftFactor(b.metric))
  return { fig, detail: `${pairWords(a, b)}${driftWords(fig, rounds)}`, used }
}

/**
 * What widened the figure beyond its repeats' bootstrap: `; measured apart (measured in different
 * phases): ×/÷1.49 for drift`, or `; by round: 2 rounds` when the rounds' own figures disagree.
 */
function driftWords(fig: Fig, rounds: Rounds | null): string {
  if (fig.drift && rounds) return `; measured apart (${rounds.why}): ×/÷${fig.drift.toFixed(2)} for drift`
  return fig.rounds ? `; by round: ${fig.rounds} rounds` : ''
}

/** The sides in words: one unit at the end when both share it, else each value with its own. */
function pairWords(a: Side, b: Side): string {
  const sameUnit = unitOf(a.metric ?? b.metric) === unitOf(b.metric ?? a.metric)
  const show = (s: Side) => (sameUnit ? fmt(s.value!) : withUnit(s.value!, s.metric))
  const tail = sameUnit ? unitTail(a.metric ?? b.metric) : ''
  return `(${a.label} ${show(a)} / ${b.label} ${show(b)}${tail})`
}

/** A kind that reads sides a and b under select (ratio, equal): pairs in for_each items, a constant side allowed. */
export const PAIR_KIND = {
  sides: (k: PairFields): NamedSelector[] => [
    { path: ['a'], sel: k.a },
    { path: ['b'], sel: k.b },
  ],
  layered: true,
  pairs: true,
  constants: true,
  needsMetric: true,
} as const

/** `same` names selector columns of the check's table. */
export function sameColumnsRule(k: PairFields, issue: Issue): void {
  k.same?.forEach((col, i) => {
    if (!KEY_COLUMNS[k.table].includes(col)) issue(['same', i], `"${col}" is not a selector column of ${k.table} (one of ${KEY_COLUMNS[k.table].join(', ')})`)
  })
}
