import { agreesWithDocs } from '../catalog/reuse.ts'
import { mkdirSync } from 'node:fs'
import { backendStats, connsBetween } from '../roles/backend.ts'
import { expectsReuse, hasVariant, loadStack, variantRunsOn, type ProxyName } from '../catalog/stack.ts'
import type { CertSet } from '../setup/certs.ts'
import { h3Support } from '../setup/h3-support.ts'

import { DEFAULT_KEY_VARIANT } from '../data/default-keys.ts'
import { defaultCpuLayout } from '../roles/cpus.ts'
import { loadgenRequests } from '../roles/loadgen.ts'
import type { Logger } from '../core/log.ts'
import { catalogCellPlan, withVerifiedStack, type CellPlan, type CellContext } from '../measure/cell.ts'
import { getProfile } from '../catalog/profiles.ts'
import { chooseVersions, type VersionChoice } from '../catalog/version-choice.ts'
import { acquireRunLock } from './lock.ts'
import { cleanupStale, NativeRuntime } from '../runtime/native.ts'

export interface PoolRow {
  proxy: ProxyName
  version: string
  variant: string
  /** Backend TCP connections per 100 proxied requests (the measured pool detector). */
  conns_per_100: number | null
  /** What the documentation predicts (stack.yaml `reuse`). */
  expected: 'reuse' | 'no reuse'
  ok_responses: number
  requests: number
  proto: string
  /** ok: answered and matched the prediction; unexpected: answered, prediction wrong; failed: did not answer. */
  status: 'ok' | 'unexpected' | 'failed'
  note?: string
}

export const REQUESTS_PER_CELL = 100
/** Whether conns per 100 requests agree with the prediction (catalog/reuse.ts thresholds, per 1k). */
export function judge(conns: number, expected: PoolRow['expected']): boolean {
  return agreesWithDocs(expected === 'reuse', (conns * 1000) / REQUESTS_PER_CELL)
}

export interface PoolTableOptions {
  proxies: readonly ProxyName[]
  /** Only these variants (default: all of each stack). */
  variants?: readonly string[]
  /** Only these catalog versions (default: all; lib/catalog/version-choice.ts). */
  versions?: VersionChoice
  certs: CertSet
  workDir: string
  log: Logger
}

/**
 * For every proxy, catalog version and variant: start it natively in front of a fresh
 * backend, verify it, send 100 keep-alive HTTPS requests over 2 client connections, and count the
 * connections the backend accepted.
 */
export async function poolTable(o: PoolTableOptions): Promise<PoolRow[]> {
  const releaseLock = await acquireRunLock(o.workDir)
  cleanupStale(o.log)
  const runId = `pool-${process.pid}-${Date.now()}`
  const runtime = new NativeRuntime(runId)
  // The same start-and-verify path as every measured cell; only the body differs.
  const ctx: CellContext = { runtime, runId, runDir: o.workDir, cpus: defaultCpuLayout(), profile: getProfile('smoke'), certs: o.certs }
  const rows: PoolRow[] = []
  try {
    mkdirSync(o.workDir, { recursive: true })
    const cells: CellPlan[] = o.proxies.flatMap((proxy) => {
      const stack = loadStack(proxy)
      // L4 variants forward bytes, not HTTP: nothing for the pool detector's HTTPS requests.
      // default-cert serves a certificate of the proxy's own making, which the detector's client does not trust (the tls series reads it).
      const variants = Object.keys(stack.variants)
        .filter((v) => hasVariant(stack, v))
        .filter((v) => !stack.variants[v]!.l4 && v !== DEFAULT_KEY_VARIANT && (!o.variants || o.variants.includes(v)))
      return chooseVersions(stack, o.versions ?? { kind: 'all' }).flatMap((version) =>
        variants
          .filter((variant) => variantRunsOn(stack, variant, version.version) && (!stack.variants[variant]!.http3 || h3Support(proxy, version).capable))
          .map((variant) => catalogCellPlan(stack, { series: 'pool-table', variant, connections: 2, version })),
      )
    })
    for (const [i, cell] of cells.entries()) {
      o.log.progress(`pool detector ${i + 1}/${cells.length}: ${cell.proxy} ${cell.version} ${cell.variant}`)
      const base = {
        proxy: cell.proxy as ProxyName,
        version: cell.version,
        variant: cell.variant,
        expected: expectsReuse(cell.stack!, cell.variant, cell.version) ? 'reuse' : 'no reuse',
        requests: REQUESTS_PER_CELL,
      } as const
      const failed = (note: string): PoolRow => ({ ...base, conns_per_100: null, ok_responses: 0, proto: '', status: 'failed', note })
      rows.push(
        await withVerifiedStack(cell, `${cell.proxy}-${cell.version}-${cell.variant}`, ctx, { failed, invalid: failed }, async ({ backend, url }) => {
          const before = await backendStats(backend)
          const r = await loadgenRequests({ url, n: REQUESTS_PER_CELL, c: 2, cacert: o.certs.ca, expectBody: 'hello world', cpus: ctx.cpus.generator })
          const after = await backendStats(backend)
          const conns = (connsBetween(before, after) * 100) / r.requests
          const answered = r.ok === r.requests
          return {
            ...base,
            conns_per_100: conns,
            ok_responses: r.ok,
            proto: r.proto,
            status: !answered ? 'failed' : judge(conns, base.expected) ? 'ok' : 'unexpected',
            ...(answered ? {} : { note: `${r.ok}/${r.requests} ok; ${r.error_samples[0] ?? JSON.stringify(r.status)}` }),
          }
        }),
      )
    }
  } finally {
    await runtime.stopAll()
    await releaseLock()
  }
  return rows
}
