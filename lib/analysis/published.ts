import { z } from 'zod'
import type { ClaimResult } from '../claims/evaluate.ts'
import { loadLedger, type Claim } from '../claims/ledger.ts'
import { readYamlFile } from '../core/yaml-file.ts'

/**
 * A published baseline (`baselines/runs/<id>/published.yaml`): an article whose tables did
 * not survive, compared through the claims ledger. Each claim of that article that compares
 * across machines gives one row: the published figure, this run's, and the delta.
 */
const publishedSchema = z.object({
  id: z.string(),
  title: z.string(),
  source: z.string(),
  machine: z.string(),
  notes: z.string().optional(),
})

export interface PublishedDelta {
  label: string
  published: string
  ours: number | null
  oursText: string
  /** ours / reference - 1, when the claim's check compares one number with one published number. */
  delta: number | null
  note: string
}

export function readPublished(file: string) {
  return readYamlFile(file, publishedSchema, 'Fix the field named; see baselines/README.md')
}

/**
 * A delta means something only where the check centres on a published number: a ratio
 * with `approx`, an equality, a count. A spread's or threshold's bar is a tolerance.
 */
function centredOnFigure(check: Claim['check'] | undefined): boolean {
  return !!check && ((check.kind === 'ratio' && check.approx !== undefined) || check.kind === 'equal' || check.kind === 'count')
}

export function publishedDeltas(file: string, claims: readonly ClaimResult[]) {
  const p = readPublished(file)
  const checks = new Map(loadLedger().claims.map((c) => [c.id, c.check]))
  const deltas = claims
    .filter((c) => c.source === p.source && c.comparable_across_machines)
    .map(
      (c): PublishedDelta => ({
        label: c.id,
        published: c.published,
        ours: c.value,
        oursText: c.verdict === 'not measured' || c.verdict === 'not runnable here' ? c.verdict : c.measured,
        delta: centredOnFigure(checks.get(c.id)) && c.value !== null && c.reference !== null && c.reference !== 0 ? c.value / c.reference - 1 : null,
        note: `${c.verdict}${c.caveat ? `; ${c.caveat}` : ''}`,
      }),
    )
  return { title: p.title, machine: p.machine, deltas }
}
