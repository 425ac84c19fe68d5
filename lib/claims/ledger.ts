/**
 * The claims ledger: baselines/published/claims.yaml, figures.yaml and findings.yaml, parsed and
 * checked with zod. Every problem (a malformed claim or check, an unknown figure id in a
 * number expression, a selector column the table does not have, a runnable side without
 * a series, a finding group naming an unknown or differently tagged claim) is a one-line
 * UserError `file:line: path: what. fix`. Loading reads the three files and nothing else.
 * A check's own fields and rules are its kind's (lib/claims/checks/).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { repoRoot } from '../core/paths.ts'
import { readYamlFile } from '../core/yaml-file.ts'
import { SERIES } from '../data/series.ts'
import type { CheckDef, Issue } from './checks/check.ts'
import { checkSchema, kindOf, type Check } from './checks/index.ts'
import { FIGURE_ID, type FigureValues } from './expr.ts'
import {
  CLAIM_SERIES,
  hasSeries,
  KEY_COLUMNS,
  schemaParts,
  seriesValuesRule,
  tableMetrics,
  type ClaimTable,
  type Selector,
  type SelectorSpec,
} from './selectors.ts'

export type { SelectorSpec } from './selectors.ts'

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
      finding: z
        .string()
        .regex(/^F[1-8]$/, 'expected F1..F8 or null')
        .nullable(),
      condition: z.string().min(1),
      runnable_here: z.boolean(),
      not_runnable_reason: z.string().min(1).optional(),
      // Why a run may lack the claim's cells (a profile that does not measure them): said beside a "not measured" verdict.
      not_measured_reason: z.string().min(1).optional(),
      caveat: z.string().min(1).nullable().default(null),
      check: checkSchema(schemaParts(figures)),
      comparable_across_machines: z.boolean(),
      notes: z.string().min(1).nullable().default(null),
    })
    .strict()
}

export type Claim = z.infer<ReturnType<typeof claimObjectSchema>>

const claimSchema = (figures: FigureValues) => claimObjectSchema(figures).superRefine((c, ctx) => checkClaim(c, figures, ctx))

/** A finding line of findings.yaml: the claims that decide it (lib/claims/groups.ts evaluates it). */
export const findingGroupSchema = z
  .object({
    id: z.string().regex(/^F[1-8]$/, 'expected a finding id F1..F8'),
    title: z.string().min(1),
    series: z.enum(SERIES),
    claims: z.array(z.string().min(1)).min(1, 'a group needs at least one claim id'),
    // The one combination rule (any not reproduced: not held; any undecided or missing: inconclusive; none measured: not measured).
    combine: z.literal('all').default('all'),
    // The line's figure: each claim's figures with their intervals (`caddy 1.54 [1 repeat], …`), or its measured text (a ranking says more in words).
    figure: z.enum(['figures', 'measured']).default('figures'),
  })
  .strict()

export type FindingGroup = z.infer<typeof findingGroupSchema>

/** The groups, checked against the claims: every id exists and is tagged with the group's finding. */
export const findingGroupsFileSchema = (claims: ReadonlyMap<string, string | null>) =>
  z.array(findingGroupSchema).superRefine((groups, ctx) => {
    const seen = new Set<string>()
    groups.forEach((g, i) => {
      const key = `${g.id} ${g.title}`
      if (seen.has(key)) ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'title'], message: `duplicate line "${key}"` })
      seen.add(key)
      g.claims.forEach((id, j) => {
        const tag = claims.get(id)
        if (tag === undefined)
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: [i, 'claims', j], message: `unknown claim id "${id}" (claim ids are the ids in claims.yaml)` })
        else if (tag !== g.id)
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            path: [i, 'claims', j],
            message: `claim "${id}" has finding: ${tag ?? 'null'}, not ${g.id}: set its finding tag to ${g.id}`,
          })
      })
    })
  })

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
  if (!c.runnable_here && c.not_measured_reason)
    issue(['not_measured_reason'], 'not_measured_reason is only for runnable_here: true (a claim not runnable here says why in not_runnable_reason)')
  checkCheck(c.check, c.runnable_here, figures, (path, message) => issue(['check', ...path], message))
}

/** A check's rules: its kind's own, then those of every kind that reads cells (paths under `check`). */
function checkCheck(k: Check, runnable: boolean, figures: FigureValues, issue: Issue): void {
  const def = kindOf(k)
  if (!def.sides) {
    // Reads its own input, not cells: selectors and metrics do not apply.
    for (const key of ['select', 'for_each', 'metric'] as const)
      if (k[key] !== undefined) issue([key], `a ${k.kind} check reads ${def.reads?.(k) ?? 'no cells'}, not ${key}`)
    def.validate?.(k, issue, { figures, runnable })
    return
  }
  def.validate?.(k, issue, { figures, runnable })
  k.for_each?.forEach((item, i) => {
    if ((item.a || item.b) && !def.pairs) issue(['for_each', i], 'a and b inside a for_each item are for ratio, equal and contrast checks')
  })
  // Metrics: every side that reads cells needs one, and it must exist in the table.
  const metrics = tableMetrics(k.table)
  if (k.metric !== undefined && !metrics.includes(k.metric)) issue(['metric'], `"${k.metric}" is not a metric of ${k.table} (one of ${metrics.join(', ')})`)
  for (const { path: name, sel } of def.sides(k)) {
    for (const [i, s] of sel.entries())
      checkSelector(k, def, s, { metrics, runnable }, (p, message) => issue([...name, ...(sel.length > 1 ? [i] : []), ...p], message))
  }
  if (!runnable) return
  k.for_each?.forEach((s, i) => {
    for (const [sub, spec] of [
      [[], s],
      [['a'], s.a],
      [['b'], s.b],
    ] as const) {
      for (const col of Object.keys(spec?.columns ?? {}))
        if (!KEY_COLUMNS[k.table].includes(col)) issue(['for_each', i, ...sub, col], `"${col}" is not a selector column of ${k.table}`)
    }
  })
  checkSeries(k, def, issue)
}

