import { fmtInterval, ratioInterval, type Interval } from '../core/intervals.ts'
import { median } from '../core/stats.ts'
import { formatTable } from '../core/text-table.ts'
import type { Measurement } from '../data/schema.ts'
import { pitLine, poolingCells } from '../findings/pooling.ts'
import { projectId } from '../data/grouping.ts'

/*
 * One host against several (issue #18's figures): the same pooling cells measured by a
 * run with every role on one machine and a run with each role on its own host. Per cell
 * the proxy CPU per request of both, their ratio with its interval, and the generator's
 * CPU share; then F3 (the pool-removed spread) as each run's findings state it.
 */

export interface HostsLine {
  proxy: string
  version: string
  variant: string
  /** Median proxy µs/req of the valid closed-model repeats: one host, several hosts. */
  one?: number
  many?: number
  /** several / one, over the repeats (bootstrap, as every ratio of the findings). */
  ratio?: Interval
  /** Median generator CPU share (of its cpuset) of the valid rows. */
  genOne?: number
  genMany?: number
  /** Valid repeats: one host, several hosts. */
  n: [number, number]
}

const key = (r: { proxy: string; version: string; variant: string }) => projectId(r, ['proxy', 'version', 'variant'])

function generatorShare(rows: readonly Measurement[], k: string): number | undefined {
  const xs = rows.filter((r) => r.status === 'valid' && key(r) === k && r.generator_cpu_share !== null).map((r) => r.generator_cpu_share!)
  return xs.length ? median(xs) : undefined
}

/** A line per (proxy, version, variant) measured by either run, sorted. */
export function hostsLines(one: readonly Measurement[], many: readonly Measurement[]): HostsLine[] {
  const a = new Map(poolingCells(one).map((c) => [key(c), c]))
  const b = new Map(poolingCells(many).map((c) => [key(c), c]))
  return [...new Set([...a.keys(), ...b.keys()])].sort().map((k) => {
    const [proxy, version, variant] = k.split('|') as [string, string, string]
    const x = a.get(k)?.cpu
    const y = b.get(k)?.cpu
    const line: HostsLine = { proxy, version, variant, n: [x?.size ?? 0, y?.size ?? 0] }
    if (x?.size) line.one = median([...x.values()])
    if (y?.size) line.many = median([...y.values()])
    if (x?.size && y?.size) line.ratio = ratioInterval(y, x)
    const g1 = generatorShare(one, k)
    const g2 = generatorShare(many, k)
    if (g1 !== undefined) line.genOne = g1
    if (g2 !== undefined) line.genMany = g2
    return line
  })
}

/** F3's figure as the findings give it for a run's rows ('' when not measured: fewer than two proxies). */
export const f3Figure = (rows: readonly Measurement[]): string => pitLine(rows).figure

const num = (x: number | undefined, d = 1) => (x === undefined ? '-' : x.toFixed(d))
const share = (x: number | undefined) => (x === undefined ? '-' : `${(x * 100).toFixed(0)}%`)
const minutes = (s: number) => `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`

/** The printed comparison: the cell table, the median ratio, wall times, F3 of each run. */
export function formatHostsComparison(
  one: readonly Measurement[],
  many: readonly Measurement[],
  wallS: { one: number; many: number },
  labels = { one: 'one host', many: 'three hosts' },
): string {
  const lines = hostsLines(one, many)
  const table = formatTable(
    lines.map((l) => ({
      proxy: l.proxy,
      version: l.version,
      variant: l.variant,
      'one µs/req': num(l.one),
      'hosts µs/req': num(l.many),
      'hosts/one': l.ratio ? fmtInterval(l.ratio) : '-',
      'gen one': share(l.genOne),
      'gen hosts': share(l.genMany),
      n: l.n.join('/'),
    })),
    ['proxy', 'version', 'variant', 'one µs/req', 'hosts µs/req', 'hosts/one', 'gen one', 'gen hosts', 'n'],
  )
  const ratios = lines.flatMap((l) => (l.ratio ? [l.ratio.value] : []))
  const gens = (side: 'genOne' | 'genMany') => lines.flatMap((l) => (l[side] === undefined ? [] : [l[side]!]))
  const out = [
    `${labels.many} vs ${labels.one}, the same cells (µs/req: median proxy CPU per request of the valid repeats; gen: the generator's CPU share of its cpuset; n: valid repeats ${labels.one}/${labels.many})`,
    '',
    table,
    '',
    `proxy CPU µs/req, ${labels.many}/${labels.one}: median over ${ratios.length} cells ${ratios.length ? median(ratios).toFixed(2) : '-'} (range ${ratios.length ? `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}` : '-'})`,
    `generator CPU share, median over cells: ${labels.one} ${share(gens('genOne').length ? median(gens('genOne')) : undefined)}, ${labels.many} ${share(gens('genMany').length ? median(gens('genMany')) : undefined)}`,
    `wall time of the series: ${labels.one} ${minutes(wallS.one)}, ${labels.many} ${minutes(wallS.many)}`,
    `F3 pool-removed spread, ${labels.one}: ${f3Figure(one) || 'not measured (needs two proxies)'}`,
    `F3 pool-removed spread, ${labels.many}: ${f3Figure(many) || 'not measured (needs two proxies)'}`,
  ]
  return out.join('\n')
}
