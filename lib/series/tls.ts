import { join } from 'node:path'
import { loadStack, templateFile, type ProxyName } from '../catalog/stack.ts'
import { KEY_TYPES, type KeyType } from '../setup/certs.ts'
import { cpuCount } from '../roles/cpus.ts'
import type { Handshake, Measurement } from '../data/schema.ts'
import { HANDSHAKES, MEASUREMENTS, readTable } from '../data/tables.ts'
import type { Finding } from '../findings/pooling.ts'
import { loadgenArgv, type HandshakeResult, type OpenResult } from '../roles/loadgen.ts'
import { withVerifiedStack, cellName, type Cell, type CellContext } from '../measure/cell.ts'
import { runGenerator } from '../measure/generator.ts'
import { invalidReasons } from '../measure/validity.ts'
import { interleavedOrder } from '../core/shuffle.ts'
import { summarize } from '../core/stats.ts'
import { cellRowKey, closedTasks, newest } from './pooling.ts'
import type { Series, SeriesContext, Task } from './types.ts'

/** Concurrent handshaking clients: enough to keep one proxy core busy, few enough not to saturate the generator. */
export const HANDSHAKE_WORKERS = 4
/**
 * The open-model rate: this fraction of the slowest proxy's EC-256 closed-model ceiling
 * (the seed ran 15k rps against ceilings of 100-223k, i.e. 7-15%). At 50% on 2 cores
 * even EC-256 snowballed to the VU cap at start-up, each new VU paying a handshake.
 */
export const OPEN_FRACTION = 0.2
export const OPEN_PREALLOC = 50
export const OPEN_MAX_VUS = 1000
/** Calibration steps, as fractions of HAProxy's closed-model ceiling. */
export const CALIBRATION_STEPS = [0.05, 0.1, 0.2, 0.4, 0.7, 1]
/** Proxies built on Go's crypto/tls, the rest on OpenSSL or BoringSSL. */
export const GO_PROXIES = ['traefik', 'caddy']

const round = (x: number, d = 3) => Number(x.toFixed(d))

function proxyCell(proxy: ProxyName, series: string, variant: string, keyType: KeyType, connections: number): Cell {
  const stack = loadStack(proxy)
  const v = newest(stack)
  return { series, proxy, version: v.version, variant, keyType, connections, stack, stackVersion: v, template: templateFile(stack, variant) }
}

/** Full handshakes (+ one GET each) for one key type: proxy CPU per handshake. */
export async function measureHandshakes(cell: Cell, repeat: number, ctx: CellContext): Promise<Handshake> {
  const started = new Date().toISOString()
  const row = (f: Partial<Handshake>): Handshake => ({
    run_id: ctx.runId, series: cell.series, proxy: cell.proxy, version: cell.version, variant: cell.variant, key_type: cell.keyType,
    connections: cell.connections, duration_s: ctx.profile.durationS, repeat, handshakes: 0, resumed: 0, errors: 0, rate: null, p50_ms: null, p99_ms: null,
    proxy_cpu_us_per_handshake: null, generator_cpu_share: null, proxy_cpu_share: null, status: 'valid', reason: '', runtime: ctx.runtime.kind, started_at: started, ...f,
  })
  const name = `${cellName(cell)}-r${repeat}`
  return withVerifiedStack(cell, name, ctx, { failed: (reason) => row({ status: 'failed', reason }), invalid: (reason) => row({ status: 'invalid', reason }) }, async ({ proxy, url, roles }) => {
    const argv = loadgenArgv('handshake', url, ctx.certs.ca, { c: cell.connections, d: `${ctx.profile.durationS}s`, 'expect-body': 'hello world' })
    const g = await runGenerator<HandshakeResult>(ctx, name, argv, join(ctx.runDir, 'raw', `${name}.handshake.json`), [proxy!], roles, ctx.profile.durationS)
    const r = g.result
    const proxyNs = g.cpuNs.get(proxy!)!
    const reasons = invalidReasons({ generatorRequests: r?.handshakes ?? 0, generatorErrors: r?.errors ?? 0, windowRequests: r?.handshakes ?? 0, generatorCpuShare: g.generatorShare, exited: g.exit })
    if (r && r.resumed > 0) reasons.unshift(`${r.resumed} handshakes were resumed, not full`)
    return row({
      handshakes: r?.handshakes ?? 0, resumed: r?.resumed ?? 0, errors: r?.errors ?? 0, rate: r ? round(r.rate, 1) : null, p50_ms: r?.p50_ms ?? null, p99_ms: r?.p99_ms ?? null,
      proxy_cpu_us_per_handshake: r && r.handshakes > 0 ? round(proxyNs / 1e3 / r.handshakes) : null,
      generator_cpu_share: g.generatorShare, proxy_cpu_share: round(proxyNs / 1e9 / (g.wallS * cpuCount(ctx.cpus.proxy)), 4),
      status: reasons.length ? 'invalid' : 'valid', reason: reasons.join('; '),
    })
  })
}

