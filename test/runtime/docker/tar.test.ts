import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { tarPack, tarUnpack } from '../../../lib/runtime/docker/tar.ts'

const long = `tmp/${'d'.repeat(90)}/${'e'.repeat(60)}/key.pem`

test('tarPack writes what tar(1) reads: owners, modes, a long path in the ustar prefix', () => {
  const archive = tarPack([
    { name: 'tmp/cell/proxy', type: 'dir', mode: 0o755, uid: 65534, gid: 65534 },
    { name: 'tmp/cell/proxy/haproxy.cfg', type: 'file', mode: 0o644, uid: 65534, gid: 65534, body: Buffer.from('global\n') },
    { name: long, type: 'file', mode: 0o400, uid: 65534, gid: 65534, body: Buffer.alloc(700, 'k') },
  ])
  assert.equal(archive.length % 512, 0)
  const dir = mkdtempSync(join(tmpdir(), 'pb-tar-'))
  writeFileSync(join(dir, 'a.tar'), archive)
  const listed = spawnSync('tar', ['-tvf', join(dir, 'a.tar'), '--numeric-owner'], { encoding: 'utf8' })
  assert.equal(listed.status, 0, listed.stderr)
  assert.match(listed.stdout, /^drwxr-xr-x 65534\/65534 +0 .* tmp\/cell\/proxy\/$/m)
  assert.match(listed.stdout, /^-r-------- 65534\/65534 +700 .* tmp\/d+\/e+\/key\.pem$/m)
  const x = spawnSync('tar', ['-xf', join(dir, 'a.tar'), '-C', dir], { encoding: 'utf8' })
  assert.equal(x.status, 0, x.stderr)
  assert.equal(readFileSync(join(dir, 'tmp/cell/proxy/haproxy.cfg'), 'utf8'), 'global\n')
  assert.equal(statSync(join(dir, long)).size, 700)
})

test('tarUnpack reads tar(1) archives back, long names included', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-untar-'))
  const deep = join('proxy', 'x'.repeat(120))
  spawnSync('mkdir', ['-p', join(dir, 'proxy')])
  writeFileSync(join(dir, 'proxy', 'access.log'), 'GET /\nGET /\n')
  writeFileSync(join(dir, deep), 'deep')
  const made = spawnSync('tar', ['-cf', '-', '-C', dir, 'proxy'], { maxBuffer: 1 << 20 })
  assert.equal(made.status, 0)
  const entries = tarUnpack(made.stdout)
  assert.deepEqual(entries.map((e) => [e.name, e.type]).sort(), [
    ['proxy', 'dir'],
    ['proxy/access.log', 'file'],
    [deep, 'file'],
  ])
  assert.equal(String(entries.find((e) => e.name === 'proxy/access.log')!.body), 'GET /\nGET /\n')
  assert.deepEqual(tarUnpack(tarPack([{ name: 'a/b', type: 'file', mode: 0o600, uid: 1, gid: 2, body: Buffer.from('x') }])), [
    { name: 'a/b', type: 'file', mode: 0o600, uid: 1, gid: 2, body: Buffer.from('x') },
  ])
})
