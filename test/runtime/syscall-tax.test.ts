import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { certsDir } from '../../lib/core/paths.ts'
import { catalogCellPlan, withVerifiedStack, type CellContext } from '../../lib/measure/cell.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { loadgenRequests } from '../../lib/roles/loadgen.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { insnsFor, measureTax, parseTaxReading, taxLauncher, MAX_TAX_INSNS } from '../../lib/runtime/syscall-tax.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { ensureGoBuild } from '../../lib/setup/gobuild.ts'

test("the filter length follows the measured cost per instruction, within the kernel's limit", () => {
  const probe = parseTaxReading(
    '{"insns":4000,"filters":1,"calls_per_batch":20000,"base_ns_per_syscall":200,"taxed_ns_per_syscall":1400,"tax_ns_per_syscall":1200}\n',
  )
  assert.equal(insnsFor(2400, probe), 8000)
  assert.equal(insnsFor(1e9, probe), MAX_TAX_INSNS)
  assert.throws(() => insnsFor(2000, { ...probe, tax_ns_per_syscall: 0 }), /measured no cost/)
  assert.throws(() => parseTaxReading('syscall-tax: oops'), /unexpected output|JSON/)
})

/** CPU seconds (user + system) of a command and its children, by bash's time. */
function cpuSeconds(argv: string[]): number {
  const r = spawnSync('bash', ['-c', 'TIMEFORMAT="%3U %3S"; time "$@" >/dev/null 2>&1', 'bash', ...argv], { encoding: 'utf8' })
  const [u, s] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number)
  return u! + s!
}

// The real launcher on the proxy's core: a longer filter costs more per system call, a
// program under it pays about that per call (dd: two calls per byte copied), and what it
// execs keeps working and keeps the filter (sh → grep reads its own status).
test("a program costs more per system call under the launcher, and exec'd programs keep working", async () => {
  const built = await ensureGoBuild('syscall-tax')
  assert.equal(built.error, undefined)
  const cpus = defaultCpuLayout().proxy
  const short = await measureTax(1000, cpus)
  const long = await measureTax(8000, cpus)
  assert.ok(long.tax_ns_per_syscall > short.tax_ns_per_syscall * 2, `1000: ${JSON.stringify(short)} 8000: ${JSON.stringify(long)}`)
  assert.ok(long.taxed_ns_per_syscall > long.base_ns_per_syscall, JSON.stringify(long))

  const calls = 2 * 50_000
  const dd = ['taskset', '-c', cpus, 'dd', 'if=/dev/zero', 'of=/dev/null', 'bs=1', `count=${calls / 2}`]
  const plain = cpuSeconds(dd)
  const taxed = cpuSeconds([...taxLauncher({ insns: 8000 }, built.path), ...dd])
  const perCall = ((taxed - plain) / calls) * 1e9
  // Half the launcher's own reading at least: dd's calls cost what getppid's do, and more.
  assert.ok(
    perCall > long.tax_ns_per_syscall / 2,
    `dd: ${plain} s plain, ${taxed} s taxed: +${perCall.toFixed(0)} ns per call; the launcher measured +${long.tax_ns_per_syscall} ns`,
  )

  const r = spawnSync(built.path, ['-insns', '500', '--', 'sh', '-c', 'echo through; grep Seccomp: /proc/self/status'], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  assert.match(r.stdout, /^through\nSeccomp:\s+2\n/)
  const missing = spawnSync(built.path, ['-insns', '10', '--', 'no-such-program-here'], { encoding: 'utf8' })
  assert.equal(missing.status, 127)
  assert.match(missing.stderr, /no-such-program-here/)
  const tooLong = spawnSync(built.path, ['-insns', String(MAX_TAX_INSNS + 1), '--', 'true'], { encoding: 'utf8' })
  assert.equal(tooLong.status, 2)
  assert.match(tooLong.stderr, /-insns/)
})

// A real proxy (HAProxy, the backend behind it) started by the native runtime under the
// launcher: verified by the cell protocol and serving requests, every role's process under the filter.
test('a real proxy and backend run under the launcher: verified, serving, filtered', async () => {
  const built = await ensureGoBuild('syscall-tax')
  assert.equal(built.error, undefined)
  assert.equal((await ensureGoBuild('loadgen')).error, undefined)
  const runtime = new NativeRuntime(`syscall-tax-${process.pid}`, { launcher: taxLauncher({ insns: 2000 }, built.path) })
  const out = mkdtempSync(join(tmpdir(), 'pb-tax-'))
  const ctx: CellContext = {
    runtime,
    runId: 'syscall-tax',
    runDir: out,
    cpus: defaultCpuLayout(),
    profile: PROFILES.smoke!,
    certs: await ensureCerts(certsDir, { force: false, log: memoryLogger() }),
  }
  const outcome = {
    failed: (reason: string) => ({ reason, ok: 0, filtered: [] as string[] }),
    invalid: (reason: string) => ({ reason, ok: 0, filtered: [] as string[] }),
  }
  try {
    const seen = await withVerifiedStack(
      catalogCellPlan('haproxy', { series: 'same', variant: 'article', connections: 4 }),
      'tax-haproxy',
      ctx,
      outcome,
      async ({ url, proxy, backend }) => {
        const r = await loadgenRequests({ url, n: 200, c: 4, cacert: ctx.certs.ca, expectBody: 'hello world' })
        const filtered = [proxy!, backend.role].map(
          (role) => `${role.spec.role}: ${/^Seccomp:\s+(\d+)/m.exec(readFileSync(`/proc/${role.pid}/status`, 'utf8'))?.[1]}`,
        )
        return { reason: '', ok: r.ok, filtered }
      },
    )
    assert.equal(seen.reason, '')
    assert.equal(seen.ok, 200)
    assert.deepEqual(seen.filtered, ['proxy: 2', 'backend: 2'])
  } finally {
    await runtime.stopAll()
  }
})
