import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { blankRow } from '../../lib/data/columns/derive.ts'
import { ROW_FILES } from '../../lib/data/columns/table.ts'
import { appendMeasurement, readMeasurements } from '../../lib/data/measurements.ts'
import { MEASUREMENT_COLUMNS, SCHEMA_VERSION, type Measurement } from '../../lib/data/schema.ts'
import { MEASUREMENTS, markRows, readTable } from '../../lib/data/tables.ts'
import { UserError } from '../../lib/core/errors.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import Papa from 'papaparse'

/** The file as an older run wrote it: the columns from `first` on absent (they were added at the end). */
const before = (text: string, first: string) => {
  const header = text.split('\n')[0]!.split(',')
  // From the end: a quoted value with commas shifts the columns before it, never the last ones.
  const drop = header.length - header.indexOf(first)
  return (
    text
      .trim()
      .split('\n')
      .map((l) => l.split(',').slice(0, -drop).join(','))
      .join('\n') + '\n'
  )
}

/** A row whose strings need CSV quoting. */
const row: Measurement = {
  ...blankRow(ROW_FILES.measurements),
  run_id: 'r1',
  series: 'same',
  proxy: 'nginx',
  version: '1.31.3',
  variant: 'custom:my, "odd".conf',
  key_type: 'ec256',
  model: 'closed',
  connections: 200,
  target_rps: null,
  duration_s: 3,
  repeat: 1,
  requests: 1234,
  errors: 0,
  rps: 411.3,
  p50_ms: 1.5,
  p90_ms: 2,
  p99_ms: 3,
  p999_ms: 4,
  max_ms: 5,
  proxy_cpu_us_per_req: 22.5,
  backend_cpu_us_per_req: 10,
  generator_cpu_share: 0.4,
  backend_conns_per_1k_req: 0,
  max_vus: null,
  dropped: null,
  status: 'valid',
  reason: '',
  proxy_cpu_share: 0.9,
  runtime: 'native',
  started_at: '2026-11-30T00:00:00Z',
  steal_share: 0.001,
  foreign_cpu_share: null,
  invocation: 2,
  scheme: 'https',
  path: '/',
  body_bytes: null,
  streams: null,
  load_foreign_cpu_share: 0.02,
  proxy_syscalls_per_req: 7.415,
  proxy_ctxsw_per_req: 0.014,
  proxy_ctxsw_involuntary_per_req: null,
  proxy_user_us_per_req: 9.5,
  proxy_sys_us_per_req: 13,
  counts_reason: '',
  udp_datagrams_per_req: 3.25,
}

test('measurements round-trip through the CSV with the docs/data.md columns, quoting and nulls', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-data-'))
  appendMeasurement(dir, row)
  appendMeasurement(dir, { ...row, repeat: 2, status: 'invalid', reason: 'errors 5.0% >= 1%', proxy_cpu_us_per_req: null })
  const text = readFileSync(join(dir, 'measurements.csv'), 'utf8')
  assert.equal(text.split('\n')[0], MEASUREMENT_COLUMNS.join(','))
  assert.equal(text.trim().split('\n').length, 3)
  const back = readMeasurements(dir)
  assert.deepEqual(back[0], row)
  assert.equal(back[1]!.proxy_cpu_us_per_req, null)
  assert.equal(back[1]!.reason, 'errors 5.0% >= 1%')
  assert.notEqual(MEASUREMENTS.key(back[0]!), MEASUREMENTS.key(back[1]!))
  assert.equal(MEASUREMENTS.key(back[0]!), MEASUREMENTS.key({ ...back[1]!, repeat: 1 }))
})

