import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROXIES } from '../../lib/catalog/stack.ts'
import { defaultSeries } from '../../lib/data/series.ts'
import { h2Cells, H2_STREAMS } from '../../lib/series/h2.ts'

test('quick: h2 is a default series with one h2 cell per proxy (m=1) beside its HTTP/1.1 reference', () => {
  assert.ok(defaultSeries('quick').includes('h2'))
  assert.ok(!defaultSeries('smoke').includes('h2'))
  const quick = h2Cells(PROXIES, 200, 'quick')
  for (const p of PROXIES) {
    const own = quick.filter((c) => c.proxy === p)
    assert.deepEqual(
      own.map((c) => `${c.series} ${c.variant} ${c.streams ?? '-'}`),
      ['h2-h1 h2 -', 'h2 h2 1'],
      p,
    )
  }
  // standard and full: every stream count.
  assert.equal(h2Cells(PROXIES, 200, 'standard').filter((c) => c.series === 'h2').length, PROXIES.length * H2_STREAMS.length)
})
