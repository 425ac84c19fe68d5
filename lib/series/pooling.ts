import { basename } from 'node:path'
import { loadStack, type ProxyName } from '../catalog/stack.ts'
import { EXTRAS, MAIN_SERIES } from '../catalog/variants.ts'
import { catalogCell, directCell, type Cell } from '../measure/cell.ts'
import { closedTasks } from './tasks.ts'
import type { Series } from './types.ts'

export interface CustomConfig {
  proxy: ProxyName
  file: string
}

/**
 * Cells of the pooling series: for each proxy the three main series on its newest
 * version, the extras, users' own configs, and one `direct` row (the floor).
 */
export function poolingCells(proxies: readonly ProxyName[], opts: { connections: number; backendVersion: string; custom?: CustomConfig[] }): Cell[] {
  const cells: Cell[] = [directCell(opts.backendVersion, opts.connections)]
  for (const proxy of proxies) {
    const stack = loadStack(proxy)
    const connections = opts.connections
    for (const [series, variant] of Object.entries(MAIN_SERIES)) cells.push(catalogCell(stack, { series, variant, connections }))
    const extra = EXTRAS[proxy]
    if (extra) {
      for (const version of extra.allVersions ? stack.versions : [undefined]) {
        for (const variant of extra.variants) cells.push(catalogCell(stack, { series: extra.series, variant, connections, version }))
      }
    }
    for (const c of opts.custom?.filter((c) => c.proxy === proxy) ?? []) cells.push(catalogCell(stack, { series: 'custom', variant: `custom:${basename(c.file)}`, connections, template: c.file }))
  }
  return cells
}

export function poolingSeries(custom: CustomConfig[]): Series {
  return {
    name: 'pooling',
    phases: [{ name: 'pooling', tasks: (ctx) => closedTasks(poolingCells(ctx.proxies, { connections: ctx.connections, backendVersion: ctx.backendVersion, custom }), ctx) }],
  }
}
