import { agreesWithDocs, poolClass } from '../../catalog/reuse.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc } from '../markdown.ts'
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
  const cells = proxiedPoolingCells(aggregates)
  const docs = (c: (typeof cells)[number]) => documentedReuse(String(c.key.proxy), String(c.key.variant), String(c.key.version))
  a.siteOnly('Backend pooling of every cell: documented and measured', () =>
    a.table(
      'defaults',
      [
        { title: 'proxy', value: (c) => k(c, 'proxy') },
        { title: 'version', value: (c) => k(c, 'version') },
        { title: 'variant', value: (c) => k(c, 'variant') },
        { title: 'documented', value: (c) => documented(docs(c)) },
        { title: 'backend conns per 1k req (measured)', value: (c) => c.medians.backend_conns_per_1k_req },
        { title: 'measured', value: (c) => measuredPool(c.medians.backend_conns_per_1k_req) },
      ],
      cells,
    ),
  )
  // The print says what the table decides: the cells whose measured pooling is not the documented one.
  const judged = cells.filter((c) => docs(c) !== undefined && c.medians.backend_conns_per_1k_req !== null)
  const off = judged.filter((c) => !agreesWithDocs(docs(c)!, c.medians.backend_conns_per_1k_req!))
  a.printOnly(() => {
    a.para(`${judged.length - off.length} of ${judged.length} cells with a documented default pool as documented${off.length ? '; these do not:' : '.'}`)
    if (off.length)
      a.bullets(
        off.map(
          (c) =>
            `${esc(`${k(c, 'proxy')} ${k(c, 'version')} ${k(c, 'variant')}`)}: documented ${documented(docs(c))}, measured ${measuredPool(c.medians.backend_conns_per_1k_req)} (${c.medians.backend_conns_per_1k_req} conns per 1k req)`,
        ),
      )
  })
  return []
}
