import { rawFile, repeatStem } from '../data/raw-files.ts'
import type { Handshake } from '../data/schema.ts'
import { cpuCount } from '../roles/cpus.ts'
import { loadgenArgv, type HandshakeResult } from '../roles/loadgen.ts'
import { withVerifiedStack, type Cell, type CellContext } from './cell.ts'
import { disturbanceColumns } from './disturbance.ts'
import { runGenerator } from './generator.ts'
import { countColumns, handshakeRow, outcomes } from './rows.ts'
import { invalidReasons } from './validity.ts'

const round = (x: number, d = 3) => Number(x.toFixed(d))

/**
 * Handshakes (+ one GET each) for one key type: proxy CPU per handshake. Full ones unless
 * the cell asks the client to resume (the resumption series): then the row's resumed
 * count is the proxy's answer, not a fault.
 */
export async function measureHandshakes(cell: Cell, repeat: number, ctx: CellContext): Promise<Handshake> {
  const filled = handshakeRow(cell, repeat, ctx)
  const resumption = cell.resumption ?? 'none'
  const row = (fields: Partial<Handshake>) => filled({ ...(cell.resumption ? { resumption } : {}), ...fields })
  const name = repeatStem(cell, repeat)
  return withVerifiedStack(cell, name, ctx, outcomes(row), async ({ proxy, url, roles }) => {
    const argv = loadgenArgv('handshake', url, ctx.certs.ca, { c: cell.connections, d: `${ctx.profile.durationS}s`, 'expect-body': 'hello world', resume: resumption })
    const g = await runGenerator<HandshakeResult>(ctx, name, argv, rawFile(ctx.runDir, name, 'handshake.json'), [proxy!], roles, ctx.profile.durationS)
    const r = g.result
    const proxyNs = g.cpuNs.get(proxy!)!
    const reasons = invalidReasons({ generatorRequests: r?.handshakes ?? 0, generatorErrors: r?.errors ?? 0, windowRequests: r?.handshakes ?? 0, generatorCpuShare: g.generatorShare, exited: g.exit })
    if (r && r.resumed > 0 && resumption === 'none') reasons.unshift(`${r.resumed} handshakes were resumed, not full`)
    const perHandshake = r && r.handshakes > 0 ? round(proxyNs / 1e3 / r.handshakes) : null
    return row({
      ...countColumns(g.counts.get(proxy!), r?.handshakes ?? 0, perHandshake),
      handshakes: r?.handshakes ?? 0, resumed: r?.resumed ?? 0, errors: r?.errors ?? 0, rate: r ? round(r.rate, 1) : null, p50_ms: r?.p50_ms ?? null, p99_ms: r?.p99_ms ?? null,
      proxy_cpu_us_per_handshake: perHandshake,
      generator_cpu_share: g.generatorShare, proxy_cpu_share: round(proxyNs / 1e9 / (g.wallS * cpuCount(ctx.cpus.proxy)), 4),
      status: reasons.length ? 'invalid' : 'valid', reason: reasons.join('; '),
      ...disturbanceColumns(g.disturbance),
    })
  })
}
