import { groupBy } from '../../data/grouping.ts'
import type { LatencySpectrum, LatencySpectrumEntry } from '../../data/latency.ts'
import { safeVariant } from '../../data/raw-files.ts'
import type { RunTables } from '../../data/run-data.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc } from '../markdown.ts'
import { figure } from './common.ts'
import type { ArticleInput } from './input.ts'

/** The percentiles the table reads off each spectrum. */
const LEVELS = [50, 99, 99.9, 99.99] as const

/** The latency (ms) at a percentile: the first row at or above it (HdrHistogram's rows are cumulative). */
export function valueAtPercentile(s: LatencySpectrum, p: number): number | null {
  const row = s.points.find((q) => q.percentile >= p)
  return row ? row.value_us / 1000 : null
}

const p99 = (e: LatencySpectrumEntry) => valueAtPercentile(e.spectrum, 99) ?? Infinity

/** What tells one cell's line from another's within a series. */
function cellLabel(e: LatencySpectrumEntry, withVersion: boolean): string {
  const c = e.cell
  const load = c.rate !== null ? `${c.rate} rps` : (c.mode ?? `c${c.connections}`)
  // What else the raw name tells apart (docs/data.md#raw-file-names): cells that differ only there are separate lines.
  const request = [c.bodyBytes ? `/json ${c.bodyBytes} B` : null, c.streams ? `m${c.streams}` : null, c.resumption ? `resume ${c.resumption}` : null]
  return [withVersion ? c.version : null, c.variant, c.keyType, load, ...request].filter(Boolean).join(' ')
}

export interface ShownSpectrum {
  series: string
  label: string
  entry: LatencySpectrumEntry
  /** Repeats of this cell with a spectrum. */
  repeats: number
  /** The CSV row of the repeat shown: `valid`, `invalid: reason`; null when no row matches (WebSocket). */
  status: string | null
}

type RowStatus = { status: string; reason: string }

/** The measured row a spectrum belongs to (measurements or handshakes), by cell and repeat. */
export function rowStatus(tables: Partial<Pick<RunTables, 'measurements' | 'handshakes'>>, e: LatencySpectrumEntry): RowStatus | undefined {
  const c = e.cell
  if (c.mode !== null) return undefined
  const same = (r: { series: string; proxy: string; version: string; variant: string; key_type: string; connections: number; repeat: number }) =>
    r.series === c.series &&
    r.proxy === c.proxy &&
    r.version === c.version &&
    safeVariant(r.variant) === c.variant &&
    r.key_type === c.keyType &&
    r.connections === c.connections &&
    r.repeat === c.repeat
  // A resumption cell's file names what the client offered; a full-handshake cell has none.
  if (e.spectrum.generator === 'loadgen handshake' || e.spectrum.generator === 'loadgen h3-handshake')
    return (tables.handshakes ?? []).find((r) => same(r) && (r.resumption ?? undefined) === c.resumption)
  // A /json cell's file names its body size, an h2 cell its streams; the / HTTP/1.1 cell of the same config neither.
  return (tables.measurements ?? []).find(
    (r) =>
      same(r) &&
      (r.body_bytes ?? undefined) === c.bodyBytes &&
      (r.streams ?? undefined) === c.streams &&
      (c.rate === null ? r.model === 'closed' : r.model === 'open' && r.target_rps === c.rate),
  )
}

/**
 * The proxy drawn (the one with the most spectra; ties by name, the direct floor never) and
 * per cell the repeat with the median p99 (the lower one of an even count) among its valid
 * repeats, or among all when none is valid (the table says so): a spectrum is one run's
 * distribution, and percentile rows of repeats cannot be merged.
 */
