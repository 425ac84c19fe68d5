/**
 * The claims ledger: baselines/published/claims.yaml and figures.yaml, parsed and
 * checked with zod. Every problem (a malformed claim or check, an unknown figure id in a
 * number expression, a selector column the table does not have, a runnable side without
 * a series) is a one-line UserError `file:line: path: what. fix`. Loading reads the two
 * files and nothing else.
 */
import { ROW_SERIES } from '../data/series.ts'
import { CELL_COLUMNS } from '../data/grouping.ts'
import { join } from 'node:path'
import { z } from 'zod'
import { PROXIES } from '../catalog/stack.ts'
import { handshakeSchema, measurementSchema, tcpSchema, websocketSchema } from '../data/schema.ts'
import { repoRoot } from '../core/paths.ts'
import { readYamlFile } from '../core/yaml-file.ts'
import { evalNumber, ExprError, FIGURE_ID, type FigureValues } from './expr.ts'

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

// ------------------------------------------------------------------ figures

export const figureSchema = z
  .object({
    id: z.string().regex(FIGURE_ID, 'expected an id like s000-some-figure'),
    source: z.string().min(1),
    about: z.string().optional(),
    location: z.string().optional(),
    quote: z.string().min(1),
    meaning: z.string().min(1),
    proxy: z.string().nullable(),
    version: z.string().nullable(),
    metric: z.string().min(1),
    value: z.union([z.number(), z.string(), z.boolean()]).nullable(),
    unit: z.string().nullable(),
    approx: z.boolean().optional(),
    conditions: z.record(z.unknown()),
    note: z.string().optional(),
  })
  .strict()

export type Figure = z.infer<typeof figureSchema>

const uniqueIds = <T extends { id: string }>(items: T[], ctx: z.RefinementCtx) => {
  const seen = new Set<string>()
  items.forEach((x, i) => {
    if (seen.has(x.id)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'id'], message: `duplicate id "${x.id}"` })
    seen.add(x.id)
  })
}

const figuresFileSchema = z.array(figureSchema).superRefine(uniqueIds)

// ------------------------------------------------------------------ claims

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
  (z.unknown().superRefine((v, ctx) => {
    if (typeof v !== 'number' && typeof v !== 'string') {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: v === undefined ? 'required: a number or a quoted expression over figure ids' : `expected a number or a quoted expression over figure ids, got ${JSON.stringify(v)}` })
      return
    }
    try {
      evalNumber(v, figures)
    } catch (e) {
      if (!(e instanceof ExprError)) throw e
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: e.message })
    }
  }) as unknown as z.ZodType<number | string>)

const VERSION_WANT = /^(newest|(>=|<=|>|<|==|=)?\s*v?\d+(\.\d+)*)$/

/** A comparison on a numeric column: ">1024", "<= 200" (claims.yaml header, Selector). */
export const NUMBER_WANT = /^(>=|<=|>|<)\s*(-?\d+(\.\d+)?)$/

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
      const { agg, pick, metric, value, ...rest } = m
      const columns = rest as Record<string, ColumnWant>
      if (value !== undefined && (Object.keys(columns).length > 0 || agg || pick || metric)) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['value'], message: 'a constant side (value) takes no other keys' })
      }
      const proxyMapKeys = (w: unknown) => (w && typeof w === 'object' && !Array.isArray(w) ? Object.keys(w) : [])
      for (const [col, want] of Object.entries(columns)) {
        for (const p of proxyMapKeys(want)) {
          if (!SELECTOR_PROXIES.includes(p)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [col, p], message: `"${p}" is not a proxy (a map value is keyed by proxy: ${SELECTOR_PROXIES.join(', ')})` })
        }
      }
      const proxyIsMap = typeof columns.proxy === 'object' && !Array.isArray(columns.proxy)
      if (proxyIsMap) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['proxy'], message: 'proxy takes a name or a list of names, not a map' })
      const proxies = columns.proxy === undefined || proxyIsMap ? [] : [columns.proxy].flat()
      for (const p of proxies) {
        if (!SELECTOR_PROXIES.includes(String(p))) ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['proxy'], message: `unknown proxy "${p}" (one of ${SELECTOR_PROXIES.join(', ')})` })
      }
      const version = columns.version
      if (version !== undefined) {
        const values = typeof version === 'object' && !Array.isArray(version) ? Object.values(version).flat() : [version].flat()
        for (const v of values) {
          if (typeof v !== 'string' || !VERSION_WANT.test(v)) {
            ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['version'], message: `version ${JSON.stringify(v)} must be a quoted string: "newest", a version "1.27.4" or a comparison ">=1.29.7"` })
          }
        }
      }
    })
    .transform((m): SelectorSpec => {
      const { agg, pick, metric, value, ...columns } = m
      return { columns: columns as Record<string, ColumnWant>, ...(agg && { agg }), ...(pick && { pick }), ...(metric && { metric }), ...(value !== undefined && { value }) }
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
  return z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(map).min(1)).superRefine((list, ctx) => {
    if (list.length > 1 && list.some((s) => s.value !== undefined)) ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'a constant side (value) cannot be part of a list of selectors' })
  })
}

