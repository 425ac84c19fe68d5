import * as vega from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'

/* Renders vega-lite specs to static SVG, the same bytes on every machine (lib/report/charts.ts builds the specs). */

/** Generic families only: no web font, nothing to fetch; DejaVu Sans is a Debian package. */
export const CHART_FONT = 'DejaVu Sans, sans-serif'
/** Every chart is this wide (px) unless told otherwise, whatever its labels. */
export const CHART_WIDTH = 640

export type VegaLiteSpec = TopLevelSpec

const refuse = (what: string) => async (uri: string) => {
  throw new Error(`charts: ${what} is disabled (${String(uri).slice(0, 80)}); pass the rows inline`)
}

/** A vega loader that fetches nothing: charts are built from inline rows only. */
const noLoader = {
  load: refuse('loading data'),
  sanitize: refuse('loading data'),
  http: refuse('http'),
  file: refuse('file access'),
}

/**
 * Text width by a fixed per-character table for DejaVu Sans (em units), so layout
 * (label truncation, axis padding) is the same on every machine whether or not the
 * optional `canvas` package is installed.
 */
const NARROW = new Set([...`iljtfrI!|.,:;'\`()[]{} `])
const WIDE = new Set([...'mwMW@%'])
function charEm(c: string): number {
  if (NARROW.has(c)) return c === ' ' ? 0.32 : c === 'r' || c === 'f' || c === 't' ? 0.4 : 0.3
  if (WIDE.has(c)) return 0.95
  if (c >= '0' && c <= '9') return 0.64
  if (c >= 'A' && c <= 'Z') return 0.7
  return 0.6
}
type TextItem = { text?: unknown; fontSize?: number; limit?: number }
function fontSizeOf(item: TextItem): number {
  return item.fontSize != null ? +item.fontSize || 0 : 11
}
/** Text width in px by the fixed table; charts.ts also tilts bar labels by it. */
export function estimateWidth(item: TextItem, text?: unknown): number {
  const raw = text !== undefined ? text : item.text
  const s = raw == null ? '' : Array.isArray(raw) ? raw.map(String).join(' ') : String(raw)
  let em = 0
  for (const c of s) em += charEm(c)
  return Math.ceil(em * fontSizeOf(item))
}
const metrics = (vega as unknown as { textMetrics: { width: unknown; estimateWidth: unknown; canvas: (use: boolean) => void } }).textMetrics
metrics.canvas(false)
metrics.width = estimateWidth
metrics.estimateWidth = estimateWidth

// vega's SVG clip-path/gradient ids are module-global counters: renders run one at a
// time and reset them first, so the same spec always gives the same bytes.
let queue: Promise<unknown> = Promise.resolve()

/**
 * Renders a vega-lite spec to a static SVG string (vega View, renderer 'none',
 * toSVG). Data must be inline (`data.values`); any URL, loader access or link in the
 * output is an error. Same spec → same bytes.
 */
export function renderSpec(spec: VegaLiteSpec): Promise<string> {
  const run = queue.then(() => renderNow(spec))
  queue = run.catch(() => undefined)
  return run
}

async function renderNow(spec: VegaLiteSpec): Promise<string> {
  const vg = compile(spec, { logger: quietLogger() }).spec
  for (const d of vg.data ?? []) {
    if ('url' in d && d.url !== undefined) throw new Error(`charts: data "${d.name}" has a url; charts take inline rows only`)
  }
  const errors: string[] = []
  const logger = vega.logger(vega.Warn)
  logger.error = (...args: unknown[]) => {
    errors.push(args.map(String).join(' '))
    return logger
  }
  logger.warn = () => logger
  ;(vega as unknown as { resetSVGDefIds: () => void }).resetSVGDefIds()
  const view = new vega.View(vega.parse(vg), { renderer: 'none', loader: noLoader as unknown as vega.Loader, logger })
  try {
    const svg = await view.toSVG()
    if (errors.length > 0) throw new Error(`charts: ${errors[0]}`)
    if (/\shref=|xlink:href=/.test(svg)) throw new Error('charts: the SVG links to something (href); charts must be self-contained')
    return svg
  } finally {
    view.finalize()
  }
}

function quietLogger() {
  let level = 0
  const l = {
    level(n?: number) {
      if (n === undefined) return level
      level = n
      return l
    },
    error(...args: unknown[]) {
      throw new Error(`charts: ${args.map(String).join(' ')}`)
    },
    warn: () => l,
    info: () => l,
    debug: () => l,
  }
  return l as never
}