test('a file written before the scenario columns reads path / and no body size, so its cells keep their identity', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-data-'))
  appendMeasurement(dir, { ...row, scheme: 'http', path: '/json', body_bytes: 1024 })
  const text = readFileSync(join(dir, 'measurements.csv'), 'utf8')
  const at = MEASUREMENT_COLUMNS.indexOf('scheme')
  // The file as an older run wrote it: scheme, path and body_bytes absent.
  const keep = (line: string) => Papa.unparse([Papa.parse<string[]>(line).data[0]!.filter((_, i) => i < at || i > at + 2)], { newline: '\n' })
  const [header, line] = text.trim().split('\n')
  writeFileSync(join(dir, 'measurements.csv'), `${keep(header!)}\n${keep(line!)}\n`)
  const [old] = readMeasurements(dir)
  assert.equal(old!.path, '/')
  assert.equal(old!.body_bytes, null)
  assert.equal(old!.scheme, undefined)
  assert.equal(MEASUREMENTS.key(old!), MEASUREMENTS.key({ ...row, scheme: undefined }))
})

test('a malformed CSV line is one error naming file and line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-data-'))
  appendMeasurement(dir, row)
  const file = join(dir, 'measurements.csv')
  writeFileSync(file, readFileSync(file, 'utf8') + readFileSync(file, 'utf8').split('\n')[1]!.replace(',closed,', ',sideways,') + '\n')
  assert.throws(
    () => readMeasurements(dir),
    (e: Error) => e.message.startsWith(`${file}:3: column model: Invalid enum value`) && e.message.endsWith('Fix or remove that line; other rows are kept'),
  )
})

test('a CSV written before steal_share reads it and every later column as its empty value, and a resumed append rewrites its header', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-data-'))
  appendMeasurement(dir, row)
  const file = join(dir, 'measurements.csv')
  // The same file as an older run wrote it: the columns from steal_share on absent (a directory without a manifest reads as version 1).
  writeFileSync(file, before(readFileSync(file, 'utf8'), 'steal_share'))
  const at = MEASUREMENT_COLUMNS.indexOf('steal_share')
  const kept = Object.fromEntries(Object.entries(row).filter(([c]) => MEASUREMENT_COLUMNS.indexOf(c as never) < at))
  const empty = Object.fromEntries(Object.entries(blankRow(ROW_FILES.measurements)).filter(([c]) => MEASUREMENT_COLUMNS.indexOf(c as never) >= at))
  // Numbers null, text '', path /, scheme absent (its empty value is undefined).
  assert.deepEqual(readMeasurements(dir)[0], { ...kept, ...empty })
  assert.deepEqual([empty.steal_share, empty.slo, empty.path, 'scheme' in empty], [null, '', '/', false])
  appendMeasurement(dir, { ...row, repeat: 2 })
  assert.equal(readFileSync(file, 'utf8').split('\n')[0], MEASUREMENT_COLUMNS.join(','))
  const back = readMeasurements(dir)
  assert.deepEqual(
    back.map((r) => [r.repeat, r.steal_share, r.variant, r.invocation]),
    [
      [1, null, row.variant, null],
      [2, 0.001, row.variant, 2],
    ],
  )
})

test('a CSV written before the invocation column reads it as null; a resumed append pads the old rows', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-data-'))
  appendMeasurement(dir, row)
  const file = join(dir, 'measurements.csv')
  writeFileSync(file, before(readFileSync(file, 'utf8'), 'invocation'))
  assert.equal(readMeasurements(dir)[0]!.invocation, null)
  appendMeasurement(dir, { ...row, repeat: 2, invocation: 3 })
  assert.deepEqual(
    readMeasurements(dir).map((r) => r.invocation),
    [null, 3],
  )
})

/** The file as a harness before issue #42 wrote it: the retired columns at their places, with values. */
function withRetired(text: string): string {
  const lines = Papa.parse<string[]>(text, { skipEmptyLines: true }).data
  const insert = (after: string, cells: Record<string, string>) => {
    const at = lines[0]!.indexOf(after) + 1
    for (const [i, l] of lines.entries()) l.splice(at, 0, ...(i === 0 ? Object.keys(cells) : Object.values(cells)))
  }
  insert('counts_reason', { proxy_cpu_calibrated: '21.2', calibration_unit: 'two-part-ref-us-v1' })
  insert('foreign_processes', {
    reference_kind: 'rtt@1000/s',
    reference_cpu_us_per_op: '60.5',
    reference_cpu_share: '0.0605',
    proxy_cpu_per_reference: '0.3719',
  })
  return Papa.unparse(lines, { newline: '\n' }) + '\n'
}