const STATUSES = ['valid', 'invalid', 'failed'] as const
export type CellStatus = (typeof STATUSES)[number]

/** A regular expression (JavaScript syntax) over a row's `reason`. */
const reasonSchema = z.string().min(1).superRefine((v, ctx) => {
  try {
    new RegExp(v)
  } catch (e) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: `not a regular expression: ${(e as Error).message}` })
  }
})

function checkSchema(figures: FigureValues) {
  const num = numberExpr(figures)
  const sel = selectorSchema(figures)
  const common = {
    table: z.enum(CLAIM_TABLES).default('measurements'),
    metric: z.string().min(1).optional(),
    rows: z.enum(['valid', 'all']).default('valid'),
    select: sel.optional(),
    for_each: z.array(forEachItemSchema(figures)).min(1).optional(),
    expect: z.string().min(1),
    expect_basis: z.enum(['published', 'project']),
  }
  const by = z.enum(['desc', 'asc'])
  // Columns whose value side b takes from side a's cells (ratio, equal): like with like where a profile sets it.
  const same = z.array(z.string().min(1)).min(1)
  return z.discriminatedUnion('kind', [
    z
      .object({
        kind: z.literal('ratio'), ...common, a: sel, b: sel, same: same.optional(), min: num.optional(), max: num.optional(), above: num.optional(), below: num.optional(), approx: num.optional(), tolerance: num.optional(),
      })
      .strict(),
    z.object({ kind: z.literal('equal'), ...common, a: sel, b: sel, same: same.optional(), tolerance: num }).strict(),
    z.object({ kind: z.literal('spread'), ...common, select: sel, max: num }).strict(),
    z
      .object({
        kind: z.literal('rank'),
        ...common,
        select: sel,
        by,
        positions: z.record(z.array(z.number().int().refine((x) => x !== 0, 'places are 1-based; negative counts from the end')).min(1)).optional(),
        same_order_as: z
          .object({ table: z.enum(CLAIM_TABLES).default('measurements'), metric: z.string().min(1), rows: z.enum(['valid', 'all']).default('valid'), select: sel, by })
          .strict()
          .optional(),
        lead: z.object({ proxy: z.string().min(1), min: num }).strict().optional(),
      })
      .strict(),
    z.object({ kind: z.literal('contrast'), ...common, spread: sel.optional(), a: sel, b: sel, max: num }).strict(),
    z.object({ kind: z.literal('repeats'), ...common, select: sel, max: num }).strict(),
    z.object({ kind: z.literal('threshold'), ...common, select: sel, op: z.enum(['<', '<=', '>', '>=', '==']), value: num }).strict(),
    z.object({ kind: z.literal('status'), ...common, cells: z.array(z.object({ select: sel, status: z.array(z.enum(STATUSES)).min(1), reason: reasonSchema.optional() }).strict()).min(1) }).strict(),
    z.object({ kind: z.literal('count'), ...common, select: sel, value: z.union([z.literal('conns_target'), num]), tolerance: num.optional() }).strict(),
    // The run's bisect of one proxy and variant (bisect.json + the bisect rows): where its step is, against a documented change.
    // What a proxy served when given no certificate (default-keys.csv), against a key type: a figure id whose value names one, or the word itself.
    z.object({ kind: z.literal('served_key'), ...common, proxy: z.enum(PROXIES), want: z.string().min(1) }).strict(),
    z.object({ kind: z.literal('bisect'), ...common, proxy: z.enum(PROXIES), variant: z.string().min(1), change: z.string().regex(/^\d+(\.\d+)*$/, 'expected a version such as "1.29.7"') }).strict(),
  ])
}

export type Check = z.infer<ReturnType<typeof checkSchema>>
export type CheckKind = Check['kind']

