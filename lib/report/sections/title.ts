import type { ChartRequest } from '../chart-requests.ts'
import { APPENDIX_MARKER } from '../render.ts'
import type { Article } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

/**
 * Where the details begin: a page break in the PDF (the appendix), what the numbers mean,
 * the contents, and one line naming the sections left out because their series did not run.
 */
export function detailsSection(a: Article, _input: ArticleInput): ChartRequest[] {
  a.para(APPENDIX_MARKER)
  a.heading(2, 'Details')
  a.para(
    "The figure that matters is the proxy's CPU time per request (µs), read from cumulative counters of its own cgroup or container: " +
      'what the proxy costs, whatever the bench allows. Requests per second and latencies are shown beside it and are specific to this machine. ' +
      'Below: every cell in tables with their CSVs, the setup, the components and the data.',
  )
  a.para('[[toc]]')
  a.notRunLine()
  return []
}
