import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'

/**
 * The numbered notebooks run in flow order (DESIGN.md's steps): set up, then every measuring
 * step, then aggregate and report, which read what the measuring steps wrote.
 */
const numbered = () =>
  readdirSync(join(repoRoot, 'notebooks'))
    .filter((f) => /^\d\d-[\w-]+\.mjs$/.test(f))
    .sort()

test('the numbered notebooks count up from 00 with no gap and no number twice', () => {
  const numbers = numbered().map((f) => Number(f.slice(0, 2)))
  assert.deepEqual(
    numbers,
    numbers.map((_, i) => i),
  )
})

test('every step that measures comes before aggregate and report, and those two come last', () => {
  const steps = numbered()
  const measures = (f: string) => /runFromFlags\(/.test(readFileSync(join(repoRoot, 'notebooks', f), 'utf8'))
  const last = steps.slice(-2).map((f) => f.replace(/^\d\d-/, ''))
  assert.deepEqual(last, ['aggregate.mjs', 'report.mjs'])
  const lastMeasuring = Math.max(...steps.map((f, i) => (measures(f) ? i : -1)))
  assert.ok(lastMeasuring < steps.length - 2, `${steps[lastMeasuring]} measures after aggregate/report`)
  assert.ok(steps.filter(measures).length >= 5, 'the series steps call runFromFlags')
})
