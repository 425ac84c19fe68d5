import assert from 'node:assert/strict'
import { test } from 'node:test'
import { medianOfGiven, pairedRatio, rowCounts } from '../../lib/analysis/cell-figures.ts'
import { h2Summary, resumptionSummary } from '../../lib/analysis/protocols.ts'
import type { Handshake, Measurement } from '../../lib/data/schema.ts'
import { handshake, measurement } from '../fixtures/rows.ts'

const nginx = { proxy: 'nginx', version: '1.31.3', variant: 'h2' }
const requests = (f: Partial<Measurement>, cpus: number[]) => cpus.map((c, i) => measurement({ ...nginx, ...f, repeat: i + 1, proxy_cpu_us_per_req: c }))
const handshakes = (f: Partial<Handshake>, cpus: number[]) =>
  cpus.map((c, i) => handshake({ ...nginx, variant: 'article', series: 'resumption', ...f, repeat: i + 1, proxy_cpu_us_per_handshake: c }))

test('h2: the HTTP/1.1 cell first, then each stream count over it, invalid rows counted with their reason', () => {
  const cells = h2Summary([
    ...requests({ series: 'h2', streams: 10 }, [30, 30, 30]),
    ...requests({ series: 'h2-h1', streams: null }, [60, 60, 60]),
    measurement({ ...nginx, series: 'h2', streams: 10, repeat: 4, proxy_cpu_us_per_req: 900, status: 'invalid', reason: 'errors 3%' }),
  ])
  assert.deepEqual(
    cells.map((c) => [c.protocol, c.streams, c.cpu?.value, c.vsH1?.value ?? null, c.valid, c.rows, c.reasons]),
    [
      ['HTTP/1.1', null, 60, null, 3, 3, []],
      ['h2', 10, 30, 0.5, 3, 4, ['invalid: errors 3%']],
    ],
  )
})

test('resumption: full handshakes first, each mode over them', () => {
  const cells = resumptionSummary([...handshakes({ resumption: 'tickets' }, [50, 50]), ...handshakes({ resumption: 'none' }, [200, 200])])
  assert.deepEqual(
    cells.map((c) => [c.resumption, c.cpu?.value, c.vsFull?.value ?? null]),
    [
      ['none', 200, null],
      ['tickets', 50, 0.25],
    ],
  )
})

test('the shared cell figures: a median of the values given, a ratio only of two measured cells', () => {
  assert.equal(medianOfGiven([3, null, 1, undefined, 2]), 2)
  assert.equal(medianOfGiven([null, undefined]), null)
  assert.equal(pairedRatio(new Map([[1, 2]]), new Map()), null)
  assert.deepEqual(rowCounts([{ status: 'valid', reason: '' }, ...[1, 2].map(() => ({ status: 'failed', reason: 'no answer' }))]), {
    valid: 1,
    rows: 3,
    reasons: ['failed: no answer'],
  })
})
