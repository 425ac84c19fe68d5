import { basename } from 'node:path'
import { compareVersions, expectsReuse, loadStack, PROXIES, templateFile, type ProxyName, type Stack, type StackVersion } from '../catalog/stack.ts'
import { readMeasurements } from '../data/measurements.ts'
import { MEASUREMENTS } from '../data/tables.ts'
import { poolingFindings } from '../findings/pooling.ts'
import { measureCell, type Cell } from '../measure/cell.ts'
import { interleavedOrder } from '../core/shuffle.ts'
import type { Series, SeriesContext, Task } from './types.ts'

/** Extras beyond article / pool-added / pool-removed, and on which versions they run. */
const EXTRAS: Partial<Record<ProxyName, { series: string; variants: string[]; allVersions: boolean }>> = {
  haproxy: { series: 'haproxy-reuse', variants: ['reuse-never', 'server-close'], allVersions: false },
  // F7: literal vs upstream block on a version before and one at or after 1.29.7.
  nginx: { series: 'nginx-keepalive', variants: ['literal', 'upstream-default', 'upstream-keepalive'], allVersions: true },
}

/** The `series` values of the pooling rows in measurements.csv. */
export const POOLING_SERIES = ['same', 'pool-added', 'pool-removed', 'haproxy-reuse', 'nginx-keepalive', 'direct', 'custom']

/** The variant each main series uses. */
export const MAIN_SERIES = { same: 'article', 'pool-added': 'pool-added', 'pool-removed': 'pool-removed' } as const

export interface CustomConfig {
  proxy: ProxyName
  file: string
}

/** The newest catalog version: what "current" means in a run. */
export const newest = (stack: Stack): StackVersion => [...stack.versions].sort((a, b) => compareVersions(a.version, b.version)).at(-1)!

/**
 * Cells of the pooling series: for each proxy the three main series on its newest
 * version, the extras, users' own configs, and one `direct` row (the floor).
 */
export function poolingCells(proxies: readonly ProxyName[], opts: { connections: number; backendVersion: string; custom?: CustomConfig[] }): Cell[] {
  const cells: Cell[] = [{ series: 'direct', proxy: 'direct', version: opts.backendVersion, variant: 'direct', keyType: 'ec256', connections: opts.connections }]
  const cell = (stack: Stack, v: StackVersion, series: string, variant: string, template = templateFile(stack, variant)): Cell => ({
    series, proxy: stack.proxy, version: v.version, variant, keyType: 'ec256', connections: opts.connections, stack, stackVersion: v, template,
  })
  for (const proxy of proxies) {
    const stack = loadStack(proxy)
    const current = newest(stack)
    for (const [series, variant] of Object.entries(MAIN_SERIES)) cells.push(cell(stack, current, series, variant))
    const extra = EXTRAS[proxy]
    if (extra) {
      for (const v of extra.allVersions ? stack.versions : [current]) for (const variant of extra.variants) cells.push(cell(stack, v, extra.series, variant))
    }
    for (const c of opts.custom?.filter((c) => c.proxy === proxy) ?? []) cells.push(cell(stack, current, 'custom', `custom:${basename(c.file)}`, c.file))
  }
  return cells
}

/** Key of the measurements row a closed-model cell produces in a repeat. */
export function cellRowKey(c: Cell, repeat: number, model: 'closed' | 'open' = 'closed', targetRps: number | null = null): string {
  return MEASUREMENTS.key({ series: c.series, proxy: c.proxy, version: c.version, variant: c.variant, key_type: c.keyType, model, connections: c.connections, target_rps: targetRps, repeat } as never)
}

/** Closed-model tasks for cells, repeats interleaved and shuffled with the run's seed. */
export function closedTasks(cells: readonly Cell[], ctx: SeriesContext): Task[] {
  return interleavedOrder(cells, ctx.profile.repeats, ctx.seed).map(({ cell, repeat }) => ({
    label: `${cell.series} ${cell.proxy} ${cell.version} ${cell.variant}${cell.keyType === 'ec256' ? '' : ` ${cell.keyType}`} r${repeat}`,
    table: MEASUREMENTS,
    key: cellRowKey(cell, repeat),
    run: () => measureCell(cell, repeat, ctx),
  })) as Task[]
}

/** Whether documentation predicts reuse for a measured cell (undefined: no prediction). */
export function documentedReuse(proxy: string, variant: string, version: string): boolean | undefined {
  if (!(PROXIES as readonly string[]).includes(proxy) || variant.startsWith('custom:')) return undefined
  return expectsReuse(loadStack(proxy as ProxyName), variant, version)
}

export function poolingSeries(custom: CustomConfig[]): Series {
  return {
    name: 'pooling',
    phases: [{ name: 'pooling', tasks: (ctx) => closedTasks(poolingCells(ctx.proxies, { connections: ctx.connections, backendVersion: ctx.backendVersion, custom }), ctx) }],
    findings: (runDir) => poolingFindings(readMeasurements(runDir).filter((r) => POOLING_SERIES.includes(r.series)), documentedReuse),
  }
}
