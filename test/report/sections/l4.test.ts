import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Article } from '../../../lib/report/markdown.ts'
import { l4Section } from '../../../lib/report/sections/l4.ts'
import type { ArticleInput } from '../../../lib/report/sections/input.ts'
import { tcpRow } from '../../fixtures/tcp-rows.ts'

const render = (tcp: ReturnType<typeof tcpRow>[] | undefined) => {
  const a = new Article()
  l4Section(a, { run: { tcp } } as unknown as ArticleInput)
  return a
}

test('L4 section: a row per proxy and variant with intervals, the HAProxy/nginx ratio, data strings escaped', () => {
  const rows = [1, 2].flatMap((repeat) => [
    tcpRow({ repeat, proxy_cpu_us_per_conn: 80 + repeat }),
    tcpRow({
      repeat,
      proxy: 'nginx',
      version: '1.31.3',
      proxy_cpu_us_per_conn: 100 + repeat,
      status: repeat === 2 ? 'invalid' : 'valid',
      reason: repeat === 2 ? '<b>x</b>' : '',
    }),
  ])
  const a = render(rows)
  const md = a.toString()
  assert.match(md, /## L4 TCP forwarding/)
  assert.match(md, /\| haproxy \| 2\\\.8\\\.25 \| l4\\-tcp \| 81\\\.5 \\\[81\\\.0\\, 82\\\.0\\\] \|/)
  assert.match(md, /\| nginx \| 1\\\.31\\\.3 \| l4\\-tcp \| 101\\\.0 \\\[1 repeat\\\] \|.*\\<b\\>x/)
  assert.ok(!md.includes('<b>'), 'a reason from the data is escaped')
  assert.match(md, /l4\\-tcp, per connection: 0\\\.81 \\\[1 repeat\\\] \(one repeat: no side decided\)/)
  assert.deepEqual(
    a.files.map((f) => f.path),
    ['data/l4-cells.csv'],
  )
})

test('L4 section without tcp rows says so', () => {
  const a = render(undefined).notRunLine()
  assert.doesNotMatch(a.toString(), /## L4/)
  assert.match(a.toString(), /Not in this run, so not below:\* L4 TCP forwarding \(l4 series\)/)
})