/** One open-model run at a fixed rate: rows with model=open, target_rps, max_vus, dropped. */
export async function measureOpen(cell: Cell, repeat: number, rate: number, ctx: CellContext): Promise<Measurement> {
  const started = new Date().toISOString()
  const seconds = ctx.profile.warmupS + ctx.profile.durationS
  const row = (f: Partial<Measurement>): Measurement => ({
    run_id: ctx.runId, series: cell.series, proxy: cell.proxy, version: cell.version, variant: cell.variant, key_type: cell.keyType, model: 'open',
    connections: cell.connections, target_rps: rate, duration_s: seconds, repeat, requests: 0, errors: 0, rps: null, p50_ms: null, p90_ms: null, p99_ms: null, p999_ms: null, max_ms: null,
    proxy_cpu_us_per_req: null, backend_cpu_us_per_req: null, generator_cpu_share: null, backend_conns_per_1k_req: null, max_vus: null, dropped: null,
    status: 'valid', reason: '', proxy_cpu_share: null, runtime: ctx.runtime.kind, started_at: started, ...f,
  })
  const name = `${cellName(cell)}-${rate}rps-r${repeat}`
  return withVerifiedStack(cell, name, ctx, { failed: (reason) => row({ status: 'failed', reason }), invalid: (reason) => row({ status: 'invalid', reason }) }, async ({ proxy, backend, url, roles }) => {
    const argv = loadgenArgv('open', url, ctx.certs.ca, { rate, d: `${seconds}s`, prealloc: OPEN_PREALLOC, 'max-vus': cell.connections, 'expect-body': 'hello world' })
    const g = await runGenerator<OpenResult>(ctx, name, argv, join(ctx.runDir, 'raw', `${name}.open.json`), [proxy!, backend.role], roles, seconds)
    const r = g.result
    const proxyNs = g.cpuNs.get(proxy!)!
    const perReq = (ns: number) => (r && r.ok > 0 ? round(ns / 1e3 / r.ok) : null)
    const reasons = invalidReasons({ generatorRequests: r?.ok ?? 0, generatorErrors: (r?.errors ?? 0) + (r?.dropped ?? 0), windowRequests: r?.ok ?? 0, generatorCpuShare: g.generatorShare, exited: g.exit })
    return row({
      requests: r?.ok ?? 0, errors: r?.errors ?? 0, rps: r ? round(r.achieved_rate, 1) : null,
      p50_ms: r?.p50_ms ?? null, p90_ms: r?.p90_ms ?? null, p99_ms: r?.p99_ms ?? null, p999_ms: r?.p999_ms ?? null, max_ms: r?.max_ms ?? null,
      proxy_cpu_us_per_req: perReq(proxyNs), backend_cpu_us_per_req: perReq(g.cpuNs.get(backend.role)!), generator_cpu_share: g.generatorShare,
      max_vus: r?.max_vus ?? null, dropped: r?.dropped ?? null, proxy_cpu_share: round(proxyNs / 1e9 / (g.wallS * cpuCount(ctx.cpus.proxy)), 4),
      status: reasons.length ? 'invalid' : 'valid', reason: reasons.join('; '),
    })
  })
}

/** Median closed-model rps of each proxy's EC-256 ceiling cell (valid rows only). */
export function ceilings(rows: readonly Measurement[]): Map<string, number> {
  const by = new Map<string, number[]>()
  for (const r of rows) if (r.series === 'tls-ceiling' && r.status === 'valid' && r.rps) by.set(r.proxy, [...(by.get(r.proxy) ?? []), r.rps])
  return new Map([...by].map(([p, v]) => [p, summarize(v).median]))
}

/** The open-model rate: a stated fraction of the slowest proxy's ceiling, in hundreds. */
export function openRate(c: Map<string, number>): number | null {
  return c.size === 0 ? null : Math.max(100, Math.round((OPEN_FRACTION * Math.min(...c.values())) / 100) * 100)
}

