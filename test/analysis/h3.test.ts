import assert from 'node:assert/strict'
import { test } from 'node:test'
import { h3HandshakeSummary, h3OpenSummary, h3Summary } from '../../lib/analysis/h3.ts'
import type { Handshake, Measurement } from '../../lib/data/schema.ts'
import { handshake, measurement } from '../fixtures/rows.ts'

const rows = (f: Partial<Measurement>, cpus: number[]) => cpus.map((c, i) => measurement({ ...f, repeat: i + 1, proxy_cpu_us_per_req: c }))

test('h3 costs: h3 beside the same config over HTTP/1.1 and the h2 cell of the same version and streams', () => {
  const caddy = { proxy: 'caddy', version: '2.11.7', variant: 'h3' }
  const s = h3Summary([
    ...rows({ ...caddy, series: 'h3', streams: 1 }, [90, 100, 110]),
    ...rows({ ...caddy, series: 'h3-h1', streams: null }, [45, 50, 55]),
    ...rows({ ...caddy, series: 'h2', variant: 'h2', streams: 1 }, [60, 60, 60]),
    // Another version's h2 cell is not this one's reference.
    ...rows({ ...caddy, version: '2.6.2', series: 'h2', variant: 'h2', streams: 1 }, [1, 1, 1]),
    ...rows({ proxy: 'direct', version: 'b1', variant: 'direct', series: 'h3', streams: 1, p50_ms: 0.5 }, [0, 0]).map((r) => ({
      ...r,
      proxy_cpu_us_per_req: null,
    })),
    measurement({
      series: 'h3',
      proxy: 'nginx',
      version: '1.31.3',
      variant: 'h3',
      streams: 1,
      status: 'failed',
      reason: 'not measured: nginx 1.31.3: built without --with-http_v3_module (nginx -V)',
    }),
  ])
  assert.equal(s.costs.length, 1)
  const c = s.costs[0]!
  assert.deepEqual([c.proxy, c.streams, c.h3?.value, c.h1?.value, c.h2?.value], ['caddy', 1, 100, 50, 60])
  assert.ok(c.h3VsH1 && c.h3VsH1.lo > 1, JSON.stringify(c.h3VsH1))
  assert.equal(c.h3VsH2?.value, 100 / 60)
  assert.deepEqual(
    s.direct.map((d) => [d.streams, d.p50_ms, d.valid]),
    [[1, 0.5, 2]],
  )
  assert.deepEqual(s.notMeasured, [{ proxy: 'nginx', version: '1.31.3', reason: 'nginx 1.31.3: built without --with-http_v3_module (nginx -V)' }])
})

test('an invalid h3 row is counted with its reason, not used', () => {
  const s = h3Summary([
    ...rows({ proxy: 'envoy', version: '1.40.0', variant: 'h3', series: 'h3', streams: 1 }, [80]),
    measurement({
      proxy: 'envoy',
      version: '1.40.0',
      variant: 'h3',
      series: 'h3',
      streams: 1,
      repeat: 2,
      proxy_cpu_us_per_req: 900,
      status: 'invalid',
      reason: 'verification failed: no QUIC connection with ALPN h3 (dial: timeout)',
    }),
  ])
  assert.equal(s.costs[0]!.h3?.value, 80)
  assert.deepEqual([s.costs[0]!.valid, s.costs[0]!.rows], [1, 2])
  assert.deepEqual(s.costs[0]!.reasons, ['invalid: verification failed: no QUIC connection with ALPN h3 (dial: timeout)'])
  assert.equal(s.costs[0]!.h3VsH1, null)
})

const hs = (f: Partial<Handshake>, cpus: number[]) => cpus.map((c, i) => handshake({ ...f, repeat: i + 1, proxy_cpu_us_per_handshake: c }))

