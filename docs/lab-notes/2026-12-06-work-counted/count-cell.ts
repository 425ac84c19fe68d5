// Counts one cell as the work series does (measureRequestWork / measureHandshakeWork) and prints its row:
// node --import tsx docs/lab-notes/2026-12-06-work-counted/count-cell.ts PROXY VARIANT SMALL LARGE ROUNDS [request|handshake] [KEY]
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROFILES } from '../../../lib/catalog/profiles.ts'
import { memoryLogger } from '../../../lib/core/log.ts'
import { certsDir } from '../../../lib/core/paths.ts'
import { catalogCellPlan, type CellContext } from '../../../lib/measure/cell.ts'
import { measureRequestWork, measureHandshakeWork } from '../../../lib/measure/work.ts'
import { defaultCpuLayout } from '../../../lib/roles/cpus.ts'
import { NativeRuntime } from '../../../lib/runtime/native.ts'
import { ensureCerts } from '../../../lib/setup/certs.ts'
const [proxy, variant, small, large, rounds, unit, key] = process.argv.slice(2)
const runtime = new NativeRuntime(`work-${process.pid}`)
const out = mkdtempSync(join(tmpdir(), 'pb-work-'))
const ctx: CellContext = { runtime, runId: 'w', runDir: out, cpus: defaultCpuLayout(), profile: PROFILES.quick!, certs: await ensureCerts(certsDir, { force: false, log: memoryLogger() }) }
try {
  const cell = catalogCellPlan(proxy as never, { series: 'work', variant: variant as never, connections: 1, keyType: (key ?? 'ec256') as never })
  const t = Date.now()
  const plan = { small: +small!, large: +large!, rounds: +rounds! }
  const row = unit === 'handshake' ? await measureHandshakeWork(cell, 1, plan, ctx) : await measureRequestWork(cell, 1, plan, ctx)
  console.log(JSON.stringify({ status: row.status, reason: row.reason, ipr: row.instructions_per_req, lo: row.instructions_per_req_low, hi: row.instructions_per_req_high, setup: row.work_setup, conns: (row as any).backend_conns_per_1k_req, wall: (Date.now() - t) / 1000 }))
  console.log(out)
} finally { await runtime.stopAll() }
