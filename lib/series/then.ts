import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { StackVersion } from '../catalog/stack.ts'
import { EXTRAS } from '../catalog/variants.ts'
import { SERIES_ROWS } from '../data/series.ts'
import { THEN_DIR, type ThenSide } from '../data/then.ts'
import type { CellPlan, CellContext } from '../measure/cell.ts'
import type { ProxyBuild } from '../roles/proxy.ts'

/**
 * Then and now in one run (docs/method/pairs.md): under `--like BASELINE` every cell of a
 * one-version series gets a twin measuring the baseline's build and config of its proxy,
 * in the same round, next to it in a fresh order (lib/core/shuffle.ts blockOrder).
 */

/** One proxy's then side, resolved before the series (lib/run/then.ts). */
export interface ThenProxy {
  side: ThenSide
  stackVersion: StackVersion
  /** Absent: not runnable (side.note says why). */
  build?: ProxyBuild
  /** The baseline's kept templates of this proxy (baselines/runs/<id>/templates/<proxy>); null: today's stand in. */
  templates: string | null
}

export interface ThenPlan {
  baseline: string
  sides: ReadonlyMap<string, ThenProxy>
}

/** Row series that measure several versions of a proxy (versions, bisect, nginx's all-version extras): not paired, their versions are the comparison. */
export const MULTI_VERSION_SERIES: ReadonlySet<string> = new Set<string>([
  ...SERIES_ROWS.versions.measurements,
  ...SERIES_ROWS.bisect.measurements,
  ...SERIES_ROWS.capacity.measurements,
  ...Object.values(EXTRAS)
    .filter((e) => e.allVersions)
    .map((e) => e.series),
])

/** The then template of a cell: the baseline's kept copy of its variant, else today's; a user's own config is theirs on both sides. */
const thenTemplate = (p: ThenProxy, cell: CellPlan): string => {
  const kept = p.templates && cell.template && !isCustom(cell) ? join(p.templates, basename(cell.template)) : null
  return kept && existsSync(kept) ? kept : cell.template!
}

const isCustom = (cell: CellPlan) => cell.variant.startsWith('custom:')
const sameContent = (a: string, b: string) => a === b || readFileSync(a).equals(readFileSync(b))

/**
 * A cell's then twin, or undefined when the cell has none: not a proxy cell of the now
 * version, a series of several versions, or the same build and config measured once. A
 * user's own config (--config) is paired too: the same file on the baseline's build. A then side that cannot run here still has twins: failed rows saying why.
 */
export function thenTwin(cell: CellPlan, ctx: Pick<CellContext, 'runtime'> & { pairing?: ThenPlan }): CellPlan | undefined {
  const p = ctx.pairing?.sides.get(cell.proxy)
  if (!p || !cell.stack || !cell.template || cell.image) return undefined
  if (cell.version !== p.side.now_version || MULTI_VERSION_SERIES.has(cell.series)) return undefined
  const template = thenTemplate(p, cell)
  if (p.side.how === 'same build' && sameContent(template, cell.template)) return undefined
  const twin: CellPlan = { ...cell, version: p.side.version, stackVersion: p.stackVersion, template }
  if (!p.build) return { ...twin, unrunnable: p.side.note }
  if (ctx.runtime.kind !== 'native') return { ...twin, unrunnable: `then side: the baseline's builds run on the native runtime only (--runtime native)` }
  return { ...twin, build: p.build }
}

/** The context a then twin measures in: its raw files and configs under then/. */
export const thenContext = <C extends CellContext>(ctx: C): C => ({ ...ctx, runDir: join(ctx.runDir, THEN_DIR) })
