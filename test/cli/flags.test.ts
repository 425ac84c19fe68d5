import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseProxyList } from '../../lib/catalog/stack.ts'
import { parseFlags } from '../../lib/cli/flags.ts'

test('an unknown flag is one line naming it and --help', () => {
  assert.throws(() => parseFlags(['--bogus'], { json: { type: 'boolean' } }, 'help', 'notebooks/x.mjs'), (e: Error) => e.message === "notebooks/x.mjs: Unknown option '--bogus'. See: npx zx notebooks/x.mjs --help")
})

test('known flags parse', () => {
  assert.deepEqual(parseFlags(['--json', '--proxies', 'nginx'], { json: { type: 'boolean' }, proxies: { type: 'string' } }, 'help', 'x'), { json: true, proxies: 'nginx', _: [] })
})

test('positional arguments only where a notebook takes them, and no more than it takes', () => {
  assert.throws(() => parseFlags(['results/x'], {}, 'help', 'x'), /x: Unexpected argument 'results\/x'/)
  assert.deepEqual(parseFlags(['results/x', '--id', 'b'], { id: { type: 'string' } }, 'help', 'x', { positionals: 1 }), { id: 'b', _: ['results/x'] })
  assert.throws(() => parseFlags(['a', 'b'], {}, 'help', 'x', { positionals: 1 }), (e: Error) => e.message === "x: unexpected argument 'b'. See: npx zx x --help")
})

test('an unknown proxy name is one line naming the flag and the valid names', () => {
  assert.deepEqual(parseProxyList('nginx, caddy'), ['nginx', 'caddy'])
  assert.throws(() => parseProxyList('nginx,apache'), (e: Error) => e.message === '--proxies: unknown proxy "apache". Use a comma-separated list of: haproxy, nginx, envoy, traefik, caddy')
})

test('the run summary counts invalid rows by the kind of their reason', async () => {
  const { reasonKinds } = await import('../../lib/cli/run-notebook.ts')
  const rows = ['errors 87.6% >= 1%', 'errors 2.3% >= 1%', 'did not start: stacks/x.cfg:3: unknown', 'generator saturated (94% of its cpuset)'].map((reason) => ({ reason }))
  assert.equal(reasonKinds(rows), 'errors × 2, did not start × 1, generator saturated × 1')
})
