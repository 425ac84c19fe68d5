/**
 * The registry of claim check kinds: one line per kind (CONTRIBUTING.md#a-check-kind). The
 * ledger's check schema is the union of their schemas; the evaluator runs a check through
 * its kind's units.
 */
import { z } from 'zod'
import type { SchemaParts } from '../selectors.ts'
import type { CheckDef, CommonFields } from './check.ts'
import { bisect } from './bisect.ts'
import { contrast } from './contrast.ts'
import { count } from './count.ts'
import { equal } from './equal.ts'
import { follows } from './follows.ts'
import { openOutcome } from './open-outcome.ts'
import { rank } from './rank.ts'
import { ratio } from './ratio.ts'
import { repeats } from './repeats.ts'
import { reuse } from './reuse.ts'
import { servedKey } from './served-key.ts'
import { spread } from './spread.ts'
import { status } from './status.ts'
import { threshold } from './threshold.ts'

/** Every kind, in the order a YAML error lists them. */
const KINDS = [ratio, equal, spread, rank, contrast, repeats, threshold, status, count, servedKey, bisect, follows, openOutcome, reuse] as const

/** The registered kinds' names, in that order. */
export const CHECK_KINDS: readonly string[] = KINDS.map((k) => k.kind)

/** The kinds' zod objects as a tuple (what discriminatedUnion takes). */
type SchemasOf<T extends readonly unknown[]> = { -readonly [I in keyof T]: T[I] extends { schema(p: SchemaParts): infer S } ? S : never }
type Schemas = SchemasOf<typeof KINDS>

/** A check of claims.yaml: one of the kinds' zod objects, told apart by `kind`. */
export const checkSchema = (p: SchemaParts) => z.discriminatedUnion('kind', KINDS.map((k) => k.schema(p)) as unknown as Schemas)

export type Check = z.infer<ReturnType<typeof checkSchema>>
export type CheckKind = Check['kind']

const BY_KIND = new Map<string, CheckDef<CommonFields>>(KINDS.map((k) => [k.kind, k as unknown as CheckDef<CommonFields>]))

/** The kind of a parsed check (every parsed check has one: the schema is the union of the kinds). */
export function kindOf(k: Check): CheckDef<Check> {
  return BY_KIND.get(k.kind)! as unknown as CheckDef<Check>
}
