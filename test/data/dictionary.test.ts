import assert from 'node:assert/strict'
import { test } from 'node:test'
import { aggregate, summaryCsvs } from '../../lib/analysis/summary.ts'
import { CELL_SUMMARY_COLUMNS, CLAIMS, FINDINGS, outputNames, RATIOS } from '../../lib/data/columns/summary.ts'
import { defaultKeySchema } from '../../lib/data/default-keys.ts'
import { csvHeader, dataDictionary, describeColumn } from '../../lib/data/dictionary.ts'
import { handshakeSchema, measurementSchema, tcpSchema, websocketSchema } from '../../lib/data/schema.ts'
import { CLAIMS_COLUMNS, FINDINGS_COLUMNS } from '../../lib/report/summary-export.ts'
import { fixtureTables } from '../fixtures/run.ts'

const undescribed = (file: string, columns: readonly string[]) => columns.filter((c) => describeColumn(file, c) === null).map((c) => `${file}: ${c}`)

test('every column of every row schema is described', () => {
  // Each schema's shape is its file's columns (lib/data/columns/derive.ts).
  const files: [string, { shape: Record<string, unknown> }][] = [
    ['measurements.csv', measurementSchema],
    ['handshakes.csv', handshakeSchema],
    ['websocket.csv', websocketSchema],
    ['tcp.csv', tcpSchema],
    ['default-keys.csv', defaultKeySchema],
  ]
  assert.deepEqual(
    files.flatMap(([f, schema]) => undescribed(f, Object.keys(schema.shape))),
    [],
  )
})

test("every column of every summary CSV (the fixture run's) and of findings.csv / claims.csv is described", async () => {
  const csvs = summaryCsvs(await aggregate(fixtureTables()))
  assert.ok(csvs.size >= 4)
  assert.deepEqual(
    [...csvs].flatMap(([f, text]) => undescribed(f, csvHeader(text))),
    [],
  )
  assert.deepEqual([...undescribed('summary/findings.csv', FINDINGS_COLUMNS), ...undescribed('summary/claims.csv', CLAIMS_COLUMNS)], [])
})

test('the dictionary is one table per file, statistics described from their metric, pipes escaped', () => {
  assert.deepEqual(describeColumn('summary/measurements.csv', 'proxy_cpu_us_per_req_median'), {
    unit: 'µs CPU / request',
    meaning: "median over the cell's valid repeats of proxy_cpu_us_per_req",
  })
  assert.equal(describeColumn('x.csv', 'no_such_column'), null)
  assert.match(describeColumn('measurements.csv', 'proxy_cpu_calibrated')!.meaning, /^retired: /)
  assert.equal(describeColumn('websocket.csv', 'proxy_cpu_calibrated'), null)
  const md = dataDictionary([{ path: 'measurements.csv', columns: ['proxy_cpu_us_per_req', 'odd|name'] }])
  assert.match(md, /^# Data dictionary\n/)
  assert.match(
    md,
    /## measurements\.csv\n\n\| column \| unit \| meaning \|\n\|---\|---\|---\|\n\| `proxy_cpu_us_per_req` \| µs CPU \/ request \| the proxy's CPU time/,
  )
  assert.match(md, /\| `odd\\\|name` \| {2}\| not described \|/)
})

test('the summary CSVs write the columns of lib/data/columns/summary.ts, in its order', async () => {
  const csvs = summaryCsvs(await aggregate(fixtureTables()))
  assert.deepEqual(csvHeader(csvs.get(RATIOS.file)!), outputNames(RATIOS))
  const header = csvHeader(csvs.get('summary/measurements.csv')!)
  const fixed = header.filter((c) => CELL_SUMMARY_COLUMNS.some((x) => x.name === c))
  assert.deepEqual(fixed, outputNames({ columns: CELL_SUMMARY_COLUMNS }))
  assert.deepEqual(FINDINGS_COLUMNS, outputNames(FINDINGS))
  assert.deepEqual(CLAIMS_COLUMNS, outputNames(CLAIMS))
})
