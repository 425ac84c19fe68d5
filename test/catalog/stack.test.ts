import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { compareVersions, expectsReuse, loadStack, PROXIES, stackSchema, templateVariants, variantRunsOn } from '../../lib/catalog/stack.ts'
import { readYamlFile } from '../../lib/core/yaml-file.ts'

const REQUIRED_VARIANTS: Record<string, string[]> = {
  haproxy: ['article', 'pool-added', 'pool-removed', 'ws', 'reuse-never', 'server-close', 'httpclose'],
  nginx: ['article', 'pool-added', 'pool-removed', 'ws', 'literal', 'upstream-default', 'upstream-keepalive', 'upstream-keepalive-local'],
  envoy: ['article', 'pool-added', 'pool-removed', 'ws', 'ws-raised'],
  traefik: ['article', 'pool-added', 'pool-removed', 'ws'],
  caddy: ['article', 'pool-added', 'pool-removed', 'ws'],
}

for (const proxy of PROXIES) {
  test(`${proxy}: stack.yaml is valid, lists every template and at least two versions`, () => {
    const stack = loadStack(proxy)
    assert.equal(stack.proxy, proxy)
    assert.deepEqual(Object.keys(stack.variants).sort(), templateVariants(proxy))
    for (const v of REQUIRED_VARIANTS[proxy]!) assert.ok(stack.variants[v], `variant ${v}`)
    assert.ok(stack.versions.length >= 2, 'two runnable versions')
    for (const v of stack.versions)
      assert.ok(
        stack.images.some((i) => i.version === v.version),
        `an official image tag for ${v.version}`,
      )
  })
}

test('nginx: one version before and one at or after 1.29.7 (F7)', () => {
  const versions = loadStack('nginx').versions.map((v) => v.version)
  assert.ok(versions.some((v) => compareVersions(v, '1.29.7') < 0))
  assert.ok(versions.some((v) => compareVersions(v, '1.29.7') >= 0))
})

test('the April 2025 set is in the catalog or listed as unavailable with a reason', () => {
  const april: Record<string, string> = { haproxy: '3.1.6', nginx: '1.27.4', envoy: '1.34.0', traefik: '3.3.5', caddy: '2.9.1' }
  for (const [proxy, version] of Object.entries(april)) {
    const stack = loadStack(proxy as (typeof PROXIES)[number])
    const runnable = stack.versions.find((v) => v.version === version)
    const missing = stack.unavailable.find((u) => u.version === version)
    assert.ok(runnable?.april_2025 || (missing && missing.why.length > 10), `${proxy} ${version}`)
  }
})

test('expectsReuse reads always, never and "from X.Y.Z"', () => {
  const stack = loadStack('nginx')
  assert.equal(expectsReuse(stack, 'article', '1.31.3'), false)
  assert.equal(expectsReuse(stack, 'upstream-keepalive', '1.22.1'), true)
  assert.equal(expectsReuse(stack, 'upstream-default', '1.22.1'), false)
  assert.equal(expectsReuse(stack, 'upstream-default', '1.31.3'), true)
})

test('variantRunsOn: a variant with since runs from that version on; one without, on every version', () => {
  const stack = loadStack('nginx')
  assert.equal(variantRunsOn(stack, 'upstream-keepalive-local', '1.26.3'), false)
  assert.equal(variantRunsOn(stack, 'upstream-keepalive-local', '1.29.7'), true)
  assert.equal(variantRunsOn(stack, 'upstream-keepalive-local', '1.31.3'), true)
  assert.equal(variantRunsOn(stack, 'upstream-keepalive', '1.22.1'), true)
})

test('compareVersions is numeric', () => {
  assert.equal(compareVersions('1.29.10', '1.29.7'), 1)
  assert.equal(compareVersions('2.6.12', '2.8.25'), -1)
  assert.equal(compareVersions('1.0', '1.0.0'), 0)
})

test('a malformed stack.yaml names the file, the line and the fix', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-cat-'))
  const file = join(dir, 'stack.yaml')
  writeFileSync(
    file,
    'proxy: nginx\ntls_library: OpenSSL\nconfig_ext: conf\nstart: [x]\nversions:\n  - version: "1.22.1"\n    source: debain\n    package: nginx\n    binary: /x\n    sha256: "' +
      'a'.repeat(64) +
      '"\nvariants: {}\n',
  )
  assert.throws(
    () => readYamlFile(file, stackSchema, 'Fix it'),
    (e: Error) => e.message.startsWith(`${file}:7: versions.0.source: expected debian, pypi or debian:<suite>`) && e.message.endsWith('. Fix it'),
  )
  // A suite's version pins the exact Debian version its root installs.
  writeFileSync(
    file,
    'proxy: nginx\ntls_library: OpenSSL\nconfig_ext: conf\nstart: [x]\nversions:\n  - version: "1.26.3"\n    source: debian:trixie\n    package: nginx\n    binary: /usr/sbin/nginx\n    sha256: "' +
      'a'.repeat(64) +
      '"\nvariants: {}\n',
  )
  assert.throws(() => readYamlFile(file, stackSchema, 'Fix it'), /stack\.yaml:\d+: versions\.0: a debian:<suite> version needs deb_version/)
  writeFileSync(file, 'proxy: nginx\n  bad: [indent\n')
  assert.throws(() => readYamlFile(file, stackSchema, 'Fix it'), /stack\.yaml:\d+: invalid YAML/)
})
