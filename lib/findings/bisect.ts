import { bisectResults, type BisectPlan } from '../data/bisect.ts'
import type { Measurement } from '../data/schema.ts'
import type { Finding } from './types.ts'

/** One finding per bisect search: the step it found (info: a search answers a question, it checks no claim). */
export function bisectFindings(rows: readonly Measurement[], plan: BisectPlan | undefined): Finding[] {
  if (!plan) return [{ id: 'bisect', title: 'bisect: which release changed this?', verdict: 'not measured', figure: 'no bisect.json in the run' }]
  return bisectResults(plan, rows).map((r) => ({
    id: `bisect ${r.search.proxy} ${r.search.variant}`,
    title: `bisect: which ${r.search.proxy} release changed ${r.search.variant}?`,
    verdict: r.state.kind === 'measure' ? 'not measured' : 'info',
    figure: r.line,
    ...('judgement' in r.state
      ? { intervals: [{ label: `${r.search.proxy} ${r.search.variant} ${r.state.newer}/${r.state.older}`, interval: r.state.judgement.ratio }] }
      : {}),
  }))
}
