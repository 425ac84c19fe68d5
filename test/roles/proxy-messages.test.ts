import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadStack, newestVersion } from '../../lib/catalog/stack.ts'
import { UserError } from '../../lib/core/errors.ts'
import { keepRejected, neverAnswered, prepareProxy } from '../../lib/roles/proxy.ts'

test("a rejected config: the checker's own error line, and the rendered copy kept under the run's configs/", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-reject-'))
  const template = join(dir, 'mine.cfg')
  writeFileSync(template, 'frontend x\n  bind :{{listen_port}}\n  bogus-directive\n')
  const real = loadStack('haproxy')
  // The checker stands in for `haproxy -c`: its own words on stderr, exit 1.
  const stack = {
    ...real,
    validate: ['sh', '-c', "echo \"[ALERT]    (1) : config : parsing [mine.cfg:3] : unknown keyword 'bogus-directive' in 'frontend' section\" >&2; exit 1"],
  }
  const keep = join(dir, 'run', 'configs', 'haproxy-2.8.25-custom-mine.cfg')
  await assert.rejects(
    prepareProxy({
      stack,
      version: newestVersion(real),
      variant: 'custom:mine.cfg',
      template,
      certs: { cert: '/c', key: '/k', pem: '/p' },
      backend: { host: '127.0.0.1', port: 9 },
      threads: 1,
      runDir: join(dir, 'scratch'),
      keepCopy: keep,
    }),
    (e: Error) =>
      e instanceof UserError &&
      !e.message.includes('\n') &&
      e.message.includes("unknown keyword 'bogus-directive'") &&
      e.message.endsWith(`Fix the config; the rendered copy is ${keep}`),
  )
  assert.ok(existsSync(keep))
  assert.match(readFileSync(keep, 'utf8'), /bind :\d+\n {2}bogus-directive/)
})

test('keepRejected keeps an existing copy; without a place it names the rendered file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-keep-'))
  const f = join(dir, 'a.conf')
  writeFileSync(f, 'new')
  const keep = join(dir, 'configs', 'a.conf')
  assert.equal(keepRejected(f, keep), keep)
  writeFileSync(f, 'newer')
  keepRejected(f, keep)
  assert.equal(readFileSync(keep, 'utf8'), 'new')
  assert.equal(keepRejected(f, undefined), f)
})

test('a proxy that never answers: the port it was told and its last log lines', () => {
  const m = neverAnswered('nginx 1.31.3 custom:my.conf did not answer 200 on https://127.0.0.1:40123/ within 30 s', 40123, 'a\nb\n\nc\nd\n')
  assert.equal(
    m,
    'nginx 1.31.3 custom:my.conf did not answer 200 on https://127.0.0.1:40123/ within 30 s (its config was told {{listen_port}} = 40123; a config that listens elsewhere is never reached); last log lines: b | c | d',
  )
  assert.match(neverAnswered('x', 1, ''), /last log lines: \(empty\)$/)
})
