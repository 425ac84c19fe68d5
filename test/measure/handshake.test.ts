import assert from 'node:assert/strict'
import { test } from 'node:test'
import { quicHandshakeIssues } from '../../lib/measure/handshake.ts'

test('a QUIC handshake row is invalid over another protocol, or as 0-RTT when the proxy accepted no early data', () => {
  const ok = { handshakes: 100, resumed: 96, alpn: 'h3', early_data: 96 }
  assert.deepEqual(quicHandshakeIssues(ok, '0rtt'), [])
  assert.deepEqual(quicHandshakeIssues({ ...ok, early_data: 0 }, 'tickets'), [], 'tickets: no early data asked for')
  assert.deepEqual(quicHandshakeIssues({ ...ok, early_data: 0 }, '0rtt'), ['0-RTT offered on 96 resumed connections, the proxy accepted it on none'])
  // No resumed connection: no ticket to send early data with; the resumed count is the proxy's answer.
  assert.deepEqual(quicHandshakeIssues({ ...ok, resumed: 0, early_data: 0 }, '0rtt'), [])
  assert.deepEqual(quicHandshakeIssues({ ...ok, alpn: 'h3-29' }, 'none'), ['ALPN h3-29, expected h3'])
  assert.deepEqual(quicHandshakeIssues({ handshakes: 0, resumed: 0, alpn: '', early_data: 0 }, 'none'), [], 'nothing handshook: the generic reasons say so')
})
