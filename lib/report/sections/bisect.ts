import { BISECT_REPEATS, cellMedian } from '../../core/bisect.ts'
import { BISECT_METRICS, bisectResults, searchCells, type BisectMetric } from '../../data/bisect.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

/**
 * The bisect series (notebooks/bisect.mjs): for each search the versions in the order
 * searched, what was measured on each, and the step. Only in a run that holds a bisect.
 */
export function bisectSection(a: Article, { run, bisect }: ArticleInput): ChartRequest[] {
  if (!bisect) return []
  const m = BISECT_METRICS[bisect.metric]
  a.heading(2, 'Bisect: which release changed it?')
  a.para(
    `Each search measured the oldest and newest versions, then the middle of the interval whose ends differ, until two adjacent versions differ (series \`bisect\`, at least ${BISECT_REPEATS} repeats per version). Two versions differ when Mann-Whitney U gives p < ${bisect.alpha} on ${m.label} and the whole interval of the ratio newer / older lies outside ±${Math.round(100 * bisect.min_effect)}%. The search assumes one step; where both halves of an interval differ it follows the larger change and says so. Versions it did not need are not measured.`,
  )
  for (const r of bisectResults(bisect, run.measurements)) {
    const { proxy, variant } = r.search
    a.heading(3, `${proxy} ${variant} (${r.search.source}, ${r.search.versions.length} versions)`)
    a.para(r.line)
    const cells = (k: BisectMetric) => searchCells(r.search, k, run.measurements)
    const cpu = cells('cpu')
    const conns = cells('conns')
    const step = r.state.kind === 'step' ? [r.state.older, r.state.newer] : []
    a.table(
      `bisect-${proxy}-${variant}`,
      [
        { title: 'version', value: (v: string) => v },
        { title: 'repeats', value: (v: string) => cpu.get(v)?.size ?? 0 },
        { title: 'proxy CPU µs/req', value: (v: string) => cellMedian(cpu.get(v)) },
        { title: 'backend conns/1k', value: (v: string) => cellMedian(conns.get(v)) },
        {
          title: 'role',
          value: (v: string) => (step.includes(v) ? `step (${v === step[0] ? 'older' : 'newer'})` : (cpu.get(v)?.size ?? 0) > 0 ? 'probed' : 'not needed'),
        },
      ],
      r.search.versions,
    )
    if (r.search.skipped.length) a.para(`Left out of the order: ${r.search.skipped.map((s) => `${s.tag} (${s.why})`).join(', ')}.`)
  }
  return []
}