/** One selector map of a side that reads cells: its metric, a metric at all where the kind needs one, a constant where allowed, its columns (paths under the map). */
function checkSelector(k: Check, def: CheckDef<Check>, s: SelectorSpec, o: { metrics: readonly string[]; runnable: boolean }, issue: Issue): void {
  if (s.metric !== undefined && !o.metrics.includes(s.metric)) issue(['metric'], `"${s.metric}" is not a metric of ${k.table}`)
  if (def.needsMetric && s.value === undefined && s.metric === undefined && k.metric === undefined)
    issue([], "no metric: set the check's metric or one in this selector")
  if (s.value !== undefined && !def.constants) issue(['value'], 'a constant side (value) is for a or b of ratio and equal checks')
  // Claims not runnable here may name columns the harness does not have.
  if (!o.runnable) return
  for (const col of Object.keys(s.columns)) {
    if (!KEY_COLUMNS[k.table].includes(col)) issue([col], `"${col}" is not a selector column of ${k.table} (one of ${KEY_COLUMNS[k.table].join(', ')})`)
  }
}

/**
 * Series of a runnable claim: every side that reads cells names `series` (itself, in every
 * map of select, or in every for_each item), and every value named is one the harness
 * writes to that table. Without it a selector pools cells of different series.
 */
function checkSeries(k: Check, def: CheckDef<Check>, issue: Issue): void {
  type Named = { path: (string | number)[]; spec: SelectorSpec; table: ClaimTable }
  const list = (path: (string | number)[], sel: Selector): Named[] =>
    sel.map((spec, i) => ({ path: [...path, ...(sel.length > 1 ? [i] : [])], spec, table: k.table }))
  const items: Named[] = (k.for_each ?? []).flatMap((spec, i) => [
    { path: ['for_each', i], spec, table: k.table },
    ...(['a', 'b'] as const).flatMap((x) => (spec[x] ? [{ path: ['for_each', i, x], spec: spec[x]!, table: k.table }] : [])),
  ])
  const itemsName = k.for_each?.every(hasSeries)
  // A layered kind's select is a layer under the sides; otherwise it is the side.
  const shared = def.layered && k.select ? list(['select'], k.select) : []
  const fromAbove = itemsName || (def.layered === true && k.select !== undefined && k.select.every(hasSeries))
  const sides = (def.sides?.(k) ?? []).flatMap((n) => list(n.path, n.sel))
  // A side is also covered when every for_each item names the series for it (item.a / item.b).
  const itemSide = (x: unknown) =>
    (x === 'a' || x === 'b') && k.for_each !== undefined && k.for_each.every((it) => hasSeries(it) || (it[x] !== undefined && hasSeries(it[x]!)))
  for (const s of sides) {
    if (s.spec.value === undefined && !fromAbove && !itemSide(s.path[0]) && !hasSeries(s.spec)) {
      issue(
        s.path,
        `no series: name the series whose cells this side reads (one of ${CLAIM_SERIES[s.table].join(', ')}; a list or a map by proxy for several), so that cells of different series are never pooled`,
      )
    }
  }
  for (const s of [...shared, ...items, ...sides]) seriesValuesRule(s.path, s.spec, s.table, issue)
}

const claimsFileSchema = (figures: FigureValues) => z.array(claimSchema(figures)).superRefine(uniqueIds)

// ------------------------------------------------------------------ loading

export interface Ledger {
  claims: Claim[]
  figures: Map<string, Figure>
  /** findings.yaml: each summary line of F1..F8 as a group of these claims (absent in a folder without the file). */
  findings?: FindingGroup[]
}

export const PUBLISHED_DIR = join(repoRoot, 'baselines/published')

/** Reads figures.yaml, claims.yaml and findings.yaml (when there) of `dir`; the first problem is a one-line UserError with file:line. */
export function loadLedger(dir = PUBLISHED_DIR): Ledger {
  const list = readYamlFile(join(dir, 'figures.yaml'), figuresFileSchema, 'Fix the figure as README.md in that folder describes')
  const figures = new Map(list.map((f) => [f.id, f]))
  const claims = readYamlFile(
    join(dir, 'claims.yaml'),
    claimsFileSchema(figures),
    'Fix the claim as the header of claims.yaml describes (figure ids come from figures.yaml)',
  )
  const groupsFile = join(dir, 'findings.yaml')
  const findings = existsSync(groupsFile)
    ? readYamlFile(
        groupsFile,
        findingGroupsFileSchema(new Map(claims.map((c) => [c.id, c.finding]))),
        'Fix the finding group as the header of findings.yaml describes (claim ids come from claims.yaml)',
      )
    : []
  return { claims, figures, findings }
}
