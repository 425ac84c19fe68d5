import assert from 'node:assert/strict'
import { test } from 'node:test'
import { likeRepetition } from '../../lib/analysis/like-repeat.ts'

const row = (series: string, proxy: string, version: string) => ({ series, proxy, version })
const tables = (measurements: ReturnType<typeof row>[], handshakes: ReturnType<typeof row>[] = []) => ({ measurements, handshakes, websocket: [] })

test('what a --like run repeated, from the rows: same versions per series, the differences, the series not run', () => {
  const base = tables(
    [
      row('pool-added', 'haproxy', '2.8.25'),
      row('pool-added', 'nginx', '1.31.3'),
      row('direct', 'direct', 'abc'),
      row('versions', 'haproxy', '2.6.12'),
      row('versions', 'haproxy', '2.8.25'),
    ],
    [row('tls-handshake', 'haproxy', '2.8.25')],
  )
  const same = likeRepetition(base, base)
  assert.deepEqual(same, { same: ['pool-added', 'versions', 'tls-handshake'], differences: [], missing: [] })
  // The run's pooling cells ran today's newest HAProxy, the versions series lost one, TLS did not run; the direct row's hash is no version.
  const run = tables([
    row('pool-added', 'haproxy', '3.4.7'),
    row('pool-added', 'nginx', '1.31.3'),
    row('direct', 'direct', 'def'),
    row('versions', 'haproxy', '2.8.25'),
  ])
  assert.deepEqual(likeRepetition(base, run), {
    same: [],
    differences: ['pool-added: haproxy 2.8.25 in the baseline, 3.4.7 in this run', 'versions: haproxy 2.6.12, 2.8.25 in the baseline, 2.8.25 in this run'],
    missing: ['tls-handshake'],
  })
  assert.deepEqual(likeRepetition(base, tables([row('pool-added', 'haproxy', '2.8.25')])).differences, [
    'pool-added: nginx 1.31.3 in the baseline, not run in this run',
  ])
})
