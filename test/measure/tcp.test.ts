import assert from 'node:assert/strict'
import { test } from 'node:test'
import { slowConnectReason } from '../../lib/measure/tcp.ts'

test('a window where 1% of the connects waited for a SYN retransmit is invalid, with the count', () => {
  assert.equal(slowConnectReason({ slow_connects: 0, conns: 20_000, errors: 0 }), null)
  assert.equal(slowConnectReason({ slow_connects: 9, conns: 1000, errors: 0 }), null)
  assert.equal(
    slowConnectReason({ slow_connects: 12, conns: 1000, errors: 3 }),
    '12 of 1003 connects took ≥ 1 s (SYN retransmits: SYNs dropped, e.g. a full conntrack table)',
  )
  assert.equal(slowConnectReason({ slow_connects: 0, conns: 0, errors: 0 }), null)
})
