import { availableParallelism } from 'node:os'
import { userError } from '../core/errors.ts'
import type { Role } from '../runtime/types.ts'

export type CpuLayout = Record<Role, string>

const range = (from: number, count: number) => (count === 1 ? String(from) : `${from}-${from + count - 1}`)

/**
 * Disjoint cpusets where the machine allows: the proxy and backend get a quarter each
 * (at least one core), the generator the rest. On 2 cores the proxy has one core and
 * backend and generator share the other; on 1 core everything shares it.
 */
export function defaultCpuLayout(cores = availableParallelism()): CpuLayout {
  if (cores <= 1) return { proxy: '0', backend: '0', generator: '0' }
  if (cores === 2) return { proxy: '1', backend: '0', generator: '0' }
  const quarter = Math.max(1, Math.floor(cores / 4))
  return { backend: range(0, quarter), proxy: range(quarter, quarter), generator: range(2 * quarter, cores - 2 * quarter) }
}

/** Number of CPUs in a list like `0-3,6`. */
export function cpuCount(list: string): number {
  return list.split(',').reduce((n, part) => {
    const [a, b] = part.split('-').map(Number)
    return n + (b === undefined ? 1 : b - a! + 1)
  }, 0)
}

const CPU_LIST = /^\d+(-\d+)?(,\d+(-\d+)?)*$/

/** Applies `--cpus proxy=1 backend=0 generator=0` (space or comma separated) to a layout. */
export function parseCpuOverride(value: string, base: CpuLayout, cores = availableParallelism()): CpuLayout {
  const layout = { ...base }
  for (const item of value.split(/\s+/).filter(Boolean)) {
    const [role, list] = item.split('=')
    if (!role || !list || !(role in layout) || !CPU_LIST.test(list)) {
      throw userError('--cpus', `cannot read "${item}"`, 'Write role=list for roles proxy, backend, generator, e.g. --cpus "proxy=1 backend=0 generator=0"')
    }
    const reversed = list.split(',').find((part) => {
      const [a, b] = part.split('-').map(Number)
      return b !== undefined && b < a!
    })
    if (reversed)
      throw userError(
        '--cpus',
        `${role}=${list}: the range ${reversed} runs backwards`,
        `Write the lower CPU first, e.g. ${reversed.split('-').reverse().join('-')}`,
      )
    const max = Math.max(...list.split(/[,-]/).map(Number))
    if (max >= cores) throw userError('--cpus', `${role}=${list} names CPU ${max} but this machine has ${cores}`, `Use CPUs 0-${cores - 1}`)
    layout[role as Role] = list
  }
  return layout
}