const SOURCE = /^(\d{3})_[0-9a-f]+\.txt$/

function claimObjectSchema(figures: FigureValues) {
  return z
    .object({
      id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'expected a kebab-case id'),
      source: z.string().regex(SOURCE, 'expected a seed file name like 000_ad6047c3dfc67502.txt'),
      about: z.string().regex(SOURCE, 'expected a seed file name').optional(),
      quote: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
      claim: z.string().min(1),
      published: z.string().min(1),
      figures: z.array(z.string()),
      finding: z.string().regex(/^F[1-8]$/, 'expected F1..F8 or null').nullable(),
      condition: z.string().min(1),
      runnable_here: z.boolean(),
      not_runnable_reason: z.string().min(1).optional(),
      // Why a run may lack the claim's cells (a profile that does not measure them): said beside a "not measured" verdict.
      not_measured_reason: z.string().min(1).optional(),
      caveat: z.string().min(1).nullable().default(null),
      check: checkSchema(figures),
      comparable_across_machines: z.boolean(),
      notes: z.string().min(1).nullable().default(null),
    })
    .strict()
}

export type Claim = z.infer<ReturnType<typeof claimObjectSchema>>

const claimSchema = (figures: FigureValues) => claimObjectSchema(figures).superRefine((c, ctx) => checkClaim(c, figures, ctx))

type Issue = (path: (string | number)[], message: string) => void