test('a measurements.csv with the retired columns (same-instant reference, two-part unit) reads; a resumed append lines up by its header', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-data-'))
  appendMeasurement(dir, row)
  const file = join(dir, 'measurements.csv')
  writeFileSync(file, withRetired(readFileSync(file, 'utf8')))
  const header = readFileSync(file, 'utf8').split('\n')[0]!.split(',')
  assert.deepEqual(
    ROW_FILES.measurements.retired.filter((c) => !header.includes(c)),
    [],
    'the file has every retired column',
  )
  // Read as a file of the version this harness writes: every current column is there, the retired ones are read past.
  assert.deepEqual(readTable(dir, MEASUREMENTS, SCHEMA_VERSION), [row])
  appendMeasurement(dir, { ...row, repeat: 2 })
  assert.equal(readFileSync(file, 'utf8').split('\n')[0], header.join(','), 'the old header stays')
  assert.deepEqual(readTable(dir, MEASUREMENTS, SCHEMA_VERSION), [row, { ...row, repeat: 2 }])
  const raw = Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true }).data
  assert.deepEqual(
    raw.map((r) => [r.proxy_cpu_calibrated, r.reference_kind]),
    [
      ['21.2', 'rtt@1000/s'],
      ['', ''],
    ],
  )
  // A column the harness never wrote is still an error.
  writeFileSync(file, readFileSync(file, 'utf8').replace('reference_kind', 'reference_kinds'))
  assert.throws(
    () => readTable(dir, MEASUREMENTS, SCHEMA_VERSION),
    (e: Error) => e instanceof UserError && e.message.includes('unknown column "reference_kinds"'),
  )
})

test('the committed baseline, written without the disturbance columns, still reads; the fixture run has them', () => {
  const old = readMeasurements(join(repoRoot, 'baselines/runs/2026-11-30-quick-2core'))
  assert.ok(old.length > 0 && old.every((r) => r.steal_share === null && r.foreign_cpu_share === null && r.invocation === null))
  const fixture = readMeasurements(join(repoRoot, 'test/fixtures/run-quick'))
  assert.ok(fixture.length > 0 && fixture.every((r) => r.steal_share !== null && r.foreign_cpu_share !== null && r.invocation !== null))
})

test('marking a row written before sets its status and reason only: every other cell as it was, an older header too', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-csv-'))
  const file = join(dir, 'measurements.csv')
  appendMeasurement(dir, row)
  appendMeasurement(dir, { ...row, repeat: 2, reason: 'note, "quoted"' })
  // An older file (before steal_share) keeps its header: the mark goes by the file's own columns.
  writeFileSync(file, before(readFileSync(file, 'utf8'), 'steal_share'))
  const text = readFileSync(file, 'utf8')
  markRows(dir, MEASUREMENTS, new Map([[1, { status: 'invalid', reason: 'requests collapsed: 1, "why"' }]]))
  const [header, first, second] = Papa.parse<string[]>(readFileSync(file, 'utf8'), { skipEmptyLines: true }).data
  const [oldHeader, oldFirst, oldSecond] = Papa.parse<string[]>(text, { skipEmptyLines: true }).data
  assert.deepEqual([header, first], [oldHeader, oldFirst])
  const marked = new Set(['status', 'reason'].map((c) => header!.indexOf(c)))
  assert.deepEqual(
    second!.filter((_, i) => !marked.has(i)),
    oldSecond!.filter((_, i) => !marked.has(i)),
  )
  const rows = readTable(dir, MEASUREMENTS, 1)
  assert.deepEqual(
    rows.map((r) => [r.status, r.reason]),
    [
      ['valid', ''],
      ['invalid', 'requests collapsed: 1, "why"'],
    ],
  )
  assert.throws(() => markRows(dir, MEASUREMENTS, new Map([[2, { status: 'invalid', reason: 'x' }]])), /no row 3 to set/)
})
