import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bisectRunFlags, parseBisectMetric } from '../../lib/cli/bisect-options.ts'
import { UserError } from '../../lib/core/errors.ts'

test('--metric: cpu or conns for the bisect series; anything else, or no bisect, is one line', () => {
  assert.equal(parseBisectMetric({}, ['bisect']), undefined)
  assert.equal(parseBisectMetric({ metric: 'conns' }, ['bisect']), 'conns')
  assert.throws(
    () => parseBisectMetric({ metric: 'rps' }, ['bisect']),
    (e: Error) => e instanceof UserError && e.message === '--metric rps: unknown metric. Use one of: cpu, conns',
  )
  assert.throws(() => parseBisectMetric({ metric: 'cpu' }, ['pooling']), /--metric: only the bisect series uses it\. Add --series bisect/)
})

test("bisect.mjs flags: --proxy and --variant become the run's --proxies and --variants; one proxy, and it is required", () => {
  assert.deepEqual(bisectRunFlags({ proxy: 'nginx', variant: 'article,upstream-default', profile: 'quick' }), {
    proxies: 'nginx',
    variants: 'article,upstream-default',
    profile: 'quick',
  })
  assert.deepEqual(bisectRunFlags({ proxy: 'haproxy' }), { proxies: 'haproxy' })
  assert.throws(() => bisectRunFlags({}), /--proxy is missing/)
  assert.throws(() => bisectRunFlags({ proxy: 'nginx,haproxy' }), /one proxy per bisect/)
})
