import { compareVersions, loadStack, newestVersion, type ProxyName, type StackVersion } from '../catalog/stack.ts'
import { catalogCellPlan, type CellPlan } from '../measure/cell.ts'
import { KEY_TYPES } from '../setup/certs.ts'
import { h3Support, type H3Support } from '../setup/h3-support.ts'
import { median } from '../core/stats.ts'
import type { Measurement } from '../data/schema.ts'
import { SERIES_ROWS } from '../data/series.ts'
import { MEASUREMENTS, readTable } from '../data/tables.ts'
import { closedTasks, handshakeTasks, openTasksAt } from './tasks.ts'
import { POOLING_OPEN_FRACTION, rateAt } from './open-rate.ts'
import { HANDSHAKE_WORKERS } from './tls.ts'
import type { Series, SeriesContext } from './types.ts'

/** Streams per QUIC connection (loadgen h3 -m), as the h2 series: 1 like HTTP/1.1, 10 and 100 multiplexed. */
export const H3_STREAMS = [1, 10, 100] as const
/** quick and smoke: the like-for-like m=1 only. */
export const QUICK_H3_STREAMS = [1] as const

/** The catalog version an h3 cell of a proxy measures: the newest whose build speaks HTTP/3. */
export function h3Version(versions: readonly StackVersion[], support: (v: StackVersion) => H3Support): StackVersion | null {
  return [...versions].sort((a, b) => compareVersions(b.version, a.version)).find((v) => support(v).capable) ?? null
}

/** A cell that becomes a failed row saying why it is not measured, nothing started. */
const notMeasured = (proxy: ProxyName, version: string, connections: number, reason: string): CellPlan => ({
  series: 'h3',
  proxy,
  version,
  variant: 'h3',
  keyType: 'ec256',
  connections,
  protocol: 'h3',
  streams: 1,
  unrunnable: `not measured: ${reason}`,
})

/**
 * HTTP/3 from the client (docs/series/h3.md): per proxy, its `h3` variant (TLS over TCP and
 * QUIC on the same port; the backend side stays HTTP/1.1) on the newest version whose build
 * speaks HTTP/3, measured with loadgen h3 at each stream count (series `h3`) and with wrk over
 * HTTP/1.1 through the very same config (series `h3-h1`); the direct row runs loadgen h3
 * against the backend's own HTTP/3 listener. A newest version that cannot, or a proxy without
 * a capable build, is a `not measured` row with the probe's reason.
 */
export function h3Cells(
  proxies: readonly ProxyName[],
  connections: number,
  profile: string,
  backendVersion: string,
  support: (p: ProxyName, v: StackVersion) => H3Support = h3Support,
): CellPlan[] {
  const streams = profile === 'smoke' || profile === 'quick' ? QUICK_H3_STREAMS : H3_STREAMS
  const h3 = (c: CellPlan, m: number): CellPlan => ({ ...c, protocol: 'h3', streams: m })
  const direct: CellPlan = { series: 'h3', proxy: 'direct', version: backendVersion, variant: 'direct', keyType: 'ec256', connections }
  return [
    ...streams.map((m) => h3(direct, m)),
    ...proxies.flatMap((p) => {
      const stack = loadStack(p)
      const newest = newestVersion(stack)
      if (!stack.variants.h3) return [notMeasured(p, newest.version, connections, `no h3 template for ${p} (stacks/${p}/templates/h3.${stack.config_ext})`)]
      const v = h3Version(stack.versions, (x) => support(p, x))
      const newestSupport = support(p, newest)
      const refused = newestSupport.capable ? [] : [notMeasured(p, newest.version, connections, `${p} ${newest.version}: ${newestSupport.reason}`)]
      if (!v) return refused
      return [
        ...refused,
        catalogCellPlan(stack, { series: 'h3-h1', variant: 'h3', connections, version: v }),
        ...streams.map((m) => h3(catalogCellPlan(stack, { series: 'h3', variant: 'h3', connections, version: v }), m)),
      ]
    }),
  ]
}

/** QUIC handshakes (loadgen h3-handshake) and, through the same h3 config, TCP+TLS ones (loadgen handshake): the rows of the handshake table. */
export const [H3_HANDSHAKE_SERIES, H3_HANDSHAKE_TCP_SERIES] = SERIES_ROWS.h3.handshakes

type Resumption = NonNullable<CellPlan['resumption']>

/**
 * The h3 handshake cells (docs/series/h3.md#handshakes): per proxy with a capable build (the
 * version its h3 cells run), per key type of the TLS series, a new connection per request over
 * QUIC (series h3-handshake) and over TCP+TLS through the very same config (h3-handshake-tcp),
 * each full (`none`) and resumed by a TLS 1.3 ticket (`tickets`); over QUIC also `0rtt` where
 * the template accepts early data (stack.yaml `early_data`). quick and smoke resume on EC P-256
 * only: a resumed handshake signs nothing, so the key type is the full handshake's question.
 * A proxy without a capable build has no cell here: the h3 phase's not-measured row says why.
 */
