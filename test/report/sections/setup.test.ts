import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadRun } from '../../../lib/data/run-data.ts'
import { SCHEMA_VERSION, type Invocation } from '../../../lib/data/schema.ts'
import { Article } from '../../../lib/report/markdown.ts'
import type { ArticleInput } from '../../../lib/report/sections/input.ts'
import { setupSection } from '../../../lib/report/sections/setup.ts'
import { FIXTURE_RUN } from '../../fixtures/run.ts'

const inv = (id: number, o: Partial<Invocation> = {}): Invocation => ({
  id, commit: `c0ffee00000${id}`, dirty: id === 2, argv: [], profile: 'quick', repeats: 2, duration_s: 3, series: ['pooling'], proxies: ['haproxy'], cpusets: { proxy: '1', backend: '0', generator: '0' },
  runtime: 'native', network: 'host', seed: id, components: [], custom_configs: [], schema_version: SCHEMA_VERSION, fingerprint: null, started: `2026-11-30T10:0${id}:00Z`, finished: null, changes: [], ...o,
})

function setupMarkdown(mutate: (run: ArticleInput['run']) => void): string {
  const run = loadRun(FIXTURE_RUN)
  mutate(run)
  const a = new Article()
  setupSection(a, { run } as ArticleInput)
  return a.toString().replace(/\\(.)/g, '$1') // the escapes of the Markdown, for readable patterns
}

test('a run of one invocation shows no invocation table (the golden article is unchanged)', () => {
  assert.doesNotMatch(setupMarkdown((run) => (run.manifest.invocations = [inv(1)])), /invocations/)
})

test('a resume with --allow-changes: the setup section lists each invocation, its change and its rows', () => {
  const md = setupMarkdown((run) => {
    run.manifest.invocations = [inv(1), inv(2, { changes: ['--seed 1 → 2'] })]
    run.measurements.forEach((r, i) => (r.invocation = i < 10 ? 1 : i < 15 ? 2 : null))
  })
  assert.match(md, /measured by 2 invocations .*\*\*settings changed between them\*\*/)
  assert.match(md, /\| 1 \| 2026-11-30 10:01:00 \| c0ffee000001 \| native, host \| .* \| 1 \| — \| 10 \|/)
  assert.match(md, /\| 2 \| 2026-11-30 10:02:00 \| c0ffee000002 \(dirty\) \| .* \| --seed 1 → 2 \| 5 \|/)
  assert.match(md, /rows carry no invocation: written before invocations were recorded/)
})
