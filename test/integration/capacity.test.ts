import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { parseRunOptions } from '../../lib/cli/run-options.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { capacitySearches } from '../../lib/data/capacity.ts'
import { parseSlo, sloMisses } from '../../lib/data/slo.ts'
import { MEASUREMENTS, readTable } from '../../lib/data/tables.ts'
import { runBench } from '../../lib/run/run.ts'
import { CAPACITY_DEFAULTS, nextCapacityStep } from '../../lib/series/capacity.ts'

// A capacity search on real HAProxy with the real open-model generator and a tight budget
// (smoke windows, 30 s of steps). No timing is asserted: the budget is checked through the
// number of steps (each takes at least its warm-up and window), the path of the search by
// replaying the pure search over the rows it wrote.
test('capacity search on HAProxy: every step the search asked for, within the budget; the rate found met the SLO', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'pb-capacity-')), 'run')
  const slo = 'p99<50ms,errors<1%'
  const log = memoryLogger()
  const r = await runBench(
    parseRunOptions(
      { profile: 'smoke', series: 'capacity', proxies: 'haproxy', runtime: 'native', out, seed: '3', slo, budget: '30', 'start-rps': '400' },
      { install: false, log },
    ),
  )
  const rows = readTable(r.runDir, MEASUREMENTS)
  assert.ok(rows.length > 0)
  for (const x of rows)
    assert.ok(x.series === 'capacity' && x.model === 'open' && x.slo === slo && x.connections === 1000 && x.target_rps! >= 100, JSON.stringify(x))
  // Each step lasts at least warm-up + window (2 s here): 30 s of budget holds 15 at most.
  assert.ok(rows.length <= 15, `${rows.length} steps in a 30 s budget`)
  const [search, ...others] = capacitySearches(rows)
  assert.equal(others.length, 0)
  const settings = { ...CAPACITY_DEFAULTS, budgetS: 30, startRps: 400 }
  search!.steps.forEach((s, i) => {
    const asked = nextCapacityStep(search!.steps.slice(0, i), settings, { spentS: 0, stepS: 0 })
    assert.deepEqual('rate' in asked ? asked.rate : asked.done, s.rate, `step ${i + 1}`)
  })
  // The search said why it stopped, and the run's summary carries it as a figure.
  assert.ok(
    log.lines.some((l) => /capacity haproxy \S+ pool-added under p99<50ms,errors<1%: (found|budget spent|stopped|reached|no rate)/.test(l)),
    log.lines.join('\n'),
  )
  assert.ok(r.findings.some((f) => f.id === 'capacity' && f.verdict === 'info' && f.figure.includes(slo)))
  if (search!.found) {
    const f = search!.found.row
    assert.equal(f.status, 'valid')
    assert.deepEqual(sloMisses(f, parseSlo(slo)), [])
    assert.ok(f.proxy_cpu_share! > 0 && f.proxy_cpu_us_per_req! > 0 && f.rps! > 0, JSON.stringify(f))
  } else {
    // 400 rps is far below what HAProxy serves on one core: only a machine busy with something else explains no pass.
    assert.ok(
      search!.steps.every((s) => s.disturbed),
      search!.steps.map((s) => `${s.rate}: ${s.why}`).join('; '),
    )
  }
})
