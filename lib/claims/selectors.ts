/**
 * What a claim's check reads, as the ledger spells it: the tables and their columns and
 * metrics, selectors (lists of column maps) and number expressions over figure ids, with the
 * zod schemas that parse them, and the parts every check kind's schema is built from
 * (lib/claims/checks/). Problems are zod issues; lib/claims/ledger.ts turns the first into a
 * one-line `file:line` error.
 */
import { z } from 'zod'
import { PROXIES } from '../catalog/stack.ts'
import { handshakeSchema, measurementSchema, tcpSchema, websocketSchema } from '../data/schema.ts'
import { ROW_SERIES } from '../data/series.ts'
import { CELL_COLUMNS } from '../data/grouping.ts'
import { evalNumber, ExprError, type FigureValues } from './expr.ts'

/**
 * Which rows of a cell a check reads (`rows`): valid ones; all; or `open`, valid ones and those
 * invalid only because requests failed (lib/data/open-outcome.ts validButForErrors), the rows the
 * open-model outcomes read, where the failure is the thing measured (lib/claims/cells.ts usedRows).
 */
export const ROW_RULES = ['valid', 'all', 'open'] as const
export type RowRule = (typeof ROW_RULES)[number]

// ------------------------------------------------------------------ tables and columns

export const CLAIM_TABLES = ['measurements', 'handshakes', 'websocket', 'tcp'] as const
export type ClaimTable = (typeof CLAIM_TABLES)[number]

/**
 * The key columns of each table: rows with equal values here (any repeat) form one cell.
 * The cell identity of lib/data/grouping.ts: the columns that, with `repeat`, identify a repeat.
 */
export const KEY_COLUMNS: Record<ClaimTable, readonly string[]> = CELL_COLUMNS

/**
 * The `series` values the harness writes to each table (lib/data/series.ts). A runnable claim names one (or several) on every side, so that cells of
 * different series (pool-added vs tls-ceiling, same vs versions) are never pooled.
 */
export const CLAIM_SERIES: Record<ClaimTable, readonly string[]> = ROW_SERIES

/**
 * Metrics computed from a row's columns, per table (lib/claims/cells.ts metricValue):
 * errors_pct = 100 * errors / (requests + errors); failed_pct = 100 * (errors + dropped) /
 * (requests + errors + dropped), dropped iterations counted as failures (a closed-model row
 * drops nothing: dropped 0); dropped_pct = 100 * dropped / (requests + errors + dropped);
 * resumed_pct = 100 * resumed / handshakes (handshakes).
 */
export const DERIVED_METRICS: Record<ClaimTable, readonly string[]> = {
  measurements: ['errors_pct', 'failed_pct', 'dropped_pct'],
  handshakes: ['resumed_pct'],
  websocket: [],
  tcp: [],
}

const SCHEMAS = { measurements: measurementSchema, handshakes: handshakeSchema, websocket: websocketSchema, tcp: tcpSchema } as const

function numericColumns(schema: z.AnyZodObject): string[] {
  return Object.entries(schema.shape as Record<string, z.ZodTypeAny>)
    .filter(([, t]) => (t instanceof z.ZodNullable ? t.unwrap() : t) instanceof z.ZodNumber)
    .map(([k]) => k)
}

/** The metrics a check may name for a table: its numeric columns and derived metrics. */
export function tableMetrics(table: ClaimTable): string[] {
  return [...numericColumns(SCHEMAS[table]), ...DERIVED_METRICS[table]]
}

/** Proxies a selector may name: the catalog's five plus `direct` (no proxy). */
export const SELECTOR_PROXIES: readonly string[] = [...PROXIES, 'direct']

// ------------------------------------------------------------------ selectors and numbers

export type Scalar = string | number | boolean
/** A wanted column value: a scalar, any of a list, or per proxy ({haproxy: x, nginx: y}). */
export type ColumnWant = Scalar | Scalar[] | Record<string, Scalar | Scalar[]>
export type Agg = 'median' | 'min' | 'max' | 'newest'

/**
 * One selector map, normalized: the column keys apart from the special keys. A selector
 * of claims.yaml (a map or a list of maps) becomes a list of these: the union of their cells.
 */