function openTasks(cells: Cell[], rates: number[], ctx: SeriesContext): Task[] {
  const combos = cells.flatMap((cell) => rates.map((rate) => ({ cell, rate })))
  return interleavedOrder(combos, ctx.profile.repeats, ctx.seed).map(({ cell: { cell, rate }, repeat }) => ({
    label: `${cell.series} ${cell.proxy} ${cell.keyType} ${rate} rps r${repeat}`,
    table: MEASUREMENTS,
    key: cellRowKey(cell, repeat, 'open', rate),
    run: () => measureOpen(cell, repeat, rate, ctx),
  })) as Task[]
}

export function tlsSeries(): Series {
  return {
    name: 'tls',
    phases: [
      {
        name: 'tls-handshake',
        tasks: (ctx) => {
          const cells = ctx.proxies.flatMap((p) => KEY_TYPES.map((kt) => proxyCell(p, 'tls-handshake', 'pool-added', kt, HANDSHAKE_WORKERS)))
          return interleavedOrder(cells, ctx.profile.repeats, ctx.seed).map(({ cell, repeat }) => ({
            label: `handshakes ${cell.proxy} ${cell.keyType} r${repeat}`,
            table: HANDSHAKES,
            key: HANDSHAKES.key({ series: cell.series, proxy: cell.proxy, version: cell.version, variant: cell.variant, key_type: cell.keyType, connections: cell.connections, repeat } as Handshake),
            run: () => measureHandshakes(cell, repeat, ctx),
          })) as Task[]
        },
      },
      { name: 'tls-ceiling', tasks: (ctx) => closedTasks(ctx.proxies.map((p) => proxyCell(p, 'tls-ceiling', 'pool-added', 'ec256', ctx.connections)), ctx) },
      {
        name: 'tls-open',
        tasks: (ctx) => {
          const rate = openRate(ceilings(readTable(ctx.runDir, MEASUREMENTS)))
          if (rate === null) {
            ctx.log.warn('tls-open: no valid closed-model ceiling, so no open-model rate: phase skipped')
            return []
          }
          ctx.log.info(`tls-open: ${rate} rps = ${OPEN_FRACTION * 100}% of the slowest proxy's EC-256 closed ceiling; VUs ${OPEN_PREALLOC}..${OPEN_MAX_VUS}`)
          return openTasks(ctx.proxies.flatMap((p) => (['ec256', 'rsa4096'] as const).map((kt) => proxyCell(p, 'tls-open', 'pool-added', kt, OPEN_MAX_VUS))), [rate], ctx)
        },
      },
      {
        name: 'tls-calibration',
        tasks: (ctx) => {
          const c = ceilings(readTable(ctx.runDir, MEASUREMENTS))
          const proxy = ctx.proxies.includes('haproxy') ? 'haproxy' : ctx.proxies[0]!
          const ceiling = c.get(proxy)
          if (!ceiling) return []
          const rates = CALIBRATION_STEPS.map((f) => Math.max(100, Math.round((f * ceiling) / 100) * 100))
          return openTasks([proxyCell(proxy, 'tls-calibration', 'pool-added', 'ec256', OPEN_MAX_VUS)], rates, ctx)
        },
      },
    ],
    findings: (runDir) => tlsFindings(readTable(runDir, HANDSHAKES), readTable(runDir, MEASUREMENTS)),
  }
}

const fmt = (x: number, d = 0) => x.toFixed(d)

