import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseRunOptions } from '../../lib/cli/run-options.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import type { RunComponents } from '../../lib/run/components.ts'
import { seriesContext } from '../../lib/run/phases.ts'
import type { OpenedRun } from '../../lib/run/resume.ts'
import type { ChosenRuntime } from '../../lib/run/runtime-choice.ts'
import type { CertSet } from '../../lib/setup/certs.ts'

const run = { runDir: '/tmp/pb-phases', runId: 'pb-phases' } as OpenedRun
const parts: RunComponents = { components: [], certs: { ca: '/ca.pem' } as CertSet, launcher: ['tax', '--'] }
const chosen = { kind: 'native', runtime: {}, images: [], cpus: { proxy: '1', backend: '0', generator: '0' } } as unknown as ChosenRuntime

test('the series get the parsed plan itself, not a copy of its fields', () => {
  const o = parseRunOptions(
    { proxies: 'haproxy,nginx', variants: 'article', 'pin-versions': 'nginx=1.31.3', versions: 'newest' },
    { install: false, log: memoryLogger() },
  )
  const ctx = seriesContext(o, run, parts, chosen, 7)
  assert.equal(ctx.plan, o.plan)
  assert.deepEqual(ctx.plan.focus, { variants: ['article'] })
  assert.deepEqual(
    Object.keys(ctx).filter((k) => ['focus', 'versions', 'pinned', 'capacity', 'bisectMetric', 'bisectTags', 'custom'].includes(k)),
    [],
    'no series option beside the plan',
  )
  assert.equal(ctx.seed, 7)
  assert.deepEqual([ctx.runDir, ctx.runId, ctx.cpus], [run.runDir, run.runId, chosen.cpus])
  assert.match(ctx.backendVersion, /^[0-9a-f]{16}$/)
})

test('--no-counts reaches the cells; without it the cells count', () => {
  const plain = seriesContext(parseRunOptions({}, { install: false, log: memoryLogger() }), run, parts, chosen, 1)
  assert.equal(plain.counts, undefined)
  const asked = seriesContext(parseRunOptions({ 'no-counts': true }, { install: false, log: memoryLogger() }), run, parts, chosen, 1)
  assert.equal(asked.counts, false)
})
