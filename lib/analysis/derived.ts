import { compareVersions } from '../catalog/stack.ts'
import { poolingSeriesCells, versionsSeriesCells, type CellSummary } from './cells.ts'

/**
 * Ratios the article reads off the cell medians: the pool effect per proxy, the spread of
 * the pool-removed cells (F3), the key-type cost (F5), the nginx and HAProxy isolation
 * variants, and the proxy's tax against the `direct` floor. Side-effect free.
 */
export interface Ratio {
  name: string
  proxy: string
  version: string
  value: number | null
  /** e.g. `pool-removed 99.8 µs/req`. */
  numerator: string
  denominator: string
  /** False for ratios of machine-specific rates (RPS): never compared across machines. */
  comparable: boolean
  warnings: string[]
}

type Match = Partial<Record<string, string | number>>

export const matches = (c: CellSummary, m: Match) => Object.entries(m).every(([k, v]) => c.key[k] === v)

/** The newest version's cell among those matching. */
export function newestCell(cells: readonly CellSummary[], m: Match): CellSummary | undefined {
  return cells
    .filter((c) => matches(c, m))
    .sort((a, b) => compareVersions(String(a.key.version), String(b.key.version)))
    .at(-1)
}

const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2))
const value = (c: CellSummary | undefined, metric?: string) => (!c ? null : metric ? (c.medians[metric] ?? null) : (c.summary?.median ?? null))

function ratio(
  name: string,
  proxy: string,
  version: string,
  a: CellSummary | undefined,
  b: CellSummary | undefined,
  labels: [string, string],
  unit: string,
  metric?: string,
): Ratio {
  const va = value(a, metric)
  const vb = value(b, metric)
  const warnings = [a, b].flatMap((c, i) => (!c ? [`${labels[i]}: not measured`] : c.status !== 'valid' ? [`${labels[i]}: cell ${c.status}`] : []))
  return {
    name,
    proxy,
    version,
    value: va !== null && vb !== null && vb !== 0 ? va / vb : null,
    numerator: `${labels[0]} ${va === null ? '—' : fmt(va)} ${unit}`,
    denominator: `${labels[1]} ${vb === null ? '—' : fmt(vb)} ${unit}`,
    comparable: metric !== 'rps',
    warnings,
  }
}

const closed = { model: 'closed', key_type: 'ec256' }
const us = 'µs/req'
const proxiesOf = (cells: readonly CellSummary[]) => [...new Set(cells.map((c) => String(c.key.proxy)).filter((p) => p !== 'direct'))].sort()
const versionsOf = (cells: readonly CellSummary[], proxy: string, variant: string) =>
  [...new Set(cells.filter((c) => matches(c, { proxy, variant, ...closed })).map((c) => String(c.key.version)))].sort(compareVersions)

export function derivedRatios(measurements: readonly CellSummary[], handshakes: readonly CellSummary[]): Ratio[] {
  // One figure, one set of rows: the pooling ratios from the pooling series only (as the findings);
  // the versions series' own article / pool-added per version, named as such.
  const m = poolingSeriesCells(measurements)
  return [...variantRatios(m), ...spreadRatios(m), ...directRatios(m), ...versionsSeriesRatios(measurements), ...handshakeRatios(handshakes)]
}

/** Per proxy and version: each pooling variant against pool-added, and each proxy's own variants against its baseline config. */
function variantRatios(m: readonly CellSummary[]): Ratio[] {
  const out: Ratio[] = []
  const cell = (proxy: string, variant: string, version: string) => m.find((c) => matches(c, { proxy, variant, version, ...closed }))
  for (const proxy of proxiesOf(m)) {
    for (const version of versionsOf(m, proxy, 'pool-added')) {
      const added = cell(proxy, 'pool-added', version)
      out.push(ratio('pool-removed / pool-added', proxy, version, cell(proxy, 'pool-removed', version), added, ['pool-removed', 'pool-added'], us))
      out.push(ratio('article / pool-added', proxy, version, cell(proxy, 'article', version), added, ['article', 'pool-added'], us))
    }
  }
  for (const version of versionsOf(m, 'haproxy', 'article')) {
    const article = cell('haproxy', 'article', version)
    for (const v of ['reuse-never', 'server-close'])
      if (cell('haproxy', v, version)) out.push(ratio(`${v} / article`, 'haproxy', version, cell('haproxy', v, version), article, [v, 'article'], us))
  }
  for (const version of versionsOf(m, 'nginx', 'literal')) {
    const literal = cell('nginx', 'literal', version)
    for (const v of ['upstream-default', 'upstream-keepalive'])
      if (cell('nginx', v, version)) out.push(ratio(`${v} / literal`, 'nginx', version, cell('nginx', v, version), literal, [v, 'literal'], us))
  }
  return out
}

