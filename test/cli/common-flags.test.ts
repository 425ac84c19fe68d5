import assert from 'node:assert/strict'
import { test } from 'node:test'
import { COMMON_FLAGS, commonFlags, sharedFlag } from '../../lib/cli/common-flags.ts'

test('a shared flag carries the command default after its meaning, further lines under it', () => {
  assert.deepEqual(sharedFlag('proxies', 'haproxy').help, ['only these proxies, of haproxy,nginx,envoy,traefik,caddy (default haproxy)'])
  assert.deepEqual(sharedFlag('out', { default: 'results/x', more: ['one folder per run'] }).help, [
    'where the output goes (default results/x)',
    'one folder per run',
  ])
  assert.deepEqual(sharedFlag('baseline').help, COMMON_FLAGS.baseline.help)
  assert.deepEqual(sharedFlag('json', { more: ['the rows'] }).help, [...COMMON_FLAGS.json.help, 'the rows'])
  assert.deepEqual(Object.keys(commonFlags({ profile: 'quick', 'no-pdf': undefined })), ['profile', 'no-pdf'])
})
