import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseCapacityOptions } from '../../lib/cli/capacity-options.ts'
import { parseFlags } from '../../lib/cli/flags.ts'
import { RUN_FLAGS } from '../../lib/cli/run-notebook.ts'
import { parseRunOptions } from '../../lib/cli/run-options.ts'
import { UserError } from '../../lib/core/errors.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { CAPACITY_DEFAULTS } from '../../lib/series/capacity.ts'

test('capacity flags: defaults, and the values given', () => {
  const d = parseCapacityOptions({}, ['capacity'])!
  assert.deepEqual([d.slo.text, d.budgetS, d.startRps], ['p99<10ms,errors<0.1%', CAPACITY_DEFAULTS.budgetS, 1000])
  const flags = parseFlags(
    ['--series', 'capacity', '--slo', 'p99<5ms', '--budget', '60', '--start-rps', '2000', '--variants', 'article'],
    RUN_FLAGS,
    '',
    'notebooks/run-all.mjs',
  )
  const o = parseRunOptions(flags, { install: false, log: memoryLogger() })
  assert.deepEqual(
    [o.series, o.plan.capacity?.slo.text, o.plan.capacity?.budgetS, o.plan.capacity?.startRps, o.plan.focus?.variants],
    [['capacity'], 'p99<5ms', 60, 2000, ['article']],
  )
  // run-all without --series leaves the search out (quick keeps its time), and needs no capacity settings.
  assert.equal(parseRunOptions({}, { install: false, log: memoryLogger() }).series.includes('capacity'), false)
  assert.equal(parseRunOptions({}, { install: false, log: memoryLogger() }).plan.capacity, undefined)
})

test('a bad capacity flag is one line naming the flag and the fix', () => {
  const cases: [Parameters<typeof parseCapacityOptions>[0], readonly ('capacity' | 'pooling')[], RegExp][] = [
    [{ slo: 'p99<10' }, ['capacity'], /^--slo: "p99<10" needs a time unit\. Write it in us, ms or s, e\.g\. p99<10ms$/],
    [{ slo: 'p99<10ms' }, ['pooling'], /^--slo: only means something with the capacity series\. Add --series capacity/],
    [{ budget: '60' }, ['pooling'], /^--budget: only means something with the capacity series/],
    [{ budget: '5' }, ['capacity'], /^--budget 5: not a number of seconds\. Use a whole number from 10 to 86400$/],
    [{ budget: '1.5' }, ['capacity'], /^--budget 1\.5: not a number of seconds/],
    [{ 'start-rps': '50' }, ['capacity'], /^--start-rps 50: not a rate in requests per second\. Use a whole number from 100 to 1000000$/],
  ]
  for (const [flags, series, re] of cases)
    assert.throws(
      () => parseCapacityOptions(flags, series),
      (e: Error) => e instanceof UserError && re.test(e.message),
      JSON.stringify(flags),
    )
})