/** F3: one value per proxy (its newest version), the spread across proxies. */
function spreadRatios(m: readonly CellSummary[]): Ratio[] {
  const out: Ratio[] = []
  const removed = proxiesOf(m).flatMap((p) => {
    const c = newestCell(m, { proxy: p, variant: 'pool-removed', ...closed })
    return c?.summary ? [{ p, v: c.summary.median }] : []
  })
  if (removed.length >= 2) {
    const lo = removed.reduce((a, b) => (b.v < a.v ? b : a))
    const hi = removed.reduce((a, b) => (b.v > a.v ? b : a))
    out.push({
      name: 'pool-removed spread (max / min)',
      proxy: 'all',
      version: 'newest',
      value: hi.v / lo.v,
      numerator: `${hi.p} ${fmt(hi.v)} ${us}`,
      denominator: `${lo.p} ${fmt(lo.v)} ${us}`,
      comparable: true,
      warnings: [],
    })
  }
  return out
}

/** Proxy CPU against the backend's own with nothing in front, and rps against the direct row's. */
function directRatios(m: readonly CellSummary[]): Ratio[] {
  const out: Ratio[] = []
  const direct = m.find((c) => c.key.proxy === 'direct')
  if (direct) {
    for (const proxy of proxiesOf(m)) {
      const article = newestCell(m, { proxy, variant: 'article', ...closed })
      if (!article) continue
      const version = String(article.key.version)
      // The floor: what the backend itself spends per request when nothing sits in front.
      const floor = direct.medians.backend_cpu_us_per_req
      const cost = value(article)
      out.push({
        name: 'proxy CPU / backend CPU (direct)',
        proxy,
        version,
        value: cost !== null && floor ? cost / floor : null,
        numerator: `proxy ${cost === null ? '—' : fmt(cost)} ${us}`,
        denominator: `direct backend ${floor === null ? '—' : fmt(floor)} ${us}`,
        comparable: true,
        warnings: article.status === 'valid' ? [] : [`article: cell ${article.status}`],
      })
      out.push(ratio('rps / direct rps', proxy, version, article, direct, ['proxy', 'direct'], 'rps', 'rps'))
    }
  }
  return out
}

/** The versions series' own article / pool-added, per version. */
function versionsSeriesRatios(measurements: readonly CellSummary[]): Ratio[] {
  const out: Ratio[] = []
  const vm = versionsSeriesCells(measurements)
  for (const proxy of proxiesOf(vm)) {
    for (const version of versionsOf(vm, proxy, 'pool-added')) {
      const at = (variant: string) => vm.find((c) => matches(c, { proxy, variant, version, ...closed }))
      out.push(ratio('article / pool-added (versions series)', proxy, version, at('article'), at('pool-added'), ['article', 'pool-added'], us))
    }
  }
  return out
}

/** Each RSA key's handshake cost against ec256's, per proxy and version. */
function handshakeRatios(handshakes: readonly CellSummary[]): Ratio[] {
  const out: Ratio[] = []
  for (const proxy of proxiesOf(handshakes)) {
    const versions = [...new Set(handshakes.filter((c) => c.key.proxy === proxy).map((c) => String(c.key.version)))].sort(compareVersions)
    for (const version of versions) {
      const hs = (k: string) => handshakes.find((c) => matches(c, { series: 'tls-handshake', proxy, version, key_type: k }))
      for (const k of ['rsa2048', 'rsa4096'])
        if (hs(k)) out.push(ratio(`${k} / ec256 handshake`, proxy, version, hs(k), hs('ec256'), [k, 'ec256'], 'µs/handshake'))
    }
  }
  return out
}
