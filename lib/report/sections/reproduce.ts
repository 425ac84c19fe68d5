import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import type { ArticleInput } from './input.ts'
import { CARRIES_OVER } from './common.ts'

/** The exact commands that repeat this run (its seed) and rebuild its report. */
export function reproduceSection(a: Article, { run, baseline }: ArticleInput): ChartRequest[] {
  const m = run.manifest
  a.heading(2, 'How to reproduce')
  const proxyFlag = m.proxies.length === 5 ? '' : ` --proxies ${m.proxies.join(',')}`
  a.line(
    '```sh\n',
    `npm ci\nnpx zx notebooks/run-all.mjs --profile ${m.profile} --series ${m.series.join(',')}${proxyFlag} --runtime ${m.runtime} --seed ${m.order_seed} --out results/${m.run_id}`,
    `\nnpm run report -- --run results/${m.run_id}${baseline ? ` --baseline ${baseline.id}` : ''}`,
    '\n```',
    '',
  )
  a.para(`The seed reproduces the order of the repeats; the numbers will differ on another machine. ${CARRIES_OVER}`)
  return []
}
