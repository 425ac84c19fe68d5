import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadStack } from '../../lib/catalog/stack.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { accessLogIssue, catalogCellPlan, cellScheme, checkTemplates, requestTarget, withVerifiedStack, type CellContext } from '../../lib/measure/cell.ts'

test("a config rejected before the run: the reason names the rendered copy under the run's configs/, no temp folder is left", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-check-'))
  const template = join(dir, 'mine.cfg')
  writeFileSync(template, 'frontend x\n  bind :{{listen_port}}\n  bogus-directive\n')
  // The checker stands in for `haproxy -c`: its own words on stderr, exit 1.
  const stack = {
    ...loadStack('haproxy'),
    validate: [
      'sh',
      '-c',
      'echo "[ALERT]    (1) : config : parsing [$0:3] : unknown keyword \'bogus-directive\' in \'frontend\' section" >&2; echo "[ALERT]    (1) : config : Fatal errors found in configuration." >&2; exit 1',
      '{{config}}',
    ],
  }
  const cell = catalogCellPlan(stack, { series: 'custom', variant: 'custom:mine.cfg', connections: 50, template })
  const runDir = join(dir, 'run')
  const before = readdirSync(tmpdir()).filter((f) => f.startsWith('proxybench-check-')).length
  const ctx = {
    runtime: { network: 'host' },
    runId: 'r',
    runDir,
    cpus: { proxy: '1', backend: '0', generator: '0' },
    log: memoryLogger(),
    certs: { ca: '/ca', files: { ec256: { cert: '/c', key: '/k', pem: '/p' } } },
    templateChecks: new Map<string, string | null>(),
  } as unknown as CellContext & { templateChecks: Map<string, string | null> }
  const [reason] = await checkTemplates([cell], ctx)
  assert.match(reason!, /^config rejected before the run: .*rejects the rendered config \(\[ALERT\] .*unknown keyword 'bogus-directive'/)
  const copy = join(runDir, 'configs', readdirSync(join(runDir, 'configs'))[0]!)
  assert.ok(reason!.endsWith(`Fix the config; the rendered copy is ${copy}`), reason)
  assert.ok(existsSync(copy))
  assert.ok(!reason!.includes('proxybench-check-'), "the checker's words name the kept copy, not the temp folder")
  assert.equal(readdirSync(tmpdir()).filter((f) => f.startsWith('proxybench-check-')).length, before)
})

test('a logging variant whose access log is missing or short makes the row invalid; other variants are never checked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-log-'))
  const logging = catalogCellPlan('nginx', { series: 'scenarios', variant: 'logging', connections: 50 })
  assert.match(accessLogIssue(logging, dir)!, /access log access\.log was never written/)
  writeFileSync(join(dir, 'access.log'), '127.0.0.1 - - "GET / HTTP/1.1" 200\n'.repeat(19))
  assert.match(accessLogIssue(logging, dir)!, /has 19 lines after 20 verified requests/)
  writeFileSync(join(dir, 'access.log'), '127.0.0.1 - - "GET / HTTP/1.1" 200\n'.repeat(20))
  assert.equal(accessLogIssue(logging, dir), null)
  assert.equal(accessLogIssue(catalogCellPlan('nginx', { series: 'scenarios', variant: 'pool-added', connections: 50 }), join(dir, 'none')), null)
  // HAProxy logs to stdout only: its lines land in proxy.log.
  assert.equal(catalogCellPlan('haproxy', { series: 'scenarios', variant: 'logging', connections: 50 }).stack!.variants.logging!.access_log, 'proxy.log')
})

test('the scheme comes from the variant, the direct row is plain HTTP, /json carries its size', () => {
  const http = catalogCellPlan('envoy', { series: 'scenarios', variant: 'http', connections: 50 })
  assert.equal(cellScheme(http), 'http')
  assert.equal(cellScheme(catalogCellPlan('envoy', { series: 'scenarios', variant: 'pool-added', connections: 50 })), 'https')
  assert.equal(cellScheme({ series: 'direct', proxy: 'direct', version: 'x', variant: 'direct', keyType: 'ec256', connections: 1 }), 'http')
  assert.equal(requestTarget(http), '/')
  assert.equal(requestTarget({ ...http, path: '/json', bodyBytes: 1024 }), '/json?size=1024')
})

test('a version gone from its source: its cells are failed rows saying why, nothing is checked or started', async () => {
  const cell = catalogCellPlan('nginx', { series: 'pooling', variant: 'pool-added', connections: 50 })
  const why = 'not runnable here: pinned build 1.0-1 could not be installed; trixie serves no build of upstream 1.0'
  const templateChecks = new Map<string, string | null>()
  // Nothing but the map is read before the verdict: a runtime that throws proves nothing starts.
  const ctx = {
    notRunnable: new Map([[`nginx ${cell.version}`, why]]),
    templateChecks,
    runtime: new Proxy({}, { get: () => assert.fail('a not-runnable cell touched the runtime') }),
  } as unknown as CellContext & { templateChecks: Map<string, string | null> }
  assert.deepEqual(await checkTemplates([cell], ctx), [])
  assert.equal(templateChecks.size, 0)
  const outcome = { failed: (reason: string) => ({ status: 'failed', reason }), invalid: (reason: string) => ({ status: 'invalid', reason }) }
  const row = await withVerifiedStack(cell, 'gone', ctx, outcome, async () => assert.fail('the body ran'))
  assert.deepEqual(row, { status: 'failed', reason: why })
})
