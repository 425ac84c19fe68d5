import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { decideSkip, inCi, parseAllowedSkips, readAllowedSkips, runnerTotals, skipReport, unlistedSkips, ALLOWED_SKIPS_FILE } from '../../lib/core/ci-skips.ts'
import { repoRoot } from '../../lib/core/paths.ts'

const allowed = parseAllowedSkips(
  '# comment\n\nintegration/multihost  this CI has no CAP_SYS_ADMIN\nintegration/docker: one test\tits registry is elsewhere\n',
  '.ci/allowed-skips',
)

test('.ci/allowed-skips: id and reason per line; a line without a reason is one line naming the file and line', () => {
  assert.deepEqual(allowed, [
    { id: 'integration/multihost', reason: 'this CI has no CAP_SYS_ADMIN', line: 3 },
    { id: 'integration/docker: one test', reason: 'its registry is elsewhere', line: 4 },
  ])
  assert.throws(
    () => parseAllowedSkips('integration/registry\n', '.ci/allowed-skips'),
    /\.ci\/allowed-skips:1: "integration\/registry" has no reason.*two spaces/s,
  )
  // The committed file parses (it may list nothing: a fresh machine of this kind has every component).
  assert.doesNotThrow(() => readAllowedSkips(ALLOWED_SKIPS_FILE))
})

test('outside CI a missing component skips with [id] reason; in CI it fails, unless listed (by id, or id: test name)', () => {
  const off = { ci: false, allowed }
  const on = { ci: true, allowed }
  assert.deepEqual(decideSkip('integration/registry', 't', false, on), { kind: 'run' })
  assert.deepEqual(decideSkip('integration/registry', 't', 'no engine', off), { kind: 'skip', reason: '[integration/registry] no engine' })
  const failed = decideSkip('integration/registry', 't', 'no engine', on)
  assert.equal(failed.kind, 'fail')
  assert.match(failed.kind === 'fail' ? failed.reason : '', /^\[integration\/registry\] no engine: in CI a test may not skip.*\.ci\/allowed-skips/)
  assert.deepEqual(decideSkip('integration/multihost', 'any', 'not root', on), {
    kind: 'skip',
    reason: '[integration/multihost] not root (allowed in CI: this CI has no CAP_SYS_ADMIN)',
  })
  assert.equal(decideSkip('integration/docker', 'one test', 'x', on).kind, 'skip')
  assert.equal(decideSkip('integration/docker', 'another test', 'x', on).kind, 'fail')
  assert.deepEqual([inCi({ CI: 'true' }), inCi({ CI: '1' }), inCi({}), inCi({ CI: 'false' })], [true, true, false, false])
})

test('the runner report: every skip that no listed rule explains, a skip outside the helper included', () => {
  const tap = [
    'ok 1 - runs',
    'ok 2 - three engines # SKIP [integration/multihost] not root (allowed in CI: this CI has no CAP_SYS_ADMIN)',
    '    ok 3 - nested # SKIP [integration/registry] no engine',
    'ok 4 - raw # SKIP chown needs root',
    'ok 5 - one test # SKIP [integration/docker] x',
    'not ok 6 - failed',
    '# skipped 4',
  ].join('\n')
  assert.deepEqual(unlistedSkips(tap, allowed), [
    { name: 'nested', reason: '[integration/registry] no engine' },
    { name: 'raw', reason: 'chown needs root' },
  ])
})

test('the runner summary: totals summed over the log, "N skipped" printed, a log without a summary fails', () => {
  const tap = 'ok 1 - a\nok 2 - b # SKIP [integration/multihost] not root\n# tests 2\n# pass 1\n# fail 0\n# skipped 1\n'
  assert.deepEqual(runnerTotals(tap), { tests: 2, pass: 1, fail: 0, skipped: 1 })
  assert.deepEqual(skipReport(tap, allowed), { ok: true, lines: ['ci: 2 tests, 1 pass, 0 fail, 1 skipped (1 listed in .ci/allowed-skips)'] })
  const bad = skipReport(tap.replace('[integration/multihost]', '[integration/registry]'), allowed)
  assert.equal(bad.ok, false)
  assert.match(bad.lines.join('\n'), /1 skipped \(0 listed.*\n.*not listed in \.ci\/allowed-skips: "b": \[integration\/registry\] not root/)
  assert.equal(skipReport('ok 1 - a\n', allowed).ok, false)
})

// The whole rule as CI meets it: a real runner, the helper, .ci/skips.ts on the runner's own log.
test('end to end: the helper skips outside CI, fails in CI, skips in CI when listed; .ci/skips.ts fails on an unlisted skip', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-ci-skips-'))
  try {
    const file = join(dir, 'needs.test.ts')
    writeFileSync(
      file,
      `import { testNeeding } from ${JSON.stringify(join(repoRoot, 'test/support/needs.ts'))}\ntestNeeding('needs a registry', { id: 'integration/example', missing: 'docker-registry missing' }, () => {})\ntestNeeding('needs nothing', { id: 'integration/example', missing: false }, () => {})\n`,
    )
    const listed = join(dir, 'allowed-skips')
    writeFileSync(listed, 'integration/example  this CI has no registry on purpose\n')
    // A runner of its own: without the parent runner's NODE_TEST_CONTEXT it prints TAP as CI's does.
    const { NODE_TEST_CONTEXT: _, CI: __, ...env0 } = process.env
    const node = (args: string[], env: NodeJS.ProcessEnv) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', ...args], {
        cwd: repoRoot,
        env: { ...env0, PROXYBENCH_ALLOWED_SKIPS: join(dir, 'none'), ...env },
        encoding: 'utf8',
        timeout: 120_000,
      })
      return { code: r.status, stdout: r.stdout }
    }
    const run = async (env: NodeJS.ProcessEnv) => node(['--test', file], env)
    const check = async (log: string, env: NodeJS.ProcessEnv = {}) => {
      writeFileSync(join(dir, 'log'), log)
      return node(['.ci/skips.ts', join(dir, 'log')], env)
    }
    const local = await run({})
    assert.equal(local.code, 0, local.stdout)
    assert.match(local.stdout, /ok 1 - needs a registry # SKIP \[integration\/example\] docker-registry missing/)
    assert.match(local.stdout, /^# skipped 1$/m)
    // The same log in CI's check: a skip nobody listed.
    const unlisted = await check(local.stdout)
    assert.equal(unlisted.code, 1)
    assert.match(
      unlisted.stdout,
      /ci: 2 tests, 1 pass, 0 fail, 1 skipped \(0 listed in \.ci\/allowed-skips\)\nci: skipped and not listed in \.ci\/allowed-skips: "needs a registry"/,
    )
    const ci = await run({ CI: 'true' })
    assert.equal(ci.code, 1)
    assert.match(ci.stdout, /not ok 1 - needs a registry/)
    assert.match(ci.stdout, /in CI a test may not skip for a missing component/)
    const allowedRun = await run({ CI: 'true', PROXYBENCH_ALLOWED_SKIPS: listed })
    assert.equal(allowedRun.code, 0, allowedRun.stdout)
    assert.match(allowedRun.stdout, /# SKIP \[integration\/example\] docker-registry missing \(allowed in CI: this CI has no registry on purpose\)/)
    const passes = await check(allowedRun.stdout, { PROXYBENCH_ALLOWED_SKIPS: listed })
    assert.equal(passes.code, 0, passes.stdout)
    assert.match(passes.stdout, /1 skipped \(1 listed/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