export interface SelectorSpec {
  columns: Record<string, ColumnWant>
  agg?: Agg
  pick?: 'lowest-failing-target'
  /** Overrides the check's metric for this side. */
  metric?: string
  /** A constant side: a number expression instead of column keys. */
  value?: number | string
  /** In a for_each item only: keys for side a / side b alone (ratio, equal, contrast), over the check's a / b. */
  a?: SelectorSpec
  b?: SelectorSpec
}
export type Selector = SelectorSpec[]

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
const isScalars = (v: unknown) => isScalar(v) || (Array.isArray(v) && v.length > 0 && v.every(isScalar))

/** A column value: scalar, non-empty list of scalars, or a map keyed by proxy of those. */
const wantSchema = z.unknown().superRefine((v, ctx) => {
  const ok = isScalars(v) || (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(isScalars))
  if (!ok) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `expected a value, a list of values or a map keyed by proxy, got ${JSON.stringify(v)}` })
}) as unknown as z.ZodType<ColumnWant>

/** A number or an arithmetic expression over figure ids (checked against the figures). */
const numberExpr = (figures: FigureValues) =>
  z.unknown().superRefine((v, ctx) => {
    if (typeof v !== 'number' && typeof v !== 'string') {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message:
          v === undefined
            ? 'required: a number or a quoted expression over figure ids'
            : `expected a number or a quoted expression over figure ids, got ${JSON.stringify(v)}`,
      })
      return
    }
    try {
      evalNumber(v, figures)
    } catch (e) {
      if (!(e instanceof ExprError)) throw e
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: e.message })
    }
  }) as unknown as z.ZodType<number | string>

const VERSION_WANT = /^(newest|(>=|<=|>|<|==|=)?\s*v?\d+(\.\d+)*)$/

/** A comparison on a numeric column: ">1024", "<= 200" (claims.yaml header, Selector). */
export const NUMBER_WANT = /^(>=|<=|>|<)\s*(-?\d+(\.\d+)?)$/

/** A problem of a selector map its shape does not express: where (keys from the map down) and what. */
type MapIssue = { path: string[]; message: string }

/** The problems of a parsed selector map, in the order the ledger reports them (the first is shown). */
function selectorMapIssues(m: { agg?: unknown; pick?: unknown; metric?: unknown; value?: unknown; [column: string]: unknown }): MapIssue[] {
  const { agg, pick, metric, value, ...rest } = m
  const columns = rest as Record<string, ColumnWant>
  const constantWithKeys = value !== undefined && (Object.keys(columns).length > 0 || agg || pick || metric)
  return [
    ...(constantWithKeys ? [{ path: ['value'], message: 'a constant side (value) takes no other keys' }] : []),
    ...mapKeyIssues(columns),
    ...proxyIssues(columns.proxy),
    ...versionIssues(columns.version),
  ]
}

const isMap = (w: unknown): w is Record<string, unknown> => !!w && typeof w === 'object' && !Array.isArray(w)

/** A map value is keyed by proxy: any other key is a problem. */
function mapKeyIssues(columns: Record<string, ColumnWant>): MapIssue[] {
  return Object.entries(columns).flatMap(([col, want]) =>
    (isMap(want) ? Object.keys(want) : [])
      .filter((p) => !SELECTOR_PROXIES.includes(p))
      .map((p) => ({ path: [col, p], message: `"${p}" is not a proxy (a map value is keyed by proxy: ${SELECTOR_PROXIES.join(', ')})` })),
  )
}

/** The proxy column takes a name or a list of names of SELECTOR_PROXIES, not a map. */
function proxyIssues(proxy: ColumnWant | undefined): MapIssue[] {
  if (proxy === undefined) return []
  if (typeof proxy === 'object' && !Array.isArray(proxy)) return [{ path: ['proxy'], message: 'proxy takes a name or a list of names, not a map' }]
  return [proxy]
    .flat()
    .filter((p) => !SELECTOR_PROXIES.includes(String(p)))
    .map((p) => ({ path: ['proxy'], message: `unknown proxy "${p}" (one of ${SELECTOR_PROXIES.join(', ')})` }))
}

/** Every wanted version (a map's values too) is a quoted string of VERSION_WANT. */
function versionIssues(version: ColumnWant | undefined): MapIssue[] {
  if (version === undefined) return []
  const values = typeof version === 'object' && !Array.isArray(version) ? Object.values(version).flat() : [version].flat()
  return values
    .filter((v) => typeof v !== 'string' || !VERSION_WANT.test(v))
    .map((v) => ({
      path: ['version'],
      message: `version ${JSON.stringify(v)} must be a quoted string: "newest", a version "1.27.4" or a comparison ">=1.29.7"`,
    }))
}