/** The cross-field rules of the header that zod's shape alone does not express. */
function checkClaim(c: Claim, figures: FigureValues, ctx: z.RefinementCtx): void {
  const issue: Issue = (path, message) => ctx.addIssue({ code: z.ZodIssueCode.custom, path, message })
  const prefix = /^s(\d{3})-/.exec(c.id)?.[1]
  const source = SOURCE.exec(c.source)?.[1]
  if (source === '000' && prefix) issue(['id'], `claims of 000 have no prefix, but the id starts with s${prefix}-`)
  if (source && source !== '000' && prefix !== source) issue(['id'], `claims of ${source} start with s${source}-`)
  c.figures.forEach((id, i) => {
    if (!figures.has(id)) issue(['figures', i], `unknown figure id "${id}" (figure ids are the ids in figures.yaml)`)
  })
  if (!c.runnable_here && !c.not_runnable_reason) issue(['runnable_here'], 'runnable_here: false needs not_runnable_reason')
  if (c.runnable_here && c.not_runnable_reason) issue(['not_runnable_reason'], 'not_runnable_reason is only for runnable_here: false')
  if (!c.runnable_here && c.not_measured_reason) issue(['not_measured_reason'], 'not_measured_reason is only for runnable_here: true (a claim not runnable here says why in not_runnable_reason)')

  const k = c.check
  const at = (...p: (string | number)[]) => ['check', ...p]
  if (k.kind === 'bisect') {
    // Reads the bisect's own result, not cells: selectors and metrics do not apply.
    for (const key of ['select', 'for_each', 'metric'] as const) if (k[key] !== undefined) issue(at(key), `a bisect check reads the run's bisect of ${k.proxy} ${k.variant}, not ${key}`)
    return
  }
  if (k.kind === 'served_key') {
    for (const key of ['select', 'for_each', 'metric'] as const) if (k[key] !== undefined) issue(at(key), `a served_key check reads ${k.proxy}'s rows of default-keys.csv, not ${key}`)
    if (FIGURE_ID.test(k.want) && !figures.has(k.want)) issue(at('want'), `unknown figure id "${k.want}" (figure ids are the ids in figures.yaml)`)
    return
  }
  if (k.kind === 'ratio') {
    if (k.min === undefined && k.max === undefined && k.above === undefined && k.below === undefined && k.approx === undefined) issue(at('kind'), 'a ratio check needs min, max, above, below or approx')
    if (k.approx !== undefined && k.tolerance === undefined) issue(at('approx'), 'approx needs a tolerance')
    if (k.approx === undefined && k.tolerance !== undefined) issue(at('tolerance'), 'tolerance without approx (a ratio uses min/max, or approx + tolerance)')
  }
  if (k.kind === 'rank' && (k.positions === undefined) === (k.same_order_as === undefined)) issue(at('kind'), 'a rank check needs exactly one of positions and same_order_as')
  if (k.kind === 'count' && k.value === 'conns_target' && k.table !== 'websocket') issue(at('value'), 'conns_target is a column of the websocket table only')
  if (k.kind === 'rank' && k.positions) {
    for (const p of Object.keys(k.positions)) if (!SELECTOR_PROXIES.includes(p)) issue(at('positions', p), `"${p}" is not a proxy`)
  }
  if (k.kind === 'rank' && k.lead) {
    const places = k.positions?.[k.lead.proxy]
    if (!places || places.length !== 1 || (places[0] !== 1 && places[0] !== -1)) issue(at('lead', 'proxy'), `lead needs positions placing ${k.lead.proxy} alone at 1 (first) or -1 (last)`)
  }
  k.for_each?.forEach((item, i) => {
    if ((item.a || item.b) && k.kind !== 'ratio' && k.kind !== 'equal' && k.kind !== 'contrast') issue(at('for_each', i), 'a and b inside a for_each item are for ratio, equal and contrast checks')
  })

  if ((k.kind === 'ratio' || k.kind === 'equal') && k.same) {
    k.same.forEach((col, i) => {
      if (!KEY_COLUMNS[k.table].includes(col)) issue(at('same', i), `"${col}" is not a selector column of ${k.table} (one of ${KEY_COLUMNS[k.table].join(', ')})`)
    })
  }

  // Metrics: every side that reads cells needs one, and it must exist in the table.
  const metrics = tableMetrics(k.table)
  const needsMetric = k.kind !== 'status'
  if (k.metric !== undefined && !metrics.includes(k.metric)) issue(at('metric'), `"${k.metric}" is not a metric of ${k.table} (one of ${metrics.join(', ')})`)
  const sides: [string, Selector | undefined][] =
    k.kind === 'ratio' || k.kind === 'equal'
      ? [['a', k.a], ['b', k.b]]
      : k.kind === 'contrast'
        ? [['a', k.a], ['b', k.b], ['spread', k.spread]]
        : k.kind === 'status' ? k.cells.map((x, i) => [`cells.${i}.select`, x.select]) : [['select', k.select]]
  for (const [name, side] of sides) {
    side?.forEach((s, i) => {
      const path = (...p: (string | number)[]) => at(...name.split('.'), ...(side.length > 1 ? [i] : []), ...p)
      if (s.metric !== undefined && !metrics.includes(s.metric)) issue(path('metric'), `"${s.metric}" is not a metric of ${k.table}`)
      if (needsMetric && s.value === undefined && s.metric === undefined && k.metric === undefined) issue(path(), 'no metric: set the check\'s metric or one in this selector')
      if (s.value !== undefined && k.kind !== 'ratio' && k.kind !== 'equal') issue(path('value'), 'a constant side (value) is for a or b of ratio and equal checks')
      // Claims not runnable here may name columns the harness does not have.
      if (c.runnable_here) {
        for (const col of Object.keys(s.columns)) {
          if (!KEY_COLUMNS[k.table].includes(col)) issue(path(col), `"${col}" is not a selector column of ${k.table} (one of ${KEY_COLUMNS[k.table].join(', ')})`)
        }
      }
    })
  }
  if (k.kind === 'rank' && k.same_order_as) {
    const ref = k.same_order_as
    const refMetrics = tableMetrics(ref.table)
    if (!refMetrics.includes(ref.metric)) issue(at('same_order_as', 'metric'), `"${ref.metric}" is not a metric of ${ref.table}`)
    if (c.runnable_here) {
      for (const s of ref.select) for (const col of Object.keys(s.columns)) {
        if (!KEY_COLUMNS[ref.table].includes(col)) issue(at('same_order_as', 'select', col), `"${col}" is not a selector column of ${ref.table}`)
      }
    }
  }
  if (c.runnable_here && k.for_each) {
    k.for_each.forEach((s, i) => {
      for (const [sub, spec] of [[[], s], [['a'], s.a], [['b'], s.b]] as const) {
        for (const col of Object.keys(spec?.columns ?? {})) if (!KEY_COLUMNS[k.table].includes(col)) issue(at('for_each', i, ...sub, col), `"${col}" is not a selector column of ${k.table}`)
      }
    })
  }
  if (c.runnable_here) checkSeries(k, issue)
}

const hasSeries = (s: SelectorSpec) => s.columns.series !== undefined

/**
 * Series of a runnable claim: every side that reads cells names `series` (itself, in every
 * map of select, or in every for_each item), and every value named is one the harness
 * writes to that table. Without it a selector pools cells of different series.
 */
