import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testNeeding } from '../support/needs.ts'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { certsDir, repoRoot } from '../../lib/core/paths.ts'
import { catalogCellPlan, type CellContext } from '../../lib/measure/cell.ts'
import { measureHandshakeWork, measureRequestWork } from '../../lib/measure/work.ts'
import { valgrindVersion } from '../../lib/roles/callgrind.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { ensureGoBuild } from '../../lib/setup/gobuild.ts'

// Real nginx under real callgrind, a real backend and loadgen: counted work, no timings.
const valgrind = await valgrindVersion()
const missing = typeof valgrind === 'string' ? false : valgrind.missing

testNeeding(
  'work: two batch sizes count the same instructions per request; handshakes cost more; a failed verification or a lost count leaves no figure',
  { id: 'integration/work', missing, timeout: 600_000 },
  async () => {
    assert.equal((await ensureGoBuild('loadgen')).error, undefined)
    const runtime = new NativeRuntime(`work-${process.pid}`)
    const out = mkdtempSync(join(tmpdir(), 'pb-work-int-'))
    const ctx: CellContext = {
      runtime,
      runId: 'work',
      runDir: out,
      cpus: defaultCpuLayout(),
      profile: PROFILES.smoke!,
      certs: await ensureCerts(certsDir, { force: false, log: memoryLogger() }),
    }
    try {
      const cell = catalogCellPlan('nginx', { series: 'work', variant: 'pool-added', connections: 1 })
      const a = await measureRequestWork(cell, 1, { rounds: 2, small: 100, large: 300 }, ctx)
      const b = await measureRequestWork(cell, 2, { rounds: 2, small: 300, large: 900 }, ctx)
      for (const r of [a, b]) {
        assert.equal(r.status, 'valid', r.reason)
        assert.equal(r.series, 'work')
        assert.equal(r.counted_batches, 4)
        assert.match(r.work_setup, /^valgrind-\d+\.\d+\.\d+ callgrind; 1 worker; /)
        // A pooled request through TLS: tens of thousands of instructions, never hundreds, never millions.
        assert.ok(r.instructions_per_req! > 5_000 && r.instructions_per_req! < 1_000_000, `${r.instructions_per_req}`)
        assert.ok(r.instructions_per_req_low! <= r.instructions_per_req! && r.instructions_per_req! <= r.instructions_per_req_high!)
        assert.ok(r.backend_conns_per_1k_req! < 50, `pooled: ${r.backend_conns_per_1k_req} backend conns per 1k`)
      }
      const gap = Math.abs(a.instructions_per_req! / b.instructions_per_req! - 1)
      assert.ok(gap < 0.005, `batches of 100/300 and 300/900: ${a.instructions_per_req} vs ${b.instructions_per_req} (${(gap * 100).toFixed(2)}%)`)
      const raw = JSON.parse(readFileSync(join(out, 'raw', 'work-nginx-1.31.3-pool-added-ec256-c1-r1.work.json'), 'utf8'))
      assert.equal(raw.rounds.length, 2, 'the batches behind the row are kept')

      const hs = await measureHandshakeWork({ ...cell, keyType: 'ec256' }, 1, { rounds: 2, small: 20, large: 60 }, ctx)
      assert.equal(hs.status, 'valid', hs.reason)
      assert.equal(hs.handshakes, 160)
      assert.ok(
        hs.instructions_per_req! > 2 * a.instructions_per_req!,
        `a full handshake ${hs.instructions_per_req} vs a pooled request ${a.instructions_per_req}`,
      )

      // A config that answers with the wrong body: verified under callgrind like any cell, invalid, no figure.
      const wrong = join(out, 'wrong.conf')
      const template = readFileSync(join(repoRoot, 'stacks/nginx/templates/pool-added.conf'), 'utf8')
      writeFileSync(wrong, template.replace(/location \/ \{[^}]*\}/, 'location / { return 200 "goodbye"; }'))
      const bad = await measureRequestWork({ ...cell, variant: 'custom:wrong.conf', template: wrong }, 1, { rounds: 2, small: 10, large: 30 }, ctx)
      assert.equal(bad.status, 'invalid')
      assert.match(bad.reason, /^verification failed: 0\/20 ok/)
      assert.equal(bad.instructions_per_req, null)

      // The process under callgrind killed mid-count (what a lost Valgrind looks like): a failed row, and the run goes on.
      // The cell's scratch goes to a folder of this test's own, so only its process is found.
      const own = mkdtempSync(join(tmpdir(), 'pb-work-kill-'))
      const tmp = process.env.TMPDIR
      process.env.TMPDIR = own
      const killer = setInterval(() => {
        for (const d of readdirSync(own)) {
          const dir = join(own, d, 'proxy')
          const counted = existsSync(dir) ? readdirSync(dir).find((f) => /^callgrind\.out\.\d+\.2$/.test(f)) : undefined
          if (counted) killQuietly(Number(counted.split('.')[2]))
        }
      }, 100)
      try {
        const killed = await measureRequestWork(cell, 3, { rounds: 20, small: 100, large: 300 }, ctx)
        assert.notEqual(killed.status, 'valid')
        assert.equal(killed.instructions_per_req, null)
        assert.match(killed.reason, /counting failed|exited/)
        console.log(`killed mid-count: ${killed.status}: ${killed.reason}`)
      } finally {
        clearInterval(killer)
        if (tmp === undefined) delete process.env.TMPDIR
        else process.env.TMPDIR = tmp
      }
    } finally {
      await runtime.stopAll()
    }
  },
)

/** SIGKILL to a process that may already be gone. */
function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {}
}