function selectorMapSchema(figures: FigureValues) {
  return z
    .object({
      agg: z.enum(['median', 'min', 'max', 'newest']).optional(),
      pick: z.literal('lowest-failing-target').optional(),
      metric: z.string().min(1).optional(),
      value: numberExpr(figures).optional(),
    })
    .catchall(wantSchema)
    .superRefine((m, ctx) => {
      for (const issue of selectorMapIssues(m)) ctx.addIssue({ code: z.ZodIssueCode.custom, ...issue })
    })
    .transform((m): SelectorSpec => {
      const { agg, pick, metric, value, ...columns } = m
      return {
        columns: columns as Record<string, ColumnWant>,
        ...(agg && { agg }),
        ...(pick && { pick }),
        ...(metric && { metric }),
        ...(value !== undefined && { value }),
      }
    })
}

/**
 * A for_each item: a selector map, plus optional `a` and `b` maps that apply to that side only
 * (ratio, equal, contrast): pairs such as {key_type: rsa2048, a: {proxy: traefik}, b: {proxy: nginx}}.
 */
function forEachItemSchema(figures: FigureValues) {
  const map = selectorMapSchema(figures)
  return z
    .object({ a: map.optional(), b: map.optional() })
    .catchall(z.unknown())
    .transform((m, ctx): SelectorSpec => {
      const { a, b, ...rest } = m
      const r = map.safeParse(rest)
      if (!r.success) {
        for (const i of r.error.issues) ctx.addIssue(i as z.IssueData)
        return z.NEVER
      }
      return { ...r.data, ...(a && { a }), ...(b && { b }) }
    })
}

function selectorSchema(figures: FigureValues) {
  const map = selectorMapSchema(figures)
  // A single map is a list of one (a problem inside it is reported at the map's line).
  return z
    .preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(map).min(1))
    .superRefine((list, ctx) => {
      if (list.length > 1 && list.some((s) => s.value !== undefined))
        ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'a constant side (value) cannot be part of a list of selectors' })
    })
}

const STATUSES = ['valid', 'invalid', 'failed'] as const
export type CellStatus = (typeof STATUSES)[number]

/** A regular expression (JavaScript syntax) over a row's `reason`. */
const reasonSchema = z
  .string()
  .min(1)
  .superRefine((v, ctx) => {
    try {
      new RegExp(v)
    } catch (e) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: `not a regular expression: ${(e as Error).message}` })
    }
  })

// ------------------------------------------------------------------ the parts of a check's schema

/** The zod parts every check kind's schema is built from, for one ledger's figures. */
export function schemaParts(figures: FigureValues) {
  const sel = selectorSchema(figures)
  const table = z.enum(CLAIM_TABLES).default('measurements')
  const rows = z.enum(ROW_RULES).default('valid')
  return {
    /** The fields of every check: where it reads, which rows, how it runs per item, the rule in words. */
    common: {
      table,
      metric: z.string().min(1).optional(),
      rows,
      select: sel.optional(),
      for_each: z.array(forEachItemSchema(figures)).min(1).optional(),
      expect: z.string().min(1),
      expect_basis: z.enum(['published', 'project']),
    },
    table,
    rows,
    sel,
    num: numberExpr(figures),
    by: z.enum(['desc', 'asc']),
    // Columns whose value side b takes from side a's cells (ratio, equal): like with like where a profile sets it.
    same: z.array(z.string().min(1)).min(1),
    proxy: z.enum(PROXIES),
    statuses: z.array(z.enum(STATUSES)).min(1),
    reason: reasonSchema,
  }
}

export type SchemaParts = ReturnType<typeof schemaParts>

/** The selector map names a series (every runnable side must, so that series are never pooled). */
export const hasSeries = (s: SelectorSpec) => s.columns.series !== undefined

/** Every series a selector map names is one the harness writes to its table. */
export function seriesValuesRule(
  path: (string | number)[],
  spec: SelectorSpec,
  table: ClaimTable,
  issue: (path: (string | number)[], message: string) => void,
): void {
  const want = spec.columns.series
  if (want === undefined) return
  const values = typeof want === 'object' && !Array.isArray(want) ? Object.values(want).flat() : [want].flat()
  for (const v of values) {
    if (!CLAIM_SERIES[table].includes(String(v))) issue([...path, 'series'], `"${v}" is not a series of ${table} (one of ${CLAIM_SERIES[table].join(', ')})`)
  }
}
