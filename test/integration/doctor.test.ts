import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROXIES } from '../../lib/catalog.ts'
import { exec } from '../../lib/exec.ts'

// npm test runs setup as pretest, so here every component must already be present.
test('doctor --check --json: an array of rows, every proxy with at least two usable versions', async () => {
  const r = await exec('npx', ['zx', 'notebooks/00-setup.mjs', '--check', '--json'], { timeoutMs: 120_000 })
  const rows = JSON.parse(r.stdout) as Record<string, string>[]
  for (const row of rows) assert.deepEqual(Object.keys(row).slice(0, 6), ['component', 'version', 'source', 'path', 'sha256', 'status'])
  for (const proxy of PROXIES) {
    const usable = rows.filter((x) => x.component === proxy && ['ok', 'changed'].includes(x.status!))
    assert.ok(usable.length >= 2, `${proxy}: ${JSON.stringify(rows.filter((x) => x.component === proxy))}`)
  }
  for (const name of ['backend', 'loadgen', 'wrk', 'openssl']) assert.equal(rows.find((x) => x.component === name)?.status, 'ok', name)
  assert.equal(r.code, 0, r.stderr)
})

test('doctor with an unknown proxy: one line naming the flag, exit 2', async () => {
  const r = await exec('npx', ['zx', 'notebooks/00-setup.mjs', '--check', '--proxies', 'apache'])
  assert.equal(r.code, 2)
  assert.equal(r.stderr.trim(), 'proxybench: --proxies: unknown proxy "apache". Use a comma-separated list of: haproxy, nginx, envoy, traefik, caddy')
})