function checkSeries(k: Exclude<Check, { kind: 'bisect' | 'served_key' }>, issue: Issue): void {
  type Named = { path: (string | number)[]; spec: SelectorSpec; table: ClaimTable }
  const list = (path: (string | number)[], sel: Selector, table: ClaimTable): Named[] =>
    sel.map((spec, i) => ({ path: ['check', ...path, ...(sel.length > 1 ? [i] : [])], spec, table }))
  const items: Named[] = (k.for_each ?? []).flatMap((spec, i) => [
    { path: ['check', 'for_each', i], spec, table: k.table },
    ...(['a', 'b'] as const).flatMap((x) => (spec[x] ? [{ path: ['check', 'for_each', i, x], spec: spec[x]!, table: k.table }] : [])),
  ])
  const itemsName = k.for_each !== undefined && k.for_each.every(hasSeries)
  // ratio, equal, contrast and status: select is a layer under the sides; otherwise it is the side.
  const layered = k.kind === 'ratio' || k.kind === 'equal' || k.kind === 'contrast' || k.kind === 'status'
  const shared = layered && k.select ? list(['select'], k.select, k.table) : []
  const fromAbove = itemsName || (layered && k.select !== undefined && k.select.every(hasSeries))
  const sides: Named[] =
    k.kind === 'ratio' || k.kind === 'equal'
      ? [...list(['a'], k.a, k.table), ...list(['b'], k.b, k.table)]
      : k.kind === 'contrast'
        ? [...list(['a'], k.a, k.table), ...list(['b'], k.b, k.table), ...(k.spread ? list(['spread'], k.spread, k.table) : [])]
        : k.kind === 'status'
        ? k.cells.flatMap((x, i) => list(['cells', i, 'select'], x.select, k.table))
        : list(['select'], k.select, k.table)
  if (k.kind === 'contrast' && !k.spread && !fromAbove) issue(['check', 'spread'], 'no series for the spread: name it in spread, in select or in every for_each item')
  // A side is also covered when every for_each item names the series for it (item.a / item.b).
  const itemSide = (x: unknown) =>
    (x === 'a' || x === 'b') && k.for_each !== undefined && k.for_each.every((it) => hasSeries(it) || (it[x] !== undefined && hasSeries(it[x]!)))
  for (const s of sides) {
    if (s.spec.value === undefined && !fromAbove && !itemSide(s.path[1]) && !hasSeries(s.spec)) {
      issue(s.path, `no series: name the series whose cells this side reads (one of ${CLAIM_SERIES[s.table].join(', ')}; a list or a map by proxy for several), so that cells of different series are never pooled`)
    }
  }
  // same_order_as reads its own cells: select and for_each do not apply to it.
  const ref = k.kind === 'rank' && k.same_order_as ? list(['same_order_as', 'select'], k.same_order_as.select, k.same_order_as.table) : []
  for (const s of ref) if (!hasSeries(s.spec)) issue(s.path, `no series: name the series of the cells this order is read from (one of ${CLAIM_SERIES[s.table].join(', ')})`)
  for (const s of [...shared, ...items, ...sides, ...ref]) {
    const want = s.spec.columns.series
    if (want === undefined) continue
    const values = typeof want === 'object' && !Array.isArray(want) ? Object.values(want).flat() : [want].flat()
    for (const v of values) {
      if (!CLAIM_SERIES[s.table].includes(String(v))) issue([...s.path, 'series'], `"${v}" is not a series of ${s.table} (one of ${CLAIM_SERIES[s.table].join(', ')})`)
    }
  }
}

const claimsFileSchema = (figures: FigureValues) => z.array(claimSchema(figures)).superRefine(uniqueIds)

// ------------------------------------------------------------------ loading

export interface Ledger {
  claims: Claim[]
  figures: Map<string, Figure>
}

export const PUBLISHED_DIR = join(repoRoot, 'baselines/published')

/** Reads figures.yaml and claims.yaml of `dir`; the first problem is a one-line UserError with file:line. */
export function loadLedger(dir = PUBLISHED_DIR): Ledger {
  const list = readYamlFile(join(dir, 'figures.yaml'), figuresFileSchema, 'Fix the figure as README.md in that folder describes')
  const figures = new Map(list.map((f) => [f.id, f]))
  const claims = readYamlFile(
    join(dir, 'claims.yaml'),
    claimsFileSchema(figures),
    'Fix the claim as the header of claims.yaml describes (figure ids come from figures.yaml)',
  )
  return { claims, figures }
}
