import { z } from 'zod'
import type { ClaimResult } from '../claims/evaluate.ts'
import { loadLedger, type Claim } from '../claims/ledger.ts'
import { readYamlFile } from '../yaml-file.ts'
import { Article, esc } from '../report/md.ts'

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
    .map((c): PublishedDelta => ({
      label: c.id,
      published: c.published,
      ours: c.value,
      oursText: c.verdict === 'not measured' || c.verdict === 'not runnable here' ? c.verdict : c.measured,
      delta: centredOnFigure(checks.get(c.id)) && c.value !== null && c.reference !== null && c.reference !== 0 ? c.value / c.reference - 1 : null,
      note: `${c.verdict}${c.caveat ? `; ${c.caveat}` : ''}`,
    }))
  return { title: p.title, machine: p.machine, deltas }
}

/** The baseline's own page: what it is and every figure it quotes. */
export function publishedPage(file: string): { markdown: string; files: { path: string; content: string }[] } {
  const p = readPublished(file)
  const figures = [...loadLedger().figures.values()].filter((f) => f.source === p.source)
  const a = new Article()
  a.heading(1, `Baseline ${esc(p.id)}`)
  a.para(`${esc(p.title)}. Machine: ${esc(p.machine)}.${p.notes ? ` ${esc(p.notes)}` : ''}`)
  a.para('Every figure below is transcribed from the article (`baselines/published/figures.yaml`), with its words; nothing is computed or inferred.')
  a.table('figures', [
    { title: 'figure', value: (f) => f.id },
    { title: 'proxy', value: (f) => f.proxy ?? '' },
    { title: 'metric', value: (f) => f.metric },
    { title: 'value', value: (f) => (typeof f.value === 'number' || typeof f.value === 'string' ? f.value : String(f.value)) },
    { title: 'unit', value: (f) => f.unit ?? '' },
    { title: 'meaning', value: (f) => f.meaning },
    { title: 'quote', value: (f) => f.quote },
  ], figures)
  return { markdown: a.toString(), files: a.files }
}