export function chooseSpectra(
  all: readonly LatencySpectrumEntry[],
  statusOf: (e: LatencySpectrumEntry) => RowStatus | undefined = () => undefined,
): { proxy: string; shown: ShownSpectrum[] } | null {
  const counts = new Map<string, number>()
  for (const e of all) if (e.cell.proxy !== 'direct') counts.set(e.cell.proxy, (counts.get(e.cell.proxy) ?? 0) + 1)
  const proxy = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0]
  if (!proxy) return null
  const mine = all.filter((e) => e.cell.proxy === proxy)
  const shown: ShownSpectrum[] = []
  for (const series of [...new Set(mine.map((e) => e.cell.series))]) {
    const inSeries = mine.filter((e) => e.cell.series === series)
    const withVersion = new Set(inSeries.map((e) => e.cell.version)).size > 1
    for (const [label, repeats] of groupBy(inSeries, (e) => [cellLabel(e, withVersion)])) {
      const valid = repeats.filter((e) => statusOf(e)?.status === 'valid')
      const sorted = [...(valid.length ? valid : repeats)].sort((a, b) => p99(a) - p99(b) || a.cell.repeat - b.cell.repeat)
      const entry = sorted[Math.floor((sorted.length - 1) / 2)]!
      const row = statusOf(entry)
      shown.push({ series, label, entry, repeats: repeats.length, status: row ? (row.status === 'valid' ? 'valid' : `${row.status}: ${row.reason}`) : null })
    }
  }
  return { proxy, shown }
}

const FROM: Record<LatencySpectrum['measured_from'], string> = { sent: 'request sent', scheduled: 'scheduled send' }

/** HdrHistogram-style percentile plots per series for the cells of one proxy, from raw/*.latency.json. */
export function latencySection(a: Article, { latency, run }: ArticleInput): ChartRequest[] {
  const chosen = chooseSpectra(latency ?? [], (e) => rowStatus(run ?? {}, e))
  if (!chosen) return (a.skip('Latency spectrum', 'no spectrum recorded: a run from before spectra were kept, or raw/ is not here'), [])
  const charts: ChartRequest[] = []
  // A chart per series and cell of one proxy: pages of curves to look up, not to read through.
  a.siteOnly(`Latency spectrum: every cell of ${esc(chosen.proxy)}, a chart per series and the percentiles table`, () => {
    a.heading(2, 'Latency spectrum')
    a.para(
      `The whole latency distribution of each cell of **${esc(chosen.proxy)}** (the proxy with the most spectra in this run; every proxy's are in raw/ as \`*.latency.json\`), ` +
        'HdrHistogram style: x is 1/(1-p) on a log scale, so 99.9% to 99.999% get as much room as the body. ' +
        'Closed model (wrk): from the request written to the answer, with the corrective samples wrk adds for answers slower than twice the mean interval. ' +
        "Open model and handshakes (loadgen): the open model measures from each request's scheduled send time, so a generator or proxy that falls behind shows as latency (no coordinated omission); requests dropped because every virtual user was busy are no samples here: the open-model table counts them. " +
        'Per cell the repeat with the median p99 among the valid ones is drawn (among all when none is valid: its status says why). Latency is machine-specific: read shapes and tails, not absolute values.',
    )
    for (const series of [...new Set(chosen.shown.map((s) => s.series))]) {
      const lines = chosen.shown.filter((s) => s.series === series)
      const rows = lines.flatMap((s) => s.entry.spectrum.points.map((p) => ({ percentile: p.percentile, value: p.value_us / 1000, series: s.label })))
      if (!rows.some((r) => r.percentile <= 99.999 && r.value > 0)) continue
      const chart: ChartRequest = {
        path: `charts/latency-${series}.svg`,
        title: `Latency spectrum: ${series}, ${chosen.proxy}`,
        kind: 'percentile',
        rows,
        options: { yTitle: 'latency ms', seriesTitle: 'cell' },
      }
      figure(a, charts, chart, chart.title, {
        unit: 'latency ms at each percentile (log scales)',
        model: `series ${series}: ${lines[0]?.entry.spectrum.measured_from === 'scheduled' ? 'open model, from the scheduled send' : 'closed model, from the request written'}`,
      })
    }
    a.table(
      'latency-spectrum',
      [
        { title: 'series', value: (s) => s.series },
        { title: 'cell', value: (s) => s.label },
        { title: 'repeat', value: (s) => `${s.entry.cell.repeat} of ${s.repeats}` },
        { title: 'generator', value: (s) => s.entry.spectrum.generator },
        { title: 'measured from', value: (s) => FROM[s.entry.spectrum.measured_from] },
        { title: 'samples', value: (s) => s.entry.spectrum.total_count },
        ...LEVELS.map((p) => ({ title: `p${p} ms`, value: (s: ShownSpectrum) => valueAtPercentile(s.entry.spectrum, p) })),
        { title: 'max ms', value: (s) => s.entry.spectrum.max_us / 1000 },
        { title: 'status', value: (s) => s.status },
      ],
      chosen.shown,
    )
  })
  return charts
}