export function h3HandshakeCells(
  proxies: readonly ProxyName[],
  profile: string,
  support: (p: ProxyName, v: StackVersion) => H3Support = h3Support,
): CellPlan[] {
  const quick = profile === 'smoke' || profile === 'quick'
  return proxies.flatMap((p) => {
    const stack = loadStack(p)
    const h3 = stack.variants.h3
    const v = h3 ? h3Version(stack.versions, (x) => support(p, x)) : null
    if (!h3 || !v) return []
    return KEY_TYPES.flatMap((keyType) => {
      const cell = (series: string, resumption: Resumption): CellPlan => ({
        ...catalogCellPlan(stack, { series, variant: 'h3', keyType, connections: HANDSHAKE_WORKERS, version: v }),
        resumption,
        ...(series === H3_HANDSHAKE_SERIES ? { protocol: 'h3' as const } : {}),
      })
      const resumed = !quick || keyType === 'ec256'
      return [
        cell(H3_HANDSHAKE_SERIES, 'none'),
        cell(H3_HANDSHAKE_TCP_SERIES, 'none'),
        ...(resumed ? [cell(H3_HANDSHAKE_SERIES, 'tickets'), cell(H3_HANDSHAKE_TCP_SERIES, 'tickets')] : []),
        ...(resumed && h3.early_data ? [cell(H3_HANDSHAKE_SERIES, '0rtt')] : []),
      ]
    })
  })
}

/** The open model over h3 (loadgen h3 -rate) and over HTTP/1.1 (loadgen open) through the same h3 config, at one rate per proxy. */
export const [, , H3_OPEN_SERIES, H3_OPEN_H1_SERIES] = SERIES_ROWS.h3.measurements
/** Each proxy's open-model rate: this fraction of its own h3 closed-model rate at one stream per connection (pooling's same-own-rate fraction). */
export const H3_OPEN_FRACTION = POOLING_OPEN_FRACTION

/**
 * The open-model cells (docs/series/h3.md#open-model): per proxy whose h3 cell at one stream
 * per connection has valid closed-model rows, its h3 config at H3_OPEN_FRACTION of their
 * median rps (in hundreds) over h3 (series h3-open, a virtual user per QUIC connection) and
 * over HTTP/1.1 through the same config (h3-open-h1), both capped at the cells' connections.
 */
export function h3OpenCombos(closedCells: readonly CellPlan[], rows: readonly Measurement[], fraction = H3_OPEN_FRACTION): { cell: CellPlan; rate: number }[] {
  return closedCells
    .filter((c) => c.series === 'h3' && c.proxy !== 'direct' && !c.unrunnable && c.streams === 1)
    .flatMap((c) => {
      const rps = rows
        .filter(
          (r) =>
            r.series === 'h3' && r.model === 'closed' && r.proxy === c.proxy && r.version === c.version && r.streams === 1 && r.status === 'valid' && r.rps,
        )
        .map((r) => r.rps!)
      if (rps.length === 0) return []
      const rate = rateAt(fraction, median(rps))
      // One request in flight per virtual user: no streams count in an open-model cell.
      const open: CellPlan = { ...c, streams: undefined }
      return [
        { cell: { ...open, series: H3_OPEN_SERIES, protocol: 'h3' }, rate },
        { cell: { ...open, series: H3_OPEN_H1_SERIES, protocol: undefined }, rate },
      ]
    })
}

export function h3Series(): Series {
  const closed = (ctx: SeriesContext) => h3Cells(ctx.proxies, ctx.connections, ctx.profile.name, ctx.backendVersion)
  return {
    name: 'h3',
    phases: [
      { name: 'h3', tasks: (ctx) => closedTasks(closed(ctx), ctx) },
      {
        name: H3_OPEN_SERIES,
        tasks: (ctx) => {
          // quick and smoke keep their time: the open model over h3 runs in standard and full.
          if (ctx.profile.name === 'quick' || ctx.profile.name === 'smoke') return []
          const combos = h3OpenCombos(closed(ctx), readTable(ctx.runDir, MEASUREMENTS))
          if (combos.length === 0) ctx.log.warn(`${H3_OPEN_SERIES}: no h3 cell has valid closed-model rows to take a rate from: phase skipped`)
          else
            ctx.log.info(
              `${H3_OPEN_SERIES}: each proxy at ${H3_OPEN_FRACTION * 100}% of its own h3 closed rate (1 stream/conn): ${combos
                .filter((x) => x.cell.series === H3_OPEN_SERIES)
                .map((x) => `${x.cell.proxy} ${x.rate} rps`)
                .join(', ')}; VUs up to ${ctx.connections}`,
            )
          return openTasksAt(combos, ctx)
        },
      },
      // QUIC and TCP+TLS cells in one phase: their repeats interleave, so the QUIC/TCP ratio pairs rounds.
      { name: H3_HANDSHAKE_SERIES, tasks: (ctx) => handshakeTasks(h3HandshakeCells(ctx.proxies, ctx.profile.name), ctx) },
    ],
  }
}
