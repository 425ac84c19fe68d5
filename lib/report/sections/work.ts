import type { CellSummary } from '../../analysis/cells.ts'
import type { Handshake, Measurement } from '../../data/schema.ts'
import { POOLING_ROWS } from '../../data/series.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc, num, type Column } from '../markdown.ts'
import { figure } from './common.ts'
import type { ArticleInput, Section } from './input.ts'

/** The `series` value of work rows in both tables (lib/series/work.ts WORK_SERIES; the report does not import the measuring side). */
const WORK = 'work'

/** One work row beside the timed cell of the same proxy, version and variant (key type for handshakes). */
interface WorkLine {
  row: Measurement | Handshake
  /** The timed figure of the same cell in this run: µs per request (per handshake); null when not measured. */
  timedUs: number | null
}

/** `43,823 [43,791, 43,854]`: the count with its interval from the rounds. */
const countText = (r: Pick<Measurement, 'instructions_per_req' | 'instructions_per_req_low' | 'instructions_per_req_high'>): string =>
  r.instructions_per_req === null
    ? '—'
    : `${Math.round(r.instructions_per_req).toLocaleString('en-US')}${
        r.instructions_per_req_low !== null && r.instructions_per_req_high !== null
          ? ` [${Math.round(r.instructions_per_req_low).toLocaleString('en-US')}, ${Math.round(r.instructions_per_req_high).toLocaleString('en-US')}]`
          : ''
      }`

/** The interval's half-width as ± % of the figure: what a year-later change must exceed to be seen. */
const halfWidth = (r: Pick<Measurement, 'instructions_per_req' | 'instructions_per_req_low' | 'instructions_per_req_high'>): number | null =>
  r.instructions_per_req && r.instructions_per_req_low !== null && r.instructions_per_req_high !== null
    ? (r.instructions_per_req_high - r.instructions_per_req_low) / 2 / r.instructions_per_req
    : null

/** Price: µs per 1,000 instructions, what this machine charges for the work (null without both). */
export const pricePerKilo = (timedUs: number | null, instructions: number | null): number | null =>
  timedUs !== null && instructions ? timedUs / (instructions / 1000) : null

const timedOf = (cells: readonly CellSummary[], match: (c: CellSummary) => boolean): number | null => cells.find(match)?.summary?.median ?? null

/** Work rows of measurements.csv, each beside its pooling cell's median µs/req. */
export function requestWorkLines({ run, aggregates }: Pick<ArticleInput, 'run' | 'aggregates'>): WorkLine[] {
  const timed = aggregates.cells.measurements.filter((c) => POOLING_ROWS.includes(String(c.key.series)) && c.key.model === 'closed')
  return run.measurements
    .filter((r) => r.series === WORK)
    .map((row) => ({
      row,
      timedUs: timedOf(
        timed,
        (c) => c.key.proxy === row.proxy && c.key.version === row.version && c.key.variant === row.variant && c.key.key_type === row.key_type,
      ),
    }))
}

/** Work rows of handshakes.csv, each beside the tls series' full-handshake cell of its key type. */
export function handshakeWorkLines({ run, aggregates }: Pick<ArticleInput, 'run' | 'aggregates'>): WorkLine[] {
  const timed = aggregates.cells.handshakes.filter((c) => c.key.series === 'tls-handshake')
  return run.handshakes
    .filter((r) => r.series === WORK)
    .map((row) => ({ row, timedUs: timedOf(timed, (c) => c.key.proxy === row.proxy && c.key.version === row.version && c.key.key_type === row.key_type) }))
}

