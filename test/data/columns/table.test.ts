import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { UserError } from '../../../lib/core/errors.ts'
import { repoRoot } from '../../../lib/core/paths.ts'
import type { RowFile } from '../../../lib/data/columns/column.ts'
import { columnNames, requiredColumns } from '../../../lib/data/columns/derive.ts'
import { ROW_FILES } from '../../../lib/data/columns/table.ts'
import { describeColumn } from '../../../lib/data/dictionary.ts'
import { loadRun } from '../../../lib/data/run-data.ts'
import { SCHEMA_VERSION } from '../../../lib/data/schema.ts'

const BASELINE = join(repoRoot, 'baselines/runs/2026-11-30-quick-2core')
const FIXTURE = join(repoRoot, 'test/fixtures/run-quick')
const header = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8').split('\n')[0]!.split(',')

test("version 1 is the columns of the first harness: exactly the committed baseline's headers; tcp.csv and default-keys.csv came later", () => {
  const first: RowFile[] = [ROW_FILES.measurements, ROW_FILES.handshakes, ROW_FILES.websocket]
  for (const f of first) assert.deepEqual(requiredColumns(f, 1), header(BASELINE, f.file))
  assert.deepEqual([requiredColumns(ROW_FILES.tcp, 1), requiredColumns(ROW_FILES['default-keys'], 1)], [[], []])
})

test('every file of the version this harness writes has every column of its table', () => {
  for (const f of Object.values(ROW_FILES) as RowFile[]) assert.deepEqual(requiredColumns(f, SCHEMA_VERSION), columnNames(f))
})

test('the committed baseline (version 1, its first columns) reads: every later column as its empty value', () => {
  const base = loadRun(BASELINE)
  assert.equal(base.manifest.schema_version, 1)
  assert.ok(base.measurements.length > 0 && base.handshakes.length > 0 && base.websocket.length > 0)
  for (const r of base.measurements) {
    assert.deepEqual(
      [r.path, r.scheme, r.body_bytes, r.slo, r.streams, r.steal_share, r.counts_reason, r.invocation],
      ['/', undefined, null, '', null, null, '', null],
    )
  }
  for (const r of base.handshakes) assert.deepEqual([r.resumption, r.load_foreign_cpu_share, r.foreign_processes], [undefined, null, ''])
  for (const r of base.websocket) assert.deepEqual([r.invocation, r.proxy_syscalls_per_req], [null, null])
})

test('the golden fixture (version 1 with some version-2 columns) reads what it has and empties the rest', () => {
  const run = loadRun(FIXTURE)
  assert.equal(run.manifest.schema_version, 1)
  assert.ok(run.measurements.length > 0 && (run.tcp ?? []).length > 0)
  assert.ok(header(FIXTURE, 'measurements.csv').includes('streams') && !header(FIXTURE, 'measurements.csv').includes('load_foreign_cpu_share'))
  assert.ok(run.measurements.every((r) => r.invocation !== null && r.path.startsWith('/') && r.load_foreign_cpu_share === null && r.counted_share === null))
  assert.ok(run.tcp!.every((r) => r.invocation !== null && r.counts_reason === '' && r.foreign_processes === ''))
})

test('the same files under a manifest of this version lack its columns: a one-line error naming the file and the columns', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-columns-'))
  cpSync(FIXTURE, dir, { recursive: true })
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, schema_version: SCHEMA_VERSION }))
  assert.throws(
    () => loadRun(dir),
    (e: Error) =>
      e instanceof UserError &&
      /measurements\.csv:1: columns "load_foreign_cpu_share", "proxy_syscalls_per_req", .* missing from the header: every file of schema version \d+ has them\. Restore the header/.test(
        e.message,
      ) &&
      !e.message.includes('\n'),
  )
})

test("the dictionary describes each row file's column as its table entry does", () => {
  for (const f of Object.values(ROW_FILES)) {
    for (const c of f.columns) assert.deepEqual(describeColumn(f.file, c.name), { unit: c.unit, meaning: c.meaning }, `${f.file} ${c.name}`)
  }
})
