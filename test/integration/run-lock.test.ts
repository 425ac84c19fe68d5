import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'
import { acquireRunLock, HELD_ENV } from '../../lib/run/lock.ts'

// The steps that change shared state (00-setup installing, 01-certs writing, 02-stacks
// building) take the machine lock, as real processes: refused while another process
// measures, run under the lock of the run that started them, and gone when they end
// (npm test's pretest must not leave it held for the tests that follow).

const ZX = join(repoRoot, 'node_modules', 'zx', 'build', 'cli.js')
const work = mkdtempSync(join(tmpdir(), 'pb-run-lock-'))
const lock = join(work, 'run.lock')

function notebook(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ZX, join(repoRoot, 'notebooks', args[0]!), ...args.slice(1)], {
      cwd: repoRoot,
      env: { ...env, PROXYBENCH_LOCK: lock },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d))
    child.stderr.on('data', (d: Buffer) => (out += d))
    child.on('close', (code) => resolve({ code: code ?? 1, out }))
  })
}

/** Another process (not an ancestor of the steps) holding the lock as a run does. */
function otherRun(): Promise<{ kill: () => Promise<void> }> {
  const script = `import { acquireRunLock } from ${JSON.stringify(join(repoRoot, 'lib/run/lock.ts'))}
await acquireRunLock('/results/other'); console.log('locked'); setInterval(() => {}, 1000)`
  const env: NodeJS.ProcessEnv = { ...process.env, PROXYBENCH_LOCK: lock }
  delete env[HELD_ENV]
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  return new Promise((resolve) =>
    child.stdout.on('data', (d: Buffer) => String(d).includes('locked') && resolve({ kill: () => (child.kill('SIGKILL'), exited) })),
  )
}

const cleanEnv = () => {
  const env = { ...process.env }
  delete env[HELD_ENV]
  return env
}

test('while another process measures, 00-setup, 01-certs --force and 02-stacks are refused in one line before they change anything; 00-setup --check still looks', async () => {
  const other = await otherRun()
  try {
    const certs = join(work, 'certs-refused')
    for (const args of [
      ['00-setup.mjs', '--quiet', '--proxies', 'haproxy'],
      ['01-certs.mjs', '--force', '--dir', certs],
      ['02-stacks.mjs', '--proxies', 'haproxy', '--newest'],
    ]) {
      const r = await notebook(args, cleanEnv())
      assert.equal(r.code, 2, `${args[0]}: ${r.out.slice(-2000)}`)
      const lines = r.out.trim().split('\n')
      assert.equal(lines.length, 1, r.out)
      assert.match(
        lines[0]!,
        new RegExp(
          `^proxybench: ${lock}: notebooks/${args[0]!.replace('.', '\\.')} changes packages, keys or images: another proxybench run \\(pid \\d+, /results/other\\) is measuring on this machine\\. Wait for it to finish or stop it; changing them under a measurement would spoil it${args[0] === '00-setup.mjs' ? ' \\(to look without changing anything: --check\\)' : ''}$`,
        ),
      )
    }
    assert.equal(existsSync(certs), false, '01-certs wrote nothing')
    const look = await notebook(['00-setup.mjs', '--check', '--quiet', '--proxies', 'haproxy'], cleanEnv())
    assert.equal(look.code, 0, look.out)
  } finally {
    await other.kill()
  }
})

test('a step started by the process holding the lock (run-all → setup) runs under that lock instead of blocking', async () => {
  const release = await acquireRunLock(join(work, 'run'))
  try {
    // process.env now names this process as the holder: the children inherit it.
    const certs = join(work, 'certs-inside')
    const r = await notebook(['01-certs.mjs', '--force', '--dir', certs], process.env)
    assert.equal(r.code, 0, r.out)
    assert.ok(readdirSync(certs).includes('ca.crt'))
    const s = await notebook(['00-setup.mjs', '--quiet', '--proxies', 'haproxy'], process.env)
    assert.equal(s.code, 0, s.out)
    // And the run's lock is still held: nobody else got in between.
    await assert.rejects(acquireRunLock(join(work, 'second')), /is measuring on this machine/)
  } finally {
    await release()
  }
})

test("npm test's pretest (00-setup --quiet) leaves the lock free for the tests after it", async () => {
  const r = await notebook(['00-setup.mjs', '--quiet'], cleanEnv())
  assert.equal(r.code, 0, r.out)
  // At once, no retry: nothing the step started (an engine, a download) keeps the lock.
  const release = await acquireRunLock(join(work, 'after-pretest'))
  await release()
  rmSync(work, { recursive: true, force: true })
})
