import assert from 'node:assert/strict'
import { test } from 'node:test'
import { configPaths, pathTokens, planMounts, readable } from '../../../lib/runtime/docker/mounts.ts'

test('mounts: paths in argv, env and the config; run_dir read-write; keys copied; nothing else', () => {
  assert.deepEqual(pathTokens(['-c', '/r/run/a.conf', '--providers.file.filename=/r/run/t.yaml', 'https://127.0.0.1:5/', '127.0.0.2:80', 'stderr']), [
    '/r/run/a.conf',
    '/r/run/t.yaml',
    '//127.0.0.1',
  ])
  assert.deepEqual(configPaths('ssl_certificate /w/certs/ec256.crt;\nproxy_pass http://127.0.0.2:8080/x;\n  crt "/w/certs/ec256.pem"\n'), [
    '/w/certs/ec256.crt',
    '/w/certs/ec256.pem',
  ])

  const files: Record<string, { isDir: boolean; uid: number; gid: number; mode: number; size: number; text?: string }> = {
    '/tmp/cell/proxy': { isDir: true, uid: 0, gid: 0, mode: 0o755, size: 0 },
    '/tmp/cell/proxy/a.conf': {
      isDir: false,
      uid: 0,
      gid: 0,
      mode: 0o644,
      size: 100,
      text: 'pid /tmp/cell/proxy/nginx.pid;\nssl_certificate /w/certs/ec256.crt;\nssl_certificate_key /w/certs/ec256.key;\ninclude /etc/nginx/mime.types;\nroot /root;\nx /var/run/docker.sock;\n',
    },
    '/w/certs/ec256.crt': { isDir: false, uid: 0, gid: 0, mode: 0o644, size: 600 },
    '/w/certs/ec256.key': { isDir: false, uid: 0, gid: 0, mode: 0o600, size: 240 },
    '/w/stacks/wrk/report.lua': { isDir: false, uid: 0, gid: 0, mode: 0o644, size: 900, text: '-- no paths' },
    '/etc/nginx/mime.types': { isDir: false, uid: 0, gid: 0, mode: 0o644, size: 10 },
    '/var/run/docker.sock': { isDir: false, uid: 0, gid: 0, mode: 0o660, size: 0 },
    '/root': { isDir: true, uid: 0, gid: 0, mode: 0o700, size: 0 },
  }
  const fs = { stat: (p: string) => files[p] ?? null, read: (p: string) => files[p]?.text ?? '' }
  const plan = planMounts(
    {
      argv: ['/usr/sbin/nginx', '-p', '/tmp/cell/proxy', '-c', '/tmp/cell/proxy/a.conf'],
      env: { HOME: '/tmp/cell/proxy', LD_LIBRARY_PATH: '/c/lib' },
      cwd: '/tmp/cell/proxy',
    },
    { uid: 65534, gid: 65534 },
    fs,
    '/w/certs',
  )
  assert.deepEqual(plan.mounts, [
    { source: '/tmp/cell/proxy', target: '/tmp/cell/proxy', readOnly: false },
    { source: '/w/certs/ec256.crt', target: '/w/certs/ec256.crt', readOnly: true },
  ])
  assert.deepEqual(plan.copies, [{ source: '/w/certs/ec256.key', target: '/w/certs/ec256.key' }])
  // Only files under the keys dir are copied: a root-only file elsewhere is refused, by name.
  assert.throws(
    () => planMounts({ argv: ['x', '/tmp/cell/proxy/a.conf'] }, { uid: 65534, gid: 65534 }, fs, '/w/other-certs'),
    (e: Error) => e.name === 'UserError' && /^\/w\/certs\/ec256\.key: not readable by the container user 65534:65534.*\. Make it readable/.test(e.message),
  )
  // Symlinks resolved: a link under the keys dir to a file elsewhere is refused too.
  const linked = { ...fs, realpath: (p: string) => (p === '/w/certs/ec256.key' ? '/etc/shadow' : p) }
  assert.throws(() => planMounts({ argv: ['x', '/tmp/cell/proxy/a.conf'] }, { uid: 65534, gid: 65534 }, linked, '/w/certs'), /ec256\.key: not readable/)
  // As the key's owner, no copy is needed.
  assert.deepEqual(planMounts({ argv: ['x', '/tmp/cell/proxy/a.conf'] }, { uid: 0, gid: 0 }, fs).copies, [])
  const gen = planMounts({ argv: ['wrk', '-s', '/w/stacks/wrk/report.lua', 'https://127.0.0.1:1/'] }, { uid: 65534, gid: 65534 }, fs)
  assert.deepEqual(gen.mounts, [{ source: '/w/stacks/wrk/report.lua', target: '/w/stacks/wrk/report.lua', readOnly: true }])
})

test('readable: owner, group, other bits without capabilities', () => {
  assert.equal(readable({ uid: 0, gid: 0, mode: 0o600 }, 65534, 65534), false)
  assert.equal(readable({ uid: 65534, gid: 0, mode: 0o400 }, 65534, 65534), true)
  assert.equal(readable({ uid: 0, gid: 65534, mode: 0o640 }, 65534, 65534), true)
  assert.equal(readable({ uid: 0, gid: 0, mode: 0o644 }, 65534, 65534), true)
})
