import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Measurement } from '../../lib/data/schema.ts'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { appendRow, MEASUREMENTS } from '../../lib/data/tables.ts'
import { ceilingCells, ceilings, HALF_OPEN_FRACTION, openRate, openReference, OPEN_RATES, SEED_OPEN_FRACTION, tlsSeries } from '../../lib/series/tls.ts'
import type { SeriesContext } from '../../lib/series/types.ts'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { measurement } from '../fixtures/rows.ts'

const m = (f: Partial<Measurement>): Measurement => measurement({ series: 'tls-ceiling', variant: 'pool-added', ...f })

test("open-model rates: the seed's fraction and half of HAProxy's valid EC-256 ceiling, in hundreds", () => {
  const c = ceilings([m({ proxy: 'haproxy', rps: 30_000 }), m({ proxy: 'haproxy', rps: 32_000, repeat: 2 }), m({ proxy: 'caddy', rps: 7_340 }), m({ proxy: 'caddy', rps: 100, status: 'invalid' }), m({ proxy: 'nginx', series: 'same', rps: 10 })])
  assert.deepEqual([...c], [['haproxy', 31_000], ['caddy', 7_340]])
  assert.deepEqual(openReference(c), { proxy: 'haproxy', ceiling: 31_000 })
  assert.equal(openRate(c), 2_100) // 6.7% of 31 000, in hundreds: HAProxy's, not the slowest (caddy)
  assert.equal(openRate(c, HALF_OPEN_FRACTION), 15_500)
  // Without HAProxy in the run: the slowest proxy's ceiling.
  assert.deepEqual(openReference(new Map([['caddy', 7_340], ['nginx', 9_000]])), { proxy: 'caddy', ceiling: 7_340 })
  assert.equal(openRate(new Map()), null)
})

test("the seed's fraction is the seed's own figures: 15,000 rps open against HAProxy's 223,000 closed", () => {
  const f = loadLedger().figures
  assert.equal(SEED_OPEN_FRACTION, Number(f.get('s000-open-model-rate')!.value) / Number(f.get('s000-calibration-closed-rps')!.value))
  assert.deepEqual(OPEN_RATES.map((r) => r.series), ['tls-open', 'tls-open-half'])
})

test('tls-open and tls-open-half: both phases plan every proxy at their own rate, ec256 and rsa4096', () => {
  const runDir = mkdtempSync(join(tmpdir(), 'pb-tls-open-'))
  for (const [proxy, rps] of [['haproxy', 9_000], ['caddy', 3_000]] as const) appendRow(runDir, MEASUREMENTS, m({ proxy, rps }))
  const log = memoryLogger()
  const ctx = { runDir, log, proxies: ['haproxy', 'caddy'], seed: 1, connections: 200, profile: { repeats: 1 }, plan: { custom: [] } } as unknown as SeriesContext
  const phases = tlsSeries().phases
  const planned = (name: string) => phases.find((p) => p.name === name)!.tasks(ctx).map((t) => t.label.replace(/ \d+\.[\d.]+ pool-added/, ''))
  assert.deepEqual(planned('tls-open').sort(), ['tls-open caddy ec256 600 rps r1', 'tls-open caddy rsa4096 600 rps r1', 'tls-open haproxy ec256 600 rps r1', 'tls-open haproxy rsa4096 600 rps r1'])
  assert.deepEqual(planned('tls-open-half').sort(), ['tls-open-half caddy ec256 4500 rps r1', 'tls-open-half caddy rsa4096 4500 rps r1', 'tls-open-half haproxy ec256 4500 rps r1', 'tls-open-half haproxy rsa4096 4500 rps r1'])
  assert.match(log.lines.join('\n'), /tls-open: 600 rps = the seed's fraction \(15,000 of 223,000 rps\) 6\.7% of HAProxy's EC-256 closed ceiling, 9000 rps/)
})

test('tls-ceiling: EC-256 for every proxy, RSA-2048 for seed 004 pair; the open-model rate reads EC-256 only', () => {
  const cells = ceilingCells(['haproxy', 'nginx', 'caddy'], 200)
  assert.deepEqual(cells.map((c) => `${c.proxy} ${c.keyType}`), ['haproxy ec256', 'nginx ec256', 'caddy ec256', 'haproxy rsa2048', 'nginx rsa2048'])
  // An RSA-2048 ceiling, however low, never sets the EC-256 open-model rate.
  const c = ceilings([m({ proxy: 'haproxy', rps: 30_000 }), m({ proxy: 'haproxy', key_type: 'rsa2048', rps: 900 })])
  assert.deepEqual([...c], [['haproxy', 30_000]])
})
