import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'
import { acquireRunLock } from '../../lib/run/lock.ts'

test('a second run on the same machine is refused while the first lives; a dead one is taken over', async () => {
  const saved = process.env.PROXYBENCH_CACHE
  process.env.PROXYBENCH_CACHE = mkdtempSync(join(tmpdir(), 'pb-lock-'))
  try {
    const other = spawn('sleep', ['30'])
    writeFileSync(join(process.env.PROXYBENCH_CACHE, 'run.lock'), JSON.stringify({ pid: other.pid, runDir: '/results/a' }))
    assert.throws(() => acquireRunLock('/results/b'), /another proxybench run \(pid \d+, \/results\/a\) is measuring on this machine\. Wait for it/)
    other.kill()
    await new Promise((r) => other.once('exit', r))
    const release = acquireRunLock('/results/b')
    release()
    acquireRunLock('/results/c')() // free again after release
  } finally {
    if (saved === undefined) delete process.env.PROXYBENCH_CACHE
    else process.env.PROXYBENCH_CACHE = saved
  }
})

test('a run that exits without releasing (SIGINT handler: process.exit) leaves no lock behind', async () => {
  const cache = mkdtempSync(join(tmpdir(), 'pb-lock-'))
  const script = `import { acquireRunLock } from ${JSON.stringify(join(repoRoot, 'lib/run/lock.ts'))}
acquireRunLock('/results/x'); console.log('locked'); process.exit(130)`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repoRoot, env: { ...process.env, PROXYBENCH_CACHE: cache }, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d))
  const code = await new Promise((r) => child.once('exit', r))
  assert.equal(code, 130)
  assert.match(out, /locked/)
  assert.equal(existsSync(join(cache, 'run.lock')), false)
})
