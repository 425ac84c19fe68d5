import assert from 'node:assert/strict'
import { join, resolve } from 'node:path'
import { test } from 'node:test'
import { runAllArgv } from '../../lib/cli/run-all-argv.ts'
import { repoRoot } from '../../lib/core/paths.ts'

test("a bench's run of run-all: no report, its seed and folder, the flags given, undefined ones left out, resumed when asked", () => {
  assert.deepEqual(
    runAllArgv({
      profile: 'quick',
      series: 'pooling',
      seed: 3,
      out: '/r/a',
      flags: { proxies: 'nginx', runtime: undefined },
      extra: ['--like', 'b'],
      resume: true,
    }),
    [
      'zx',
      join(repoRoot, 'notebooks/run-all.mjs'),
      ...['--profile', 'quick', '--series', 'pooling', '--seed', '3', '--out', '/r/a', '--no-report'],
      ...['--proxies', 'nginx', '--like', 'b', '--resume'],
    ],
  )
  assert.equal(runAllArgv({ profile: 'smoke', series: 'tls', seed: '1', out: '/r/b', root: '/copy' })[1], '/copy/notebooks/run-all.mjs')
  // A copy named relative to the caller's folder runs by its full path: the run starts there, where the other relative paths were given.
  assert.equal(
    runAllArgv({ profile: 'smoke', series: 'tls', seed: '1', out: 'r/b', root: 'results/x/planted-checkout' })[1],
    resolve('results/x/planted-checkout/notebooks/run-all.mjs'),
  )
})
