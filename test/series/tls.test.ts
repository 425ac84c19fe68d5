import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Measurement } from '../../lib/data/schema.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { appendRow, MEASUREMENTS } from '../../lib/data/tables.ts'
import { ceilingCells, tlsSeries } from '../../lib/series/tls.ts'
import type { SeriesContext } from '../../lib/series/types.ts'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { measurement } from '../fixtures/rows.ts'

const m = (f: Partial<Measurement>): Measurement => measurement({ series: 'tls-ceiling', variant: 'pool-added', ...f })

test('tls-open and tls-open-half: both phases plan every proxy at their own rate, ec256 and rsa4096', () => {
  const runDir = mkdtempSync(join(tmpdir(), 'pb-tls-open-'))
  for (const [proxy, rps] of [
    ['haproxy', 9_000],
    ['caddy', 3_000],
  ] as const)
    appendRow(runDir, MEASUREMENTS, m({ proxy, rps }))
  const log = memoryLogger()
  const ctx = {
    runDir,
    log,
    proxies: ['haproxy', 'caddy'],
    seed: 1,
    connections: 200,
    profile: { repeats: 1 },
    plan: { custom: [] },
  } as unknown as SeriesContext
  const phases = tlsSeries().phases
  const planned = (name: string) =>
    phases
      .find((p) => p.name === name)!
      .tasks(ctx)
      .map((t) => t.label.replace(/ \d+\.[\d.]+ pool-added/, ''))
  assert.deepEqual(planned('tls-open').sort(), [
    'tls-open caddy ec256 600 rps r1',
    'tls-open caddy rsa4096 600 rps r1',
    'tls-open haproxy ec256 600 rps r1',
    'tls-open haproxy rsa4096 600 rps r1',
  ])
  assert.deepEqual(planned('tls-open-half').sort(), [
    'tls-open-half caddy ec256 4500 rps r1',
    'tls-open-half caddy rsa4096 4500 rps r1',
    'tls-open-half haproxy ec256 4500 rps r1',
    'tls-open-half haproxy rsa4096 4500 rps r1',
  ])
  assert.match(log.lines.join('\n'), /tls-open: 600 rps = the seed's fraction \(15,000 of 223,000 rps\) 6\.7% of HAProxy's EC-256 closed ceiling, 9000 rps/)
})

test('tls-ceiling: EC-256 for every proxy, RSA-2048 for seed 004 pair', () => {
  const cells = ceilingCells(['haproxy', 'nginx', 'caddy'], 200)
  assert.deepEqual(
    cells.map((c) => `${c.proxy} ${c.keyType}`),
    ['haproxy ec256', 'nginx ec256', 'caddy ec256', 'haproxy rsa2048', 'nginx rsa2048'],
  )
})
