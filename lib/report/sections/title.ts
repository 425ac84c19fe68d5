import type { ChartRequest } from '../chart-requests.ts'
import { Article, esc } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

/** The title, what was run and what the numbers mean, and the place of the contents. */
export function titleSection(a: Article, { run }: ArticleInput): ChartRequest[] {
  const m = run.manifest
  a.heading(1, `proxybench run ${esc(m.run_id)}`)
  a.para(
    `Profile **${esc(m.profile)}**, series ${esc(m.series.join(', '))}, proxies ${esc(m.proxies.join(', '))}; ` +
      `started ${esc(m.started)}${m.finished ? `, finished ${esc(m.finished)}` : ', **not finished**'}. ` +
      'The figure that matters is the proxy\'s CPU time per request (µs), read from cumulative counters of its own cgroup or container: ' +
      'what the proxy costs, whatever the bench allows. Requests per second and latencies are shown beside it and are specific to this machine.',
  )
  a.para('[[toc]]')
  return []
}
