import { poolClass } from '../../catalog/reuse.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import { k, proxiedPoolingCells } from './common.ts'
import type { ArticleInput } from './input.ts'

const documented = (d: boolean | undefined) => (d === undefined ? '—' : d ? 'pool' : 'no pool')

const measuredPool = (conns: number | null): string => {
  if (conns === null) return '—'
  const c = poolClass(conns)
  return c === 'partial' ? 'partial (pool churns)' : c
}

/** Whether each proxy pools backend connections: what its documentation says, what was measured. */
export function poolDefaultsSection(a: Article, { aggregates, documentedReuse }: ArticleInput): ChartRequest[] {
  a.heading(2, 'Backend pooling: documented and measured')
  a.para(
    'The backend counts the TCP connections it accepts; with a pool, 1000 requests need almost none, without one they need 1000. ' +
      "The documented column comes from each proxy's documentation (`shared/reference/proxy-defaults.md`), the measured one from this run.",
  )
  a.table(
    'defaults',
    [
      { title: 'proxy', value: (c) => k(c, 'proxy') },
      { title: 'version', value: (c) => k(c, 'version') },
      { title: 'variant', value: (c) => k(c, 'variant') },
      { title: 'documented', value: (c) => documented(documentedReuse(String(c.key.proxy), String(c.key.variant), String(c.key.version))) },
      { title: 'backend conns per 1k req (measured)', value: (c) => c.medians.backend_conns_per_1k_req },
      { title: 'measured', value: (c) => measuredPool(c.medians.backend_conns_per_1k_req) },
    ],
    proxiedPoolingCells(aggregates),
  )
  return []
}
