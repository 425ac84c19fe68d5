import { capacitySearches, type CapacitySearch, type CapacityStep } from '../../data/capacity.ts'
import { errorShare } from '../../data/slo.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, pct } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

const cell = (s: CapacitySearch) => `${s.proxy} ${s.variant}${s.key_type === 'ec256' ? '' : ` ${s.key_type}`}`
/** A CPU share: the CSV keeps the fraction, the page shows a percentage. */
const share = <R>(title: string, get: (r: R) => number | null | undefined) => ({ title, value: (r: R) => get(r) ?? null, show: (r: R) => pct(get(r), 0) })

/** Per proxy the highest open-model rate that met the SLO, and every step of the search that found it. */
export function capacitySection(a: Article, { run }: ArticleInput): ChartRequest[] {
  const searches = capacitySearches(run.measurements)
  if (searches.length === 0) return (a.skip('Capacity', 'capacity series: `npx zx notebooks/capacity.mjs`, or run-all `--series capacity`'), [])
  a.heading(2, 'Capacity')
  a.para(
    'The highest open-model rate at which each proxy met the SLO: the rate doubles from the start while it passes, then the interval between the highest pass and the lowest miss is halved until they are 5% (or 100 rps) apart, or the time budget is spent. Each step is one open-model cell (verification first, fixed arrival rate, one keep-alive connection per virtual user, VUs capped), and a step passes only when its row is valid and meets every term: an invalid step (errors, drops, rate not reached, generator saturated) never passes; a window that was only disturbed is measured again, twice at most, and disturbed every time it stops the search there. Errors count dropped requests. One repeat per step: the rate is bracketed by its steps, with no interval, and like every rate it belongs to this machine.',
  )
  a.table(
    'capacity',
    [
      { title: 'proxy', value: (s) => s.proxy },
      { title: 'version', value: (s) => s.version },
      { title: 'variant', value: (s) => s.variant },
      { title: 'key type', value: (s) => s.key_type },
      { title: 'SLO', value: (s) => s.slo },
      { title: 'rate found rps', value: (s) => s.found?.rate ?? null },
      { title: 'p99 ms there', value: (s) => s.found?.row.p99_ms ?? null },
      share<CapacitySearch>('proxy CPU share there', (s) => s.found?.row.proxy_cpu_share),
      { title: 'proxy CPU µs/req there', value: (s) => s.found?.row.proxy_cpu_us_per_req ?? null },
      { title: 'steps', value: (s) => s.steps.length },
      { title: 'first rate above that did not pass', value: (s) => s.limit || null },
    ],
    searches,
  )
  const steps = searches.flatMap((s) => s.steps.map((step, i) => ({ s, step, n: i + 1 })))
  type Row = (typeof steps)[number]
  a.table(
    'capacity-steps',
    [
      { title: 'cell', value: ({ s }) => cell(s) },
      { title: 'step', value: ({ n }) => n },
      { title: 'target rps', value: ({ step }) => step.rate },
      { title: 'achieved rps', value: ({ step }) => step.row.rps },
      { title: 'p99 ms', value: ({ step }) => step.row.p99_ms },
      { title: 'errors %', value: ({ step }) => errorPct(step) },
      share<Row>('proxy CPU share', ({ step }) => step.row.proxy_cpu_share),
      { title: 'verdict', value: ({ step }) => step.verdict },
      { title: 'why', value: ({ step }) => step.why || null },
    ],
    steps,
  )
  return []
}

const errorPct = (step: CapacityStep) => {
  const e = errorShare(step.row)
  return e === null ? null : Number((e * 100).toPrecision(3))
}