/** F5 (handshake cost per key type), F6 (open-model collapse) and the generator calibration. */
export function tlsFindings(handshakes: readonly Handshake[], rows: readonly Measurement[]): Finding[] {
  const cost = (proxy: string, kt: string) => {
    const v = handshakes.filter((h) => h.proxy === proxy && h.key_type === kt && h.status === 'valid' && h.proxy_cpu_us_per_handshake !== null).map((h) => h.proxy_cpu_us_per_handshake!)
    return v.length ? summarize(v).median : undefined
  }
  const proxies = [...new Set(handshakes.map((h) => h.proxy))].sort()
  const per = proxies.flatMap((p) => {
    const ec = cost(p, 'ec256')
    const rsa = cost(p, 'rsa4096')
    return ec && rsa ? [{ p, ec, rsa, r: rsa / ec }] : []
  })
  const others = per.filter((x) => !GO_PROXIES.includes(x.p))
  const go = per.filter((x) => GO_PROXIES.includes(x.p))
  const otherMedian = others.length ? summarize(others.map((x) => x.rsa)).median : undefined
  const f5: Finding[] = [
    {
      id: 'F5', title: 'full handshake: rsa4096 / ec256 >= 8 for every proxy (seed: 13.6x)',
      verdict: per.length === 0 ? 'not measured' : per.every((x) => x.r >= 8) ? 'held' : 'not held',
      figure: per.map((x) => `${x.p} ${fmt(x.ec)} → ${fmt(x.rsa)} µs (${x.r.toFixed(1)}x)`).join(', '),
    },
    {
      id: 'F5', title: 'rsa4096: Go proxies >= 1.5x the OpenSSL/BoringSSL median (seed: ~2x)',
      verdict: !otherMedian || go.length === 0 ? 'not measured' : go.every((x) => x.rsa / otherMedian >= 1.5) ? 'held' : 'not held',
      figure: otherMedian ? `${go.map((x) => `${x.p} ${(x.rsa / otherMedian).toFixed(2)}x`).join(', ')} of ${fmt(otherMedian)} µs` : '',
    },
  ]

  // F6: same rate, only the certificate changes.
  const open = rows.filter((r) => r.series === 'tls-open')
  const failShare = (r: Measurement) => ((r.errors ?? 0) + (r.dropped ?? 0)) / Math.max(1, r.requests + (r.errors ?? 0) + (r.dropped ?? 0))
  const worst = (proxy: string, kt: string) => open.filter((r) => r.proxy === proxy && r.key_type === kt && r.status !== 'failed').sort((a, b) => failShare(b) - failShare(a))[0]
  const openProxies = [...new Set(open.map((r) => r.proxy))].sort()
  const describe = (r?: Measurement) => (r ? `${(failShare(r) * 100).toFixed(1)}% failed, ${r.max_vus} VUs` : 'n/a')
  const ecHolds = openProxies.every((p) => {
    const r = worst(p, 'ec256')
    return r && failShare(r) <= 0.01 && (r.max_vus ?? 0) < r.connections / 2
  })
  const goCollapse = openProxies.filter((p) => GO_PROXIES.includes(p)).every((p) => {
    const r = worst(p, 'rsa4096')
    return r && ((r.max_vus ?? 0) >= r.connections || failShare(r) >= 0.05)
  })
  const rate = open[0]?.target_rps
  const f6: Finding = {
    id: 'F6', title: `open model at ${rate ?? '?'} rps: ec256 holds, rsa4096 collapses (Go proxies at least)`,
    verdict: openProxies.length === 0 ? 'not measured' : ecHolds && goCollapse ? 'held' : 'not held',
    figure: openProxies.map((p) => `${p} ec256 ${describe(worst(p, 'ec256'))} / rsa4096 ${describe(worst(p, 'rsa4096'))}`).join('; '),
  }

  // Calibration: where the open model first "fails", and how busy the proxy was then.
  const steps = rows.filter((r) => r.series === 'tls-calibration').sort((a, b) => (a.target_rps ?? 0) - (b.target_rps ?? 0))
  const ceilingRows = rows.filter((r) => r.series === 'tls-ceiling' && r.status === 'valid' && steps[0] && r.proxy === steps[0].proxy)
  const closed = ceilingRows.length ? summarize(ceilingRows.map((r) => r.rps!)).median : undefined
  const fails = steps.find((r) => (r.rps ?? 0) < 0.95 * (r.target_rps ?? 0) || failShare(r) > 0.01)
  const calib: Finding = {
    id: 'F6', title: 'calibration: where the open model first fails, and the proxy CPU then',
    verdict: steps.length === 0 ? 'not measured' : 'info',
    figure: steps.length === 0 ? '' : fails
      ? `${steps[0]!.proxy} fails at ${fails.target_rps} rps (achieved ${fmt(fails.rps ?? 0)}, ${(failShare(fails) * 100).toFixed(1)}% failed) with the proxy at ${fmt((fails.proxy_cpu_share ?? 0) * 100)}% CPU and the generator at ${fmt((fails.generator_cpu_share ?? 0) * 100)}%; closed model: ${fmt(closed ?? 0)} rps`
      : `${steps[0]!.proxy} held every step up to ${steps.at(-1)!.target_rps} rps; closed model: ${fmt(closed ?? 0)} rps`,
  }
  return [...f5, f6, calib]
}
