import assert from 'node:assert/strict'
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import type Docker from 'dockerode'
import { parseInlineHosts } from '../../../lib/cli/hosts-options.ts'
import { copyInEntries } from '../../../lib/runtime/docker/copy-in.ts'
import { planMounts } from '../../../lib/runtime/docker/mounts.ts'
import { MultiHostRuntime } from '../../../lib/runtime/docker/multi-host.ts'
import type { RunningRole } from '../../../lib/runtime/types.ts'

const nobody = { uid: 65534, gid: 65534 }

test('no shared file system: what the mount plan names goes into the container at the same paths, owned and readable by the container user', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-copyin-'))
  const run = join(dir, 'proxy')
  mkdirSync(run)
  const cfg = join(run, 'haproxy.cfg')
  const key = join(dir, 'certs', 'ec256.key')
  mkdirSync(join(dir, 'certs'))
  writeFileSync(key, 'PRIVATE\n')
  chmodSync(key, 0o600)
  writeFileSync(cfg, `crt ${key}\n`)
  const plan = planMounts(
    { argv: ['/usr/sbin/haproxy', '-f', cfg], cwd: run },
    { uid: process.getuid!(), gid: process.getgid!() },
    undefined,
    join(dir, 'certs'),
  )
  const entries = copyInEntries(plan, nobody)
  const byName = new Map(entries.map((e) => [`/${e.name}`, e]))
  assert.equal(byName.get(run)?.type, 'dir')
  assert.equal(byName.get(cfg)?.body?.toString(), `crt ${key}\n`)
  assert.equal(byName.get(key)?.body?.toString(), 'PRIVATE\n')
  assert.ok(
    entries.every((e) => e.uid === 65534 && e.gid === 65534 && (e.mode & 0o400) !== 0),
    "every entry the container user's and readable by it",
  )
  assert.equal(byName.get(key)!.mode & 0o077, 0, 'a private key stays private inside the container')
  assert.ok(entries.findIndex((e) => `/${e.name}` === run) < entries.findIndex((e) => `/${e.name}` === cfg), 'a directory before its contents')
})

test("roles on several hosts: each role starts on its host's runtime; a role is reached at its host's address, on loopback where the host is this machine", () => {
  const t = parseInlineHosts('proxy=unix:///var/run/docker.sock?copy=1 backend=unix:///var/run/docker.sock?copy=1 generator=ssh://bench@10.77.0.4', {})
  const clients = new Map([
    [t.roles.proxy.host, {} as Docker],
    [t.roles.generator.host, {} as Docker],
  ])
  const rt = new MultiHostRuntime('test-multi', t, { clients, images: [] })
  try {
    assert.equal(rt.hosts.length, 2)
    assert.equal(rt.hostOf('proxy'), rt.hostOf('backend'))
    assert.notEqual(rt.hostOf('generator'), rt.hostOf('proxy'))
    assert.equal(rt.hostAddress('proxy'), undefined)
    assert.deepEqual(rt.hostAddress('generator'), { listen: '10.77.0.4', reach: '10.77.0.4' })
    // The unix engine's file read here; the ssh engine's same file read inside each container.
    assert.match(
      rt.cpuSource,
      /^unix:\/\/\/var\/run\/docker.sock: container cgroup counter file \([^)]*\); ssh:\/\/10.77.0.4: container cgroup counter file \([^)]*\), read inside the container by an exec$/,
    )
    assert.equal(rt.generatorElsewhere, true)
    const role = { spec: { role: 'generator', name: 'g', argv: [], cpus: '0', logFile: '' }, pid: 1, exited: new Promise(() => {}) } as RunningRole
    return rt.cpuNs(role).then((ns) => assert.equal(ns, 0, 'a role its host never started has no CPU'))
  } finally {
    void rt.stopAll().catch(() => {})
  }
})