const columns = (unit: string): Column<WorkLine>[] => [
  { title: 'proxy', value: (l) => l.row.proxy },
  { title: 'version', value: (l) => l.row.version },
  { title: unit === 'req' ? 'variant' : 'key', value: (l) => (unit === 'req' ? l.row.variant : l.row.key_type) },
  { title: `instructions/${unit} [95%]`, value: (l) => l.row.instructions_per_req, show: (l) => esc(countText(l.row)) },
  { title: '±', value: (l) => halfWidth(l.row), show: (l) => (halfWidth(l.row) === null ? '—' : `±${(halfWidth(l.row)! * 100).toFixed(2)}%`) },
  { title: 'low', value: (l) => l.row.instructions_per_req_low, csvOnly: true },
  { title: 'high', value: (l) => l.row.instructions_per_req_high, csvOnly: true },
  { title: `µs/${unit} timed`, value: (l) => l.timedUs },
  {
    title: 'µs per 1k instr.',
    value: (l) => pricePerKilo(l.timedUs, l.row.instructions_per_req),
    show: (l) => esc(num(pricePerKilo(l.timedUs, l.row.instructions_per_req))),
  },
  { title: 'status', value: (l) => (l.row.status === 'valid' ? 'valid' : `${l.row.status}: ${l.row.reason}`) },
  { title: 'how counted', value: (l) => l.row.work_setup, csvOnly: true },
]

/** The work series (docs/method/work.md): instructions per request and per handshake beside the timed µs, and the price between them. */
export const workSection: Section = (a, input) => {
  const requests = requestWorkLines(input)
  const handshakes = handshakeWorkLines(input)
  if (requests.length + handshakes.length === 0) return (a.skip('Work counted', 'work series: `npx zx notebooks/work.mjs`, or run-all `--series work`'), [])
  a.heading(2, 'Work counted: instructions per request')
  a.para(
    "Each proxy's own binary and config under Valgrind's callgrind with one worker: the user-space instructions it executes per keep-alive request " +
      '(per full handshake and its GET), the slope between a small and a large batch of verified requests on one connection, idle work taken off, ' +
      "Go proxies with their collector off (its scan is paid in the timed figure). A count does not move with the machine: it is the proxy's **work**. " +
      'Beside it, the timed µs of the same cell in this run (its **price** here) and their ratio, µs per 1,000 instructions: ' +
      'what this machine charges, which differs between proxies by how they use caches and the kernel, and between machines by everything. ' +
      'The interval is the 95% t-interval of the rounds’ slopes (docs/method/work.md).',
  )
  const charts: ChartRequest[] = []
  if (requests.length) {
    a.heading(3, 'Per request (pooling cells)')
    workChart(a, charts, requests)
    a.table('work-requests', columns('req'), requests)
  }
  if (handshakes.length) {
    a.heading(3, 'Per full handshake')
    a.table('work-handshakes', columns('handshake'), handshakes)
  }
  const setups = [...new Set([...requests, ...handshakes].map((l) => l.row.work_setup).filter(Boolean))]
  if (setups.length) a.para(`*How counted:* ${setups.map((s) => esc(s)).join(' · ')}`)
  return charts
}

/** Instructions per request by proxy and variant with their intervals, the timed µs beside: work and price in one picture. */
function workChart(a: Article, charts: ChartRequest[], lines: readonly WorkLine[]): void {
  const counted = lines.filter((l) => l.row.status === 'valid' && l.row.instructions_per_req !== null)
  const category = (l: WorkLine) => `${l.row.proxy} ${l.row.version}`
  const rows = counted.map((l) => ({
    category: category(l),
    group: l.row.variant,
    value: l.row.instructions_per_req! / 1000,
    lo: (l.row.instructions_per_req_low ?? l.row.instructions_per_req!) / 1000,
    hi: (l.row.instructions_per_req_high ?? l.row.instructions_per_req!) / 1000,
  }))
  const timed = counted.filter((l) => l.timedUs !== null).map((l) => ({ category: category(l), group: l.row.variant, value: l.timedUs! }))
  figure(
    a,
    charts,
    {
      path: 'charts/work-requests.svg',
      title: 'Work per request, counted; its timed price beside',
      kind: 'bar',
      rows,
      options: {
        horizontal: true,
        valueTitle: 'thousand instructions / request',
        groupTitle: 'variant',
        ...(timed.length ? { side: { rows: timed, valueTitle: 'µs / request timed', width: 140 } } : {}),
      },
    },
    'Instructions per request counted under callgrind by proxy and variant, the timed proxy CPU µs per request beside',
    {
      unit: "thousand user-space instructions per request, 95% t-interval of the rounds' slopes; right: the same cell's median proxy CPU µs per request in this run",
      model: 'callgrind, one worker, one keep-alive connection, batches of verified requests (docs/method/work.md)',
    },
  )
}