test('h3 handshakes: a QUIC row beside the TCP+TLS row of the same proxy, version and key type, full and resumed', () => {
  const caddy = { proxy: 'caddy', version: '2.11.7', variant: 'h3' }
  const rows = h3HandshakeSummary([
    ...hs({ ...caddy, series: 'h3-handshake', resumption: 'none', udp_datagrams_per_req: 11 }, [900, 1000, 1100]),
    ...hs({ ...caddy, series: 'h3-handshake', resumption: 'tickets' }, [300, 300, 300]),
    ...hs({ ...caddy, series: 'h3-handshake', resumption: '0rtt', early_data: 90 }, [280, 280, 280]),
    ...hs({ ...caddy, series: 'h3-handshake-tcp', resumption: 'none' }, [500, 500, 500]),
    ...hs({ ...caddy, series: 'h3-handshake-tcp', resumption: 'tickets' }, [200, 200, 200]),
    ...hs({ ...caddy, series: 'h3-handshake', resumption: 'none', key_type: 'rsa4096' }, [4000]),
    // The tls series' full handshakes are not this table's reference.
    ...hs({ ...caddy, series: 'tls-handshake', variant: 'pool-added' }, [1, 1, 1]),
    handshake({
      ...caddy,
      series: 'h3-handshake-tcp',
      resumption: 'none',
      key_type: 'rsa4096',
      status: 'invalid',
      reason: 'verification failed: no QUIC connection with ALPN h3 (x)',
    }),
  ])
  assert.deepEqual(
    rows.map((r) => `${r.proxy} ${r.key_type} ${r.transport}`),
    ['caddy ec256 QUIC', 'caddy ec256 TCP+TLS', 'caddy rsa4096 QUIC', 'caddy rsa4096 TCP+TLS'],
  )
  const [quic, tcp, rsaQuic, rsaTcp] = rows
  assert.deepEqual([quic!.full?.value, quic!.resumed?.value, quic!.early?.value, quic!.datagrams], [1000, 300, 280, 11])
  assert.equal(quic!.fullVsTcp?.value, 2)
  assert.ok(quic!.fullVsTcp!.lo > 1, JSON.stringify(quic!.fullVsTcp))
  assert.equal(quic!.resumedVsTcp?.value, 1.5)
  assert.deepEqual([tcp!.full?.value, tcp!.resumed?.value, tcp!.fullVsTcp, tcp!.early], [500, 200, null, null])
  // No valid TCP+TLS figure: no ratio, and the reason is shown.
  assert.equal(rsaQuic!.fullVsTcp, null)
  assert.deepEqual([rsaTcp!.valid, rsaTcp!.rows, rsaTcp!.reasons], [0, 1, ['invalid: verification failed: no QUIC connection with ALPN h3 (x)']])
})

test('h3 costs carry the UDP datagrams per request of the valid repeats', () => {
  const s = h3Summary([
    ...rows({ proxy: 'envoy', version: '1.40.0', variant: 'h3', series: 'h3', streams: 1 }, [80, 82]).map((r, i) => ({ ...r, udp_datagrams_per_req: 3 + i })),
    measurement({
      proxy: 'envoy',
      version: '1.40.0',
      variant: 'h3',
      series: 'h3',
      streams: 1,
      repeat: 3,
      udp_datagrams_per_req: 40,
      status: 'invalid',
      reason: 'x',
    }),
  ])
  assert.equal(s.costs[0]!.datagrams_per_req, 3.5)
})

test('h3 open model: the h3 cell beside the HTTP/1.1 cell of the same proxy and rate, paired', () => {
  const open = { proxy: 'traefik', version: '3.7.15', variant: 'h3', model: 'open' as const, target_rps: 2100 }
  const cells = h3OpenSummary([
    ...rows({ ...open, series: 'h3-open', udp_datagrams_per_req: 4, max_vus: 30 }, [300, 320, 340]),
    ...rows({ ...open, series: 'h3-open-h1', max_vus: 12 }, [100, 100, 100]),
    // A closed h3 row is not the open table's.
    ...rows({ proxy: 'traefik', version: '3.7.15', variant: 'h3', series: 'h3', streams: 1 }, [1, 1]),
  ])
  assert.equal(cells.length, 1)
  const c = cells[0]!
  assert.deepEqual(
    [c.target_rps, c.h3?.value, c.h1?.value, c.h3VsH1?.value, c.datagrams_per_req, c.h3_max_vus, c.h1_max_vus, c.valid, c.rows],
    [2100, 320, 100, 3.2, 4, 30, 12, 6, 6],
  )
  assert.ok(c.h3VsH1!.lo > 1)
})
