import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HANDSHAKES } from '../../lib/data/tables.ts'
import { resumptionCells } from '../../lib/series/resumption.ts'

const names = (cells: ReturnType<typeof resumptionCells>) => cells.map((c) => `${c.proxy} ${c.variant} ${c.resumption}`)

test('resumption: quick measures full and TLS 1.3 ticket handshakes on each default config', () => {
  assert.deepEqual(names(resumptionCells(['haproxy', 'nginx'], 'quick')), [
    'haproxy pool-added none',
    'haproxy pool-added tickets',
    'nginx pool-added none',
    'nginx pool-added tickets',
  ])
})

test('resumption: standard adds TLS 1.2 tickets and the session-cache variant where a proxy has one', () => {
  const cells = names(resumptionCells(['nginx', 'caddy'], 'standard'))
  assert.deepEqual(cells, [
    'nginx pool-added none',
    'nginx pool-added tickets',
    'nginx pool-added tickets-tls12',
    'nginx session-cache none',
    'nginx session-cache tickets',
    'nginx session-cache tickets-tls12',
    'caddy pool-added none',
    'caddy pool-added tickets',
    'caddy pool-added tickets-tls12',
  ])
})

test('handshakes: the resumption mode is part of the cell, and rows written before the column keep their key', () => {
  const row = { series: 'tls-handshake', proxy: 'haproxy', version: '2.8.25', variant: 'pool-added', key_type: 'ec256', connections: 4, repeat: 1 }
  assert.notEqual(HANDSHAKES.key({ ...row, resumption: 'none' } as never), HANDSHAKES.key({ ...row, resumption: 'tickets' } as never))
  assert.equal(HANDSHAKES.key(row as never), 'tls-handshake|haproxy|2.8.25|pool-added|ec256|4||1')
})
