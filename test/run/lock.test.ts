import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'
import { acquireRunLock, acquireStepLock, HELD_ENV, inheritedLock, isAncestor, lockPath } from '../../lib/run/lock.ts'

const withLock = async (fn: (path: string) => Promise<void>) => {
  const saved = process.env.PROXYBENCH_LOCK
  process.env.PROXYBENCH_LOCK = join(mkdtempSync(join(tmpdir(), 'pb-lock-')), 'run.lock')
  try {
    await fn(process.env.PROXYBENCH_LOCK)
  } finally {
    if (saved === undefined) delete process.env.PROXYBENCH_LOCK
    else process.env.PROXYBENCH_LOCK = saved
  }
}

/** A child process that takes the lock, says so, then waits (or exits at once with `exitCode`). */
function lockingChild(lock: string, exitCode?: number) {
  const script = `import { acquireRunLock } from ${JSON.stringify(join(repoRoot, 'lib/run/lock.ts'))}
await acquireRunLock('/results/child'); console.log('locked'); ${exitCode === undefined ? 'setInterval(() => {}, 1000)' : `process.exit(${exitCode})`}`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repoRoot,
    env: { ...process.env, PROXYBENCH_LOCK: lock },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const locked = new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => String(d).includes('locked') && resolve()))
  return { child, locked, exited: new Promise<number | null>((r) => child.once('exit', (code) => r(code))) }
}

test('a second run is refused while the first holds the lock, naming it; free again after release', async () => {
  await withLock(async () => {
    const release = await acquireRunLock('/results/a')
    await assert.rejects(acquireRunLock('/results/b'), /another proxybench run \(pid \d+, \/results\/a\) is measuring on this machine\. Wait for it/)
    release()
    // the holder needs a moment to see the closed pipe and exit
    for (let i = 0; i < 50; i++) {
      try {
        ;(await acquireRunLock('/results/c'))()
        return
      } catch {
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    assert.fail('the lock was not free after release')
  })
})

test('a run killed with SIGKILL leaves no lock behind: the kernel frees it with the process', async () => {
  await withLock(async (lock) => {
    const c = lockingChild(lock)
    await c.locked
    await assert.rejects(acquireRunLock('/results/b'), /is measuring on this machine/)
    c.child.kill('SIGKILL')
    await c.exited
    let ok = false
    for (let i = 0; i < 50 && !ok; i++) {
      try {
        ;(await acquireRunLock('/results/b'))()
        ok = true
      } catch {
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    assert.ok(ok, 'lock still held after the holder was killed')
  })
})

test('two runs started at once: exactly one gets the lock', async () => {
  await withLock(async (lock) => {
    const results = await Promise.allSettled([acquireRunLock('/results/x'), acquireRunLock('/results/y'), acquireRunLock('/results/z')])
    const won = results.filter((r) => r.status === 'fulfilled')
    assert.equal(won.length, 1)
    for (const r of won) (r as PromiseFulfilledResult<() => void>).value()
    // and a process that exits normally frees it (no 'exit' handler needed)
    const c = lockingChild(lock, 130)
    assert.equal(await c.exited, 130)
  })
})

test('the lock path is one fixed path for the machine: TMPDIR does not move it, PROXYBENCH_LOCK does', async () => {
  const a = mkdtempSync(join(tmpdir(), 'pb-tmpdir-a-'))
  const b = mkdtempSync(join(tmpdir(), 'pb-tmpdir-b-'))
  // Two processes as two users' shells would start them: other TMPDIRs, no override.
  const pathIn = (TMPDIR: string) =>
    new Promise<string>((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR }
      delete env.PROXYBENCH_LOCK
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          `import { lockPath } from ${JSON.stringify(join(repoRoot, 'lib/run/lock.ts'))}; console.log(lockPath())`,
        ],
        { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'inherit'] },
      )
      let out = ''
      child.stdout.on('data', (d: Buffer) => (out += d))
      child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}`))))
    })
  const [pa, pb] = await Promise.all([pathIn(a), pathIn(b)])
  assert.equal(pa, pb)
  assert.ok(!pa.startsWith(a) && !pa.startsWith(b), pa)
  assert.match(pa, /^\/(run\/lock|var\/lock|var\/tmp|tmp)\/proxybench-run\.lock$/)
  // The first usable directory of the list; a missing one is passed over.
  assert.equal(lockPath({}, ['/nonexistent-pb-dir', a, b]), join(a, 'proxybench-run.lock'))
  assert.equal(lockPath({ PROXYBENCH_LOCK: '/x/y.lock', TMPDIR: a }), '/x/y.lock')
})

test('a step inside this run re-uses its lock; the run lock is never re-entrant; a step alone takes it and refuses a run', async () => {
  await withLock(async () => {
    const release = await acquireRunLock('/results/a')
    // In the run's own process (run-all calls setup): the step runs under the run's lock.
    const stepRelease = await acquireStepLock('notebooks/00-setup.mjs')
    await stepRelease()
    await assert.rejects(acquireRunLock('/results/b'), /another proxybench run \(pid \d+, \/results\/a\) is measuring/, 'still held after the step')
    assert.equal(process.env[HELD_ENV], `${process.pid}:${process.env.PROXYBENCH_LOCK}`, 'children learn who holds it')
    await release()
    assert.equal(process.env[HELD_ENV], undefined)
    const step = await acquireStepLock('notebooks/02-stacks.mjs')
    await assert.rejects(
      acquireRunLock('/results/c'),
      /proxybench's notebooks\/02-stacks\.mjs \(pid \d+\) is changing packages, keys or images on this machine\. Wait for it to finish/,
    )
    await step()
  })
})

test('a lock named in the environment is re-used only from a live ancestor that holds it', async () => {
  await withLock(async (lock) => {
    assert.equal(isAncestor(process.ppid), true)
    assert.equal(isAncestor(process.pid), false)
    // Another process holds it and the env names that process: not our ancestor, so not ours to use.
    const c = lockingChild(lock)
    await c.locked
    try {
      assert.equal(inheritedLock({ ...process.env, [HELD_ENV]: `${c.child.pid}:${lock}` }), undefined)
      await assert.rejects(
        acquireStepLock('notebooks/01-certs.mjs'),
        /notebooks\/01-certs\.mjs changes packages, keys or images: another proxybench run \(pid \d+, \/results\/child\) is measuring on this machine/,
      )
    } finally {
      c.child.kill('SIGKILL')
      await c.exited
    }
  })
})
