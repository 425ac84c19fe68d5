import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROXIES } from '../../lib/catalog/stack.ts'
import { usable, type ComponentRow } from '../../lib/setup/component.ts'
import { engineInfo } from '../../lib/setup/docker-engine.ts'
import { ENGINE_COMPONENT } from '../../lib/setup/doctor.ts'
import { exec } from '../../lib/core/exec.ts'

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
  // Each proxy version says whether its binary speaks HTTP/3, and each proxy has a build that does (docs/series/h3.md#which-builds-can).
  for (const proxy of PROXIES) {
    const versions = rows.filter((x) => x.component === proxy)
    for (const v of versions) assert.match(v.h3 ?? '', /^(yes|no: \S.*)$/, `${proxy} ${v.version}`)
    assert.ok(
      versions.some((v) => v.h3 === 'yes'),
      `${proxy}: ${versions.map((v) => `${v.version} ${v.h3}`).join('; ')}`,
    )
  }
  assert.equal(rows.find((x) => x.component === 'haproxy' && x.version === '2.6.12')?.h3, 'no: built without QUIC (haproxy -vv: -QUIC)')
  // Exit 0 exactly when every row is usable (the engine row included).
  assert.equal(r.code, rows.every((x) => usable(x as unknown as ComponentRow)) ? 0 : 1, r.stderr)
})

test('doctor: the running Docker engine is a row; --check starts nothing', async () => {
  const before = await engineInfo()
  const r = await exec('npx', ['zx', 'notebooks/00-setup.mjs', '--check', '--doctor', '--json'], { timeoutMs: 120_000 })
  const row = (JSON.parse(r.stdout) as Record<string, string>[]).find((x) => x.component === ENGINE_COMPONENT)
  assert.ok(row, 'an engine row')
  if (before) {
    assert.equal(row.status, 'ok')
    assert.equal(row.version, before.version)
    assert.equal(
      row.source,
      `dockerd, cgroup v${before.cgroupVersion}${before.cgroupDriver ? ` (${before.cgroupDriver})` : ''}, storage ${before.storageDriver}`,
    )
  } else {
    assert.equal(row.status, 'missing')
    assert.match(row.note!, /^docker engine: no engine answers on \S+; (run: npx zx notebooks\/00-setup\.mjs|start it with|dockerd is not installed)/)
    assert.doesNotMatch(row.note!, /\n/)
    assert.equal(await engineInfo(), null, '--check did not start dockerd')
  }
})

test('doctor with an unknown proxy: one line naming the flag, exit 2', async () => {
  const r = await exec('npx', ['zx', 'notebooks/00-setup.mjs', '--check', '--proxies', 'apache'])
  assert.equal(r.code, 2)
  assert.equal(r.stderr.trim(), 'proxybench: --proxies: unknown proxy "apache". Use a comma-separated list of: haproxy, nginx, envoy, traefik, caddy')
})
